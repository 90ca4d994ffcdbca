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
	}, nil); cerr != nil {
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

// TestWriteRootHostFolderElsewhere: a host folder that is a link out of
// the home folder (the user keeps ~/.claude elsewhere) is the root of its
// files, so they are written; a file linked out of that folder is not.
// A host folder linked inside the home folder leaves the home folder the
// root.
func TestWriteRootHostFolderElsewhere(t *testing.T) {
	base := t.TempDir()
	home, kept := filepath.Join(base, "home"), filepath.Join(base, "disk", "claude")
	for _, d := range []string{home, kept, filepath.Join(home, "dotfiles", "codex")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	claude, codex := filepath.Join(home, ".claude"), filepath.Join(home, ".codex")
	if err := os.Symlink(kept, claude); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, "dotfiles", "codex"), codex); err != nil {
		t.Fatal(err)
	}
	env := Env{UserDir: home, Homes: map[string]string{"claude": claude, "codex": codex}}
	settings := filepath.Join(claude, "settings.json")
	if got := env.WriteRoot(settings); got != claude {
		t.Errorf("WriteRoot(%s) = %s, want the host folder", settings, got)
	}
	if got := env.WriteRoot(filepath.Join(codex, "config.toml")); got != home {
		t.Errorf("a host folder linked inside the home folder: root %s, want %s", got, home)
	}
	if err := safefile.CheckLinks(env.WriteRoot(settings), settings); err != nil {
		t.Errorf("a file of a host folder kept elsewhere: %v", err)
	}
	out := filepath.Join(base, "out.json")
	if err := os.Symlink(out, filepath.Join(kept, "settings.json")); err != nil {
		t.Fatal(err)
	}
	var le *safefile.LinkError
	if err := safefile.CheckLinks(env.WriteRoot(settings), settings); !errors.As(err, &le) {
		t.Errorf("a file linked out of a host folder kept elsewhere: got %v, want a *safefile.LinkError", err)
	}
}
