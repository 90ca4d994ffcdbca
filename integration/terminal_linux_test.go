//go:build linux

package integration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ccski/ccski/internal/testfs"
)

// openPTY opens a pseudo-terminal of cols columns and returns its master
// and slave ends.
func openPTY(t *testing.T, cols uint16) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("open /dev/ptmx: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatalf("unlock pty: %v", err)
	}
	n, err := unix.IoctlGetUint32(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatalf("pty number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty slave: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 50, Col: cols}); err != nil {
		t.Fatalf("set pty size: %v", err)
	}
	return master, slave
}

// runOnTerminal runs the binary with stdout on a terminal of cols columns
// and returns what it wrote there, with the terminal's \r\n turned back
// into \n.
func runOnTerminal(t *testing.T, dir string, vars []string, cols uint16, args ...string) string {
	t.Helper()
	out, other, err := runWithTerminal(t, dir, vars, cols, false, args...)
	if err != nil {
		t.Fatalf("ccski %v: %v\nstderr:\n%s", args, err, other)
	}
	return strings.ReplaceAll(out, "\r\n", "\n")
}

// runWithTerminal runs the binary with stdout (or, with onStderr, stderr)
// on a terminal of cols columns and the other stream piped, and returns
// what it wrote on the terminal, what it wrote on the pipe and how it
// ended (an *exec.ExitError for a non-zero exit).
func runWithTerminal(t *testing.T, dir string, vars []string, cols uint16, onStderr bool, args ...string) (term, piped string, err error) {
	t.Helper()
	master, slave := openPTY(t, cols)
	cmd := exec.Command(binary, args...)
	var pipe bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, vars, slave, &pipe
	if onStderr {
		cmd.Stdout, cmd.Stderr = &pipe, slave
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds its own copy
	var out bytes.Buffer
	read := make(chan error, 1)
	go func() {
		_, err := io.Copy(&out, master)
		read <- err
	}()
	err = cmd.Wait()
	// Reading the master ends with EIO once every slave end is closed.
	if rerr := <-read; rerr != nil && !errors.Is(rerr, syscall.EIO) {
		t.Fatalf("reading the terminal: %v", rerr)
	}
	return out.String(), pipe.String(), err
}

// TestWrapsAtTerminalWidth checks that text is wrapped at the width of the
// terminal stdout is on, read from the terminal itself (shells do not
// export $COLUMNS), capped at 120 columns; and at $COLUMNS, else 80, when
// stdout is a pipe.
func TestWrapsAtTerminalWidth(t *testing.T) {
	registerSourcesOnce(t)
	root := t.TempDir()
	words := strings.Repeat("word ", 21) + "end" // 108 characters
	testfs.Write(t, root, map[string]string{
		"home/":                     "",
		"work/":                     "",
		"skills/long/SKILL.md":      "---\nname: long\ndescription: " + words + "\n---\nBody.\n",
		"skills/very-long/SKILL.md": "---\nname: very-long\ndescription: " + words + " " + words + "\n---\nBody.\n",
	})
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "work")
	args := []string{"list", "--user-dir", home, "--skill-dir", filepath.Join(root, "skills")}
	vars := func(columns string) []string {
		v := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "NO_COLOR=1",
			"TMPDIR=" + os.TempDir()}
		if columns != "" {
			v = append(v, "COLUMNS="+columns)
		}
		return v
	}
	// longest returns the length of the longest description line.
	longest := func(out string) int {
		n := 0
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "    word") {
				n = max(n, len(line))
			}
		}
		return n
	}
	cases := []struct {
		name    string
		cols    uint16 // 0: stdout is a pipe
		columns string
		want    int
	}{
		{"200-column terminal, no $COLUMNS", 200, "", 120},
		{"100-column terminal, no $COLUMNS", 100, "", 100},
		{"60-column terminal beats $COLUMNS", 60, "200", 60},
		{"pipe with $COLUMNS", 0, "100", 100},
		{"pipe without $COLUMNS", 0, "", 80},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out string
			if tc.cols == 0 {
				r := runBinary(t, ws, vars(tc.columns), args...)
				mustOK(t, r)
				out = r.stdout
			} else {
				out = runOnTerminal(t, ws, vars(tc.columns), tc.cols, args...)
			}
			// The 108-character description fills each line up to the
			// width: the longest line is within a word of it.
			if got := longest(out); got > tc.want || got < tc.want-5 {
				t.Errorf("longest description line is %d characters, want %d (at most 5 fewer)\n%s", got, tc.want, out)
			}
		})
	}
}
