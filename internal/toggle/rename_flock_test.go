//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package toggle

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// lineWriter sends each write to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// TestRenameUnderLock: a .SKILL.md switch is made under the lock of the
// skill's folder, as a settings file is, so that it waits for another
// ccski run holding it and says so; a run that made the same rename
// meanwhile leaves it changed once, and the second finds it already so.
func TestRenameUnderLock(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/loose/SKILL.md": ""})
	dir := filepath.Join(base, "s", "loose")
	r := &pipeline.Record{ID: "x:loose", Name: "loose", Agent: "x", Dir: dir, File: filepath.Join(dir, pipeline.SkillFile)}
	all := []*pipeline.Record{r}
	snap := pipeline.NewSnapshot(all, all, nil, nil, nil)

	holder, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	tg := New(providers.Env{}, snap, nil)
	notices := make(lineWriter, 4)
	tg.Notices = notices
	done := make(chan *Plan, 1)
	go func() { done <- tg.Commit(func() { tg.Record(r, Request{}) }, false) }()
	select {
	case n := <-notices:
		if !strings.Contains(n, "waiting for another ccski run") {
			t.Errorf("notice: %q", n)
		}
	case <-done:
		t.Fatal("the rename was made while another run held the skill's folder")
	case <-time.After(time.Minute):
		t.Fatal("no notice while another run held the skill's folder")
	}
	if _, err := os.Stat(r.File); err != nil {
		t.Fatalf("renamed while another run held the folder: %v", err)
	}
	// The other run renames it, then lets the folder go.
	if err := os.Rename(r.File, filepath.Join(dir, pipeline.DisabledSkillFile)); err != nil {
		t.Fatal(err)
	}
	holder.Close()
	var p *Plan
	select {
	case p = <-done:
	case <-time.After(time.Minute):
		t.Fatal("Commit did not go on once the folder was free")
	}
	if p.Err != nil || len(p.Results) != 1 || p.Results[0].Status != Unchanged || len(p.Renames) != 0 {
		t.Errorf("err %v, results %+v, renames %+v: want the switch found already so", p.Err, p.Results, p.Renames)
	}
}
