package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/testfs"
)

// TestLockRunOutsideProject: the run lock lives in the state folder,
// one per lock whatever path reaches it, never beside the lock; it keeps
// a second run waiting; and an empty ccski.lock.lck an older ccski left
// beside the lock is deleted once the run holds its turn.
func TestLockRunOutsideProject(t *testing.T) {
	root := testfs.TempDir(t)
	testfs.Write(t, root, map[string]string{"proj/ccski.lock.lck": "", "proj/link": "-> ."})
	state := filepath.Join(root, "state")
	proj := filepath.Join(root, "proj")
	file, err := RunLockFile(state, filepath.Join(proj, LockName))
	if err != nil {
		t.Fatal(err)
	}
	viaLink, err := RunLockFile(state, filepath.Join(proj, "link", LockName))
	if err != nil {
		t.Fatal(err)
	}
	if file != viaLink || !safefile.Within(state, file) {
		t.Fatalf("run lock %s (via a link %s), want one file in %s", file, viaLink, state)
	}
	l := Layout{Scope: ScopeProject, Base: proj, LockFile: filepath.Join(proj, LockName), RunLock: file}
	release, err := LockRun(l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(proj, "ccski.lock.lck")); err == nil {
		t.Error("the old ccski.lock.lck beside the lock is still there")
	}
	if ents, _ := os.ReadDir(proj); len(ents) != 1 {
		t.Errorf("the project holds %v, want only the link the test made", ents)
	}
	if safefile.CanLock && !safefile.LockedElsewhere(file) {
		t.Error("the run lock is not held")
	}
	release()
	if safefile.LockedElsewhere(file) {
		t.Error("the run lock is held after release")
	}
	if _, err := LockRun(Layout{LockFile: l.LockFile}, nil); err == nil {
		t.Error("a layout without a run lock was locked")
	}
}
