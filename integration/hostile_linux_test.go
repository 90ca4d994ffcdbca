//go:build linux

package integration

import (
	"regexp"
	"strings"
	"testing"
)

// ccskiSGR matches the colour sequences ccski writes itself: reset, bold,
// dim, underline and five foreground colours.
var ccskiSGR = regexp.MustCompile(`\x1b\[(?:(?:0|1|2|4|31|32|33|35|36)(?:;(?:0|1|2|4|31|32|33|35|36))*)?m`)

// TestHostileTextOnAColourTerminal: with stdout on a terminal, colour on,
// ccski's own colour sequences reach the terminal and nothing else does:
// the window title, clear-screen and cursor sequences, BEL, CR, backspace,
// C1 and bidirectional controls of the hostile tree's names, paths and
// bodies are escaped as they are in a pipe.
func TestHostileTextOnAColourTerminal(t *testing.T) {
	t.Parallel()
	tr := newAttackTree(t)
	evil := "claude:evil\uFFFD]0;pwned\uFFFD\uFFFD[2Jx"
	for _, args := range [][]string{
		{"list"}, {"info", evil}, {"info", "claude:fold\uFFFD[31m\uFFFD"}, {"search", "--content", "body-title"}, {"sources"},
	} {
		out := runOnTerminal(t, tr.workspace, tr.env(), 100, append(args, "--user-dir", tr.home)...)
		if !ccskiSGR.MatchString(out) {
			t.Errorf("%s: no colour on a terminal:\n%q", strings.Join(args, " "), out)
		}
		noRawControl(t, strings.Join(args, " ")+" on a terminal", ccskiSGR.ReplaceAllString(out, ""))
	}
	out := runOnTerminal(t, tr.workspace, tr.env(), 100, "info", evil, "--user-dir", tr.home)
	if !strings.Contains(out, `Body \u001b]0;body-title\u0007 with \u001b[2J escapes`) {
		t.Errorf("info on a terminal does not show the body with its controls escaped:\n%s", out)
	}
}
