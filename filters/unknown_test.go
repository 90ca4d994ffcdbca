package filters

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestBuildUnknownTokens checks that a token naming nothing in the scan is
// an error with suggestions, in include and exclude alike, and that every
// token that names something (a registered or scanned provider, a plugin's
// or a scope's full name, a skill name or glob, an id, a fixed form) is
// not.
func TestBuildUnknownTokens(t *testing.T) {
	tests := []struct {
		tok  string
		msg  string // "" when the token is valid
		sugg []string
	}{
		{tok: "codx", msg: `invalid filter token "codx": it names no provider, plugin, skill or command; did you mean codex?`,
			sugg: []string{"codex"}},
		{tok: "Curser", msg: `invalid filter token "Curser": it names no provider, plugin, skill or command; did you mean cursor?`,
			sugg: []string{"cursor"}},
		{tok: "pdff", msg: `invalid filter token "pdff": it names no provider, plugin, skill or command; did you mean pdf?`,
			sugg: []string{"pdf"}},
		{tok: "zzzzzz", msg: `invalid filter token "zzzzzz": it names no provider, plugin, skill or command`},
		{tok: "codx@user", msg: `invalid filter token "codx@user": unknown provider "codx"; did you mean codex?`,
			sugg: []string{"codex"}},
		{tok: "codx@user:pdf", msg: `invalid filter token "codx@user:pdf": unknown provider "codx"; did you mean codex?`,
			sugg: []string{"codex"}},
		{tok: "codx:pdf", msg: `invalid filter token "codx:pdf": codx is no provider or plugin, and no skill or command is named codx:pdf; did you mean codex:pdf?`,
			sugg: []string{"codex:pdf"}},
		{tok: "example-skills", msg: `invalid filter token "example-skills": example-skills is a plugin, not a skill; use @plugins:example-skills for its skills`},
		{tok: "example-skills:pdff", msg: `invalid filter token "example-skills:pdff": no skill or command of example-skills is named pdff; did you mean example-skills:pdf?`,
			sugg: []string{"example-skills:pdf"}},
		{tok: "docs:pdx", msg: `invalid filter token "docs:pdx": no skill or command of docs is named pdx; did you mean docs:pdf?`,
			sugg: []string{"docs:pdf"}},

		{tok: "codex"}, {tok: "CURSOR"}, {tok: "openclaw"}, {tok: "file"}, {tok: "gemini@project"},
		{tok: "review"}, {tok: "rev*"}, {tok: "PDF"}, {tok: "docs:pdf"}, {tok: "example-skills:pdf"},
		{tok: "example-skills:*"}, {tok: "cursor:review"}, {tok: "cursor:nothing"}, {tok: "claude:nothing"},
		{tok: "@plugins:nothing"}, {tok: "@nothing:pdf"}, {tok: "auto"}, {tok: "all:nothing"},
		{tok: "claude:@example-skills:pdf"}, {tok: "gemini:codex"},
	}
	for _, tt := range tests {
		for _, flag := range []string{"include", "exclude"} {
			cfg := Settings{Include: []string{"auto"}}
			if flag == "include" {
				cfg.Include = []string{"auto," + tt.tok}
			} else {
				cfg.Exclude = []string{tt.tok}
			}
			_, err := Build(cfg, scan())
			if tt.msg == "" {
				if err != nil {
					t.Errorf("--%s %s: %v", flag, tt.tok, err)
				}
				continue
			}
			if want := flag + ": " + tt.msg; err == nil || err.Error() != want {
				t.Errorf("--%s %s: error %v\nwant %s", flag, tt.tok, err, want)
				continue
			}
			var te *TokenError
			if !errors.As(err, &te) {
				t.Errorf("--%s %s: %T is no *TokenError", flag, tt.tok, err)
				continue
			}
			if d := cmp.Diff(tt.sugg, te.Suggestions, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("--%s %s: suggestions (-want +got):\n%s", flag, tt.tok, d)
			}
		}
	}
}

// TestCheckNeedsNoScan checks that Check reports what the syntax alone
// shows and leaves tokens that depend on the scan to Build.
func TestCheckNeedsNoScan(t *testing.T) {
	if err := Check(Settings{Include: []string{"codx"}, Exclude: []string{"codx:pdf"}}); err != nil {
		t.Errorf("Check of scan-dependent tokens: %v", err)
	}
	for _, cfg := range []Settings{{Include: []string{"@"}}, {Exclude: []string{"x,"}}, {State: "on"}, {Priority: []string{"nope"}}} {
		if err := Check(cfg); err == nil {
			t.Errorf("Check(%+v) = nil, want an error", cfg)
		}
	}
}
