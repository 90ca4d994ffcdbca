//go:build unix

package providers

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/safefile"
)

// TestEditFileRefusesLinkOutOfRoot: an edit of a file that a symbolic
// link leads out of the folder it belongs to is refused with the link's
// *safefile.LinkError, and nothing is written; reading it is fine.
func TestEditFileRefusesLinkOutOfRoot(t *testing.T) {
	base := t.TempDir()
	repo, out := filepath.Join(base, "repo"), filepath.Join(base, "out.json")
	os.MkdirAll(filepath.Join(repo, ".claude"), 0o755)
	os.WriteFile(out, []byte("{}"), 0o644)
	link := filepath.Join(repo, ".claude", "settings.json")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	fs := NewFilesIn(Env{Workspace: repo})
	var err error
	if cerr := fs.Commit(func() {
		if data, _, rerr := fs.Read(link); rerr != nil || string(data) != "{}" {
			t.Fatalf("read: %q, %v", data, rerr)
		}
		_, err = EditFile(fs, link, func([]byte) ([]byte, error) { return []byte(`{"x": 1}`), nil })
	}); cerr != nil {
		t.Fatal(cerr)
	}
	var le *safefile.LinkError
	if !errors.As(err, &le) || le.Link != link || le.Target != out || le.Root != repo {
		t.Fatalf("got %v, want a *safefile.LinkError for %s", err, link)
	}
	// Written directly, the set refuses it too.
	fs.Set(link, []byte(`{"x": 1}`))
	if err := fs.Write(); !errors.As(err, &le) {
		t.Fatalf("Write: got %v, want a *safefile.LinkError", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "{}" {
		t.Errorf("the link's target changed: %q", got)
	}
}
