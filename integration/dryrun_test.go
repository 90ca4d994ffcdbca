package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// diffHeader matches the two header lines of one file's unified diff.
var diffHeader = regexp.MustCompile(`(?m)^--- (.*)\n\+\+\+ (.*)\n@@ `)

// diffHeaders returns the "--- " and "+++ " labels of every diff in out.
func diffHeaders(out string) [][2]string {
	var hs [][2]string
	for _, m := range diffHeader.FindAllStringSubmatch(out, -1) {
		hs = append(hs, [2]string{m[1], m[2]})
	}
	return hs
}

// TestDryRunDiffsAgree: every --dry-run prints its changes in one diff
// format, run from the same folder: a/ and b/ headers, the files named
// relative to that folder (a file outside it by its absolute path, its
// leading slash dropped after the prefix, as git diff --no-index writes
// it), "--- /dev/null" for a file not there yet. It used to differ
// between disable (absolute paths, no prefixes) and validate --fix.
func TestDryRunDiffsAgree(t *testing.T) {
	tr := newSwitchTree(t)
	local := filepath.Join(tr.ws, ".claude", "settings.local.json")
	testfs.Write(t, tr.ws, map[string]string{
		".claude/settings.local.json": "{}\n",
		"fixme/crlf/SKILL.md":         "---\r\nname: crlf\r\ndescription: A skill with CRLF line endings.\r\n---\r\n# crlf\r\n",
	})
	outside := strings.TrimPrefix(filepath.ToSlash(filepath.Join(tr.home, ".claude", "settings.json")), "/")
	tests := []struct {
		name string
		args []string
		want [][2]string
	}{
		{"disable, a project skill", []string{"disable", "release", "--dry-run"},
			[][2]string{{"a/.claude/settings.local.json", "b/.claude/settings.local.json"}}},
		{"disable, a user skill", []string{"disable", "notes", "--dry-run"},
			[][2]string{{"a/" + outside, "b/" + outside}}},
		{"validate --fix", []string{"validate", "--fix", "--dry-run", "fixme"},
			[][2]string{{"a/fixme/crlf/SKILL.md", "b/fixme/crlf/SKILL.md"}}},
		{"install-workflow, a new file", []string{"install-workflow", "--scope", "project", "--agent", "claude", "--dry-run"},
			[][2]string{{"/dev/null", "b/CLAUDE.md"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tr.run(t, tt.args...)
			if r.code != 0 && !(tt.args[0] == "validate" && r.code == 1) {
				t.Fatalf("unexpected exit\n%s", r)
			}
			got := diffHeaders(r.stdout)
			if len(got) != len(tt.want) {
				t.Fatalf("diff headers %q, want %q\n%s", got, tt.want, r)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("diff headers %q, want %q\n%s", got[i], tt.want[i], r.stdout)
				}
			}
		})
	}

	// The diffs of --json are the same text.
	var out toggleOut
	r := tr.run(t, "disable", "release", "--dry-run", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &out)
	if len(out.Files) != 1 || out.Files[0].Path != local ||
		!strings.HasPrefix(out.Files[0].Diff, "--- a/.claude/settings.local.json\n+++ b/.claude/settings.local.json\n@@ ") {
		t.Errorf("--json files: %+v", out.Files)
	}
	if b, err := os.ReadFile(local); err != nil || string(b) != "{}\n" {
		t.Errorf("a dry run wrote %s: %q, %v", local, b, err)
	}
}
