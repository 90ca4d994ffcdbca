//go:build unix

package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfined: a project's target may lie anywhere inside the project,
// also through a link that stays in it; a path outside it, or one a link
// leads out of it (a dangling link by where it would lead), is refused,
// saying where it leads.
func TestConfined(t *testing.T) {
	base := t.TempDir()
	proj, out := filepath.Join(base, "proj"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(proj, "real"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		".claude": "real", ".cursor": "../out", ".gemini": "../out/not-yet", ".github": "not-yet/skills",
	} {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		dir  string
		want string // in the error; "" for none
	}{
		{dir: ".agents/skills"},
		{dir: ".claude/skills"},
		{dir: ".github/skills"},
		{dir: ".cursor/skills", want: "leads outside the project " + proj + " through a symlink (to " + filepath.Join(out, "skills") + ")"},
		{dir: ".gemini/skills", want: "leads outside the project " + proj + " through a symlink (to " +
			filepath.Join(out, "not-yet", "skills") + ")"},
		{dir: "../out/skills", want: "is outside the project"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			err := confined(proj, filepath.Join(proj, tc.dir))
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("confined(%s) = %v, want %q", tc.dir, err, tc.want)
			}
		})
	}
}
