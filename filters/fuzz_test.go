package filters

import (
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// FuzzFilterGrammar: whatever a filter token says, parsing it returns (a
// token or a *TokenError), reads the same after a round trip through its
// text and in any letter case, and a list of such tokens, given as
// include and exclude, builds stages that run over a scan and keep every
// record either out or dropped with a reason, never both and never lost.
func FuzzFilterGrammar(f *testing.F) {
	for _, seed := range []string{"auto", "all", "claude", "claude:pdf", "claude@user:pdf", "@plugins:example-skills:*",
		"claude:@document-skills:docx", "all:*review*", "file", "custom:docs:pdf", "x:y:z", "@", ":", "a@", "**[",
		"codex@system", "auto:p?f", "@plugins::", "claude:@", "[]", "\\", "pdf,docx", " , "} {
		f.Add(seed, "")
	}
	f.Add("claude:pdf", "codex:*")
	f.Fuzz(func(t *testing.T, include, exclude string) {
		for _, tok := range []string{include, exclude} {
			parsed, err := Parse(tok)
			if err != nil {
				if _, ok := err.(*TokenError); !ok {
					t.Fatalf("Parse(%q): %T %v, want a *TokenError", tok, err, err)
				}
				continue
			}
			again, err := Parse(parsed.String())
			if err != nil || again != parsed {
				t.Fatalf("Parse(%q) = %+v, but its text %q parses to %+v, %v", tok, parsed, parsed.String(), again, err)
			}
			if _, err := Parse(strings.ToUpper(tok)); err != nil {
				t.Fatalf("Parse(%q) succeeds but the upper-case form fails: %v", tok, err)
			}
		}
		records := scan()
		pipeline.AssignIDs(records)
		stages, err := Build(Settings{Include: []string{include}, Exclude: []string{exclude}, Providers: registered,
			LenientInclude: true, LenientExclude: true}, records)
		if err != nil {
			return
		}
		out, dropped := pipeline.Run(stages, records)
		seen := map[*pipeline.Record]int{}
		for _, r := range out {
			seen[r]++
		}
		for _, d := range dropped {
			if d.Reason == "" {
				t.Fatalf("%s dropped without a reason", d.Record.ID)
			}
			seen[d.Record]++
		}
		for _, r := range records {
			if seen[r] != 1 {
				t.Fatalf("include %q, exclude %q: %s is kept or dropped %d times, want once", include, exclude, r.ID, seen[r])
			}
		}
	})
}
