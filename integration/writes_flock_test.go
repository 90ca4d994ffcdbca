//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package integration

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSwitchWaitsForAnotherRun: a disable whose settings folder another
// ccski run holds says on stderr that it waits, and for which folder;
// it writes nothing until that run lets go, then writes its switch and
// exits 0. The deadlines only guard against a hang.
func TestSwitchWaitsForAnotherRun(t *testing.T) {
	tr := newSwitchTree(t)
	dir := filepath.Join(tr.home, ".claude")
	settings := filepath.Join(dir, "settings.json")
	holder, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "disable", "notes")
	cmd.Dir, cmd.Env = tr.ws, tr.env()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var said []string
	select {
	case line, ok := <-lines:
		said = append(said, line)
		real, _ := filepath.EvalSymlinks(dir)
		if !ok || !strings.Contains(line, "waiting for another ccski run") || !strings.Contains(line, real) {
			t.Fatalf("want a notice that it waits for %s, got %q (stream open %v)", real, line, ok)
		}
	case <-time.After(time.Minute):
		t.Fatal("no notice on stderr while another run held the settings folder")
	}
	if got := string(readFile(t, settings)); got != switchClaudeSettings {
		t.Fatalf("settings.json was written while another run held its folder:\n%s", got)
	}
	holder.Close()
	deadline := time.After(time.Minute)
	for open := true; open; {
		select {
		case line, ok := <-lines:
			said, open = append(said, line), ok
		case <-deadline:
			t.Fatal("disable did not finish once the folder was free")
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("disable: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), strings.Join(said, "\n"))
	}
	if got := string(readFile(t, settings)); !strings.Contains(got, `"notes": "off"`) {
		t.Errorf("the switch was not written:\n%s", got)
	}
}
