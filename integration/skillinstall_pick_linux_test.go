//go:build linux

package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
)

// terminalSession runs the binary with stdin, stdout and stderr on one
// pseudo-terminal, as a person at a terminal runs it, and lets the test
// type and read the screen.
type terminalSession struct {
	cmd    *exec.Cmd
	master *os.File
	mu     sync.Mutex
	screen bytes.Buffer
	done   chan error
	read   chan struct{} // closed once the terminal is read to its end
}

func startOnTerminal(t *testing.T, dir string, vars []string, args ...string) *terminalSession {
	t.Helper()
	master, slave := openPTY(t, 100)
	s := &terminalSession{master: master, done: make(chan error, 1), read: make(chan struct{})}
	s.cmd = exec.Command(binary, args...)
	s.cmd.Dir, s.cmd.Env = dir, vars
	s.cmd.Stdin, s.cmd.Stdout, s.cmd.Stderr = slave, slave, slave
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go func() {
		defer close(s.read)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			s.mu.Lock()
			s.screen.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { s.done <- s.cmd.Wait() }()
	t.Cleanup(func() { s.cmd.Process.Kill() })
	return s
}

// output is everything written to the terminal so far.
func (s *terminalSession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.screen.String()
}

// waitFor waits until the terminal shows text, failing after a minute.
func (s *terminalSession) waitFor(t *testing.T, text string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(s.output(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows:\n%s", text, s.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typeKeys writes keys to the terminal.
func (s *terminalSession) typeKeys(t *testing.T, keys string) {
	t.Helper()
	if _, err := s.master.Write([]byte(keys)); err != nil {
		t.Fatal(err)
	}
}

// wait waits for the process to end and for everything it wrote to the
// terminal to be read, failing after a minute, and returns its exit code.
// The process ending is not enough: its last lines may still sit in the
// terminal, unread, when a loaded machine runs the waiting test first.
// Reading the master ends (with EIO) once the last slave end is closed,
// after what was written is read.
func (s *terminalSession) wait(t *testing.T) int {
	t.Helper()
	guard := time.After(time.Minute)
	select {
	case <-s.done:
	case <-guard:
		t.Fatalf("ccski did not end; the terminal shows:\n%s", s.output())
	}
	select {
	case <-s.read:
	case <-guard:
		t.Fatalf("ccski ended, but its terminal was not closed; it shows:\n%s", s.output())
	}
	return s.cmd.ProcessState.ExitCode()
}

// TestInstallPicker drives install -i on a pseudo-terminal: the picker
// lists the source's skills, the keys tick the second and third, and
// enter installs exactly those; ctrl+c cancels and installs nothing.
func TestInstallPicker(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{
		"src/alpha/SKILL.md": skillText("alpha", "a"),
		"src/beta/SKILL.md":  skillText("beta", "b"),
		"src/gamma/SKILL.md": skillText("gamma", "g"),
	})
	vars := append(b.vars, "TERM=xterm-256color")
	s := startOnTerminal(t, b.proj, vars, "install", filepath.Join(b.root, "src"), "-i")
	s.waitFor(t, "gamma")
	s.typeKeys(t, "\x1b[B") // down to beta
	s.typeKeys(t, " ")      // tick beta
	s.typeKeys(t, "\x1b[B") // down to gamma
	s.typeKeys(t, "x")      // tick gamma
	s.typeKeys(t, "\r")     // install
	if code := s.wait(t); code != 0 {
		t.Fatalf("exit %d; the terminal shows:\n%s", code, s.output())
	}
	for name, want := range map[string]bool{"alpha": false, "beta": true, "gamma": true} {
		_, err := os.Stat(filepath.Join(b.proj, ".agents/skills", name, "SKILL.md"))
		if (err == nil) != want {
			t.Errorf("%s installed: %v, want %v", name, err == nil, want)
		}
	}
	if out := s.output(); !strings.Contains(out, "2 installed") {
		t.Errorf("no summary on the terminal:\n%s", out)
	}

	// Ctrl+c cancels: nothing is installed, exit 1.
	c := newInstallBox(t)
	testfs.Write(t, c.root, map[string]string{
		"src/alpha/SKILL.md": skillText("alpha", "a"),
		"src/beta/SKILL.md":  skillText("beta", "b"),
	})
	s = startOnTerminal(t, c.proj, append(c.vars, "TERM=xterm-256color"), "install", filepath.Join(c.root, "src"), "-i")
	s.waitFor(t, "beta")
	s.typeKeys(t, " \x03") // ctrl+c
	if code := s.wait(t); code != 1 {
		t.Errorf("ctrl+c: exit %d, want 1; the terminal shows:\n%s", code, s.output())
	}
	if _, err := os.Stat(filepath.Join(c.proj, ".agents")); err == nil {
		t.Error("a cancelled picker installed something")
	}
}
