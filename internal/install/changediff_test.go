package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestChangeDiff: the diff of an update names each changed, added and
// removed file under the installed copy's path, in path order, with a
// /dev/null side for added and removed files, and names a binary file
// without its bytes; diskState's notes are no files.
func TestChangeDiff(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skills/pdf/SKILL.md": "a\nb\n",
		"skills/pdf/gone.md":  "old\n",
		"skills/pdf/blob.bin": "x\x00y",
		"stage/pdf/SKILL.md":  "a\nc\n",
		"stage/pdf/new.md":    "new\n",
		"stage/pdf/blob.bin":  "x\x00z",
		"stage/pdf/same.md":   "same\n",
		"skills/pdf/same.md":  "same\n",
	})
	ch := &manifest.Changes{Added: []string{"new.md"}, Changed: []string{"SKILL.md", "blob.bin", "(a note)"},
		Removed: []string{"gone.md"}}
	got := changeDiff(base, filepath.Join(base, "skills/pdf"), filepath.Join(base, "stage/pdf"), ch)
	want := strings.Join([]string{
		"--- a/skills/pdf/SKILL.md", "+++ b/skills/pdf/SKILL.md", "@@ -1,2 +1,2 @@", " a", "-b", "+c",
		"Binary file skills/pdf/blob.bin differs",
		"--- a/skills/pdf/gone.md", "+++ /dev/null", "@@ -1 +0,0 @@", "-old",
		"--- /dev/null", "+++ b/skills/pdf/new.md", "@@ -0,0 +1 @@", "+new", "",
	}, "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changeDiff (-want +got):\n%s", diff)
	}
	if got := changeDiff(base, filepath.Join(base, "skills/pdf"), filepath.Join(base, "stage/pdf"), &manifest.Changes{}); got != "" {
		t.Errorf("changeDiff of no change = %q", got)
	}
}
