package filters

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ccski/ccski/pipeline"
)

// superpowers is an installed plugin that the settings disable.
var superpowers = []pipeline.DisabledPlugin{{Plugin: "superpowers", Marketplace: "m", Settings: "/h/.claude/settings.json"}}

// superpowersOff is what a token that needs superpowers enabled is told.
const superpowersOff = `plugin superpowers is disabled (enable it in /h/.claude/settings.json enabledPlugins: "superpowers@m": true)`

// TestBuildUnknownTokens checks that a token naming nothing in the scan is
// an error with suggestions, in include and exclude alike, and that every
// token that names something (a registered or scanned provider, a plugin's
// or a scope's full name, a skill name or glob, an id, a fixed form, a
// plugin and its skills) is not. A disabled plugin is named as such for an
// include token, and an exclude token may name it.
func TestBuildUnknownTokens(t *testing.T) {
	tests := []struct {
		tok  string
		msg  string // "" when the token is valid
		sugg []string
		// excludeMsg, when set, is the message for an exclude token;
		// "-" when the exclude token is valid.
		excludeMsg string
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

		// Plugin tokens name a plugin of the scan, and a skill of it.
		{tok: "@plugins:nothing", msg: `invalid filter token "@plugins:nothing": no installed plugin is named nothing`},
		{tok: "@plugins:exampel-skills", msg: `invalid filter token "@plugins:exampel-skills": no installed plugin is named exampel-skills; did you mean @plugins:example-skills?`,
			sugg: []string{"@plugins:example-skills"}},
		{tok: "@exampel-skills:pdf", msg: `invalid filter token "@exampel-skills:pdf": no installed plugin is named exampel-skills; did you mean @example-skills:pdf?`,
			sugg: []string{"@example-skills:pdf"}},
		{tok: "claude:@nothing:pdf", msg: `invalid filter token "claude:@nothing:pdf": no installed plugin is named nothing`},
		{tok: "@plugins:zz*", msg: `invalid filter token "@plugins:zz*": no installed plugin matches zz*`},
		{tok: "@example-skills:pdff", msg: `invalid filter token "@example-skills:pdff": no skill or command of plugin example-skills is named pdff; did you mean @example-skills:pdf?`,
			sugg: []string{"@example-skills:pdf"}},
		{tok: "@plugins:example-skills:pdff", msg: `invalid filter token "@plugins:example-skills:pdff": no skill or command of plugin example-skills is named pdff; did you mean @plugins:example-skills:pdf?`,
			sugg: []string{"@plugins:example-skills:pdf"}},
		{tok: "@plugins:*:docxx", msg: `invalid filter token "@plugins:*:docxx": no plugin has a skill or command named docxx; did you mean @plugins:*:docx?`,
			sugg: []string{"@plugins:*:docx"}},

		// A disabled plugin: its skills are not in the scan.
		{tok: "@plugins:superpowers", msg: `invalid filter token "@plugins:superpowers": ` + superpowersOff, excludeMsg: "-"},
		{tok: "@plugins:super*", msg: `invalid filter token "@plugins:super*": ` + superpowersOff, excludeMsg: "-"},
		{tok: "@superpowers:brainstorming", msg: `invalid filter token "@superpowers:brainstorming": ` + superpowersOff, excludeMsg: "-"},
		{tok: "superpowers:brainstorming", msg: `invalid filter token "superpowers:brainstorming": ` + superpowersOff, excludeMsg: "-"},
		{tok: "superpowers",
			msg:        `invalid filter token "superpowers": superpowers is a plugin, not a skill; use @plugins:superpowers for its skills; ` + superpowersOff,
			excludeMsg: `invalid filter token "superpowers": superpowers is a plugin, not a skill; use @plugins:superpowers for its skills`},
		{tok: "@plugins:superpowr", msg: `invalid filter token "@plugins:superpowr": no installed plugin is named superpowr; did you mean @plugins:superpowers?`,
			sugg: []string{"@plugins:superpowers"}},

		{tok: "codex"}, {tok: "CURSOR"}, {tok: "openclaw"}, {tok: "file"}, {tok: "gemini@project"},
		{tok: "review"}, {tok: "rev*"}, {tok: "PDF"}, {tok: "docs:pdf"}, {tok: "example-skills:pdf"},
		{tok: "example-skills:*"}, {tok: "cursor:review"}, {tok: "cursor:nothing"}, {tok: "claude:nothing"},
		{tok: "openclaw:nothing"}, {tok: "auto"}, {tok: "all:nothing"},
		{tok: "claude:@example-skills:pdf"}, {tok: "gemini:codex"},
		{tok: "@plugins"}, {tok: "@plugins:*"}, {tok: "@plugins:doc*"}, {tok: "@Example-Skills:P?F"},
		{tok: "@plugins:document-skills:*"}, {tok: "claude@user:@plugins:example-skills"},
	}
	for _, tt := range tests {
		for _, flag := range []string{"include", "exclude"} {
			cfg := Settings{Include: []string{"auto"}, Providers: registered, Disabled: superpowers}
			msg := tt.msg
			if flag == "include" {
				cfg.Include = []string{"auto," + tt.tok}
			} else {
				cfg.Exclude = []string{tt.tok}
				switch tt.excludeMsg {
				case "":
				case "-":
					msg = ""
				default:
					msg = tt.excludeMsg
				}
			}
			_, err := Build(cfg, scan())
			if msg == "" {
				if err != nil {
					t.Errorf("--%s %s: %v", flag, tt.tok, err)
				}
				continue
			}
			if want := flag + ": " + msg; err == nil || err.Error() != want {
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

// TestBuildRegisteredProviders checks that the registered provider names
// come from Settings.Providers: without them, a provider with no skill in
// the scan is an unknown word.
func TestBuildRegisteredProviders(t *testing.T) {
	for _, tt := range []struct {
		providers []string
		ok        bool
	}{
		{registered, true},
		{nil, false},
	} {
		_, err := Build(Settings{Exclude: []string{"openclaw"}, Providers: tt.providers}, scan())
		if (err == nil) != tt.ok {
			t.Errorf("--exclude openclaw with providers %q: err = %v, want ok %v", tt.providers, err, tt.ok)
		}
	}
}

// TestBuildLenientLists checks that a lenient list's tokens that name
// nothing are accepted by Build, and those of a strict list are not, and
// that a successful BuildReport reports them all as warnings, include first.
func TestBuildLenientLists(t *testing.T) {
	const (
		inc = `include: invalid filter token "nosuch": it names no provider, plugin, skill or command`
		exc = `exclude: invalid filter token "team-only": it names no provider, plugin, skill or command`
	)
	tests := []struct {
		name             string
		include, exclude []string
		lenInc, lenExc   bool
		err              string // Build's error; "" for none
	}{
		{"both strict", []string{"nosuch"}, []string{"team-only"}, false, false, inc},
		{"lenient exclude, strict include", []string{"nosuch"}, []string{"team-only"}, false, true, inc},
		{"lenient include, strict exclude", []string{"nosuch"}, []string{"team-only"}, true, false, exc},
		{"both lenient", []string{"nosuch"}, []string{"team-only"}, true, true, ""},
		{"lenient exclude alone", []string{"auto"}, []string{"team-only"}, false, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Settings{Include: tt.include, Exclude: tt.exclude, Providers: registered,
				LenientInclude: tt.lenInc, LenientExclude: tt.lenExc}
			records := scan()
			stages, unmatched, err := BuildReport(cfg, records)
			if got := fmtErr(err); got != tt.err {
				t.Fatalf("Build error %q, want %q", got, tt.err)
			}
			if err != nil {
				if stages != nil || unmatched != nil {
					t.Errorf("a failed BuildReport returned stages %v and warnings %v", stages, unmatched)
				}
				return
			}
			out, dropped := pipeline.Run(stages, records)
			checkPartition(t, records, out, dropped)
			var got []string
			for _, e := range unmatched {
				got = append(got, e.Error())
			}
			want := []string{exc}
			if tt.include[0] == "nosuch" {
				want = []string{inc, exc}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("BuildReport warnings (-want +got):\n%s", d)
			}
		})
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
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

// TestBuildDisabledPluginOfAnotherHost checks that an include token naming
// a plugin another host disables (a Codex plugin turned off in
// config.toml) says where that host turns it on, not Claude's
// enabledPlugins.
func TestBuildDisabledPluginOfAnotherHost(t *testing.T) {
	off := []pipeline.DisabledPlugin{{Provider: "codex", Plugin: "linear", Marketplace: "openai-curated",
		Settings: "/h/.codex/config.toml", Enable: `/h/.codex/config.toml: [plugins."linear@openai-curated"] enabled = true`}}
	cfg := Settings{Include: []string{"auto,@plugins:linear"}, Providers: registered, Disabled: off}
	_, err := Build(cfg, scan())
	want := `include: invalid filter token "@plugins:linear": plugin linear is disabled ` +
		`(enable it in /h/.codex/config.toml: [plugins."linear@openai-curated"] enabled = true)`
	if err == nil || err.Error() != want {
		t.Errorf("Build error = %v\nwant %s", err, want)
	}
}
