//go:build linux

package integration

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// runStderrOnTerminal runs the binary with stderr on a terminal and
// stdout piped, and returns what it wrote on the terminal and its exit
// code.
func runStderrOnTerminal(t *testing.T, dir string, vars []string, args ...string) (string, int) {
	t.Helper()
	out, _, err := runWithTerminal(t, dir, vars, 100, true, args...)
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("ccski %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out, code
}

// TestProgressOnTerminalOnly checks that the long operations draw their
// progress on a terminal (stderr), and that the same runs with stderr
// piped, as a script or CI has it, print no progress at all: not one
// carriage return, not one progress line.
func TestProgressOnTerminalOnly(t *testing.T) {
	b := newInstallBox(t)
	files := map[string]string{}
	for i := range 30 {
		name := fmt.Sprintf("skill-%02d", i)
		files["src/"+name+"/SKILL.md"] = "---\nname: " + name + "\ndescription: Skill " + name + " for the progress test.\n---\nBody.\n"
	}
	testfs.Write(t, b.root, files)
	src := filepath.Join(b.root, "src")

	for _, tc := range []struct {
		args []string
		what string
	}{
		{[]string{"scan", src}, "ccski: scanning 30/30"},
		{[]string{"install", src, "--all"}, "ccski: installing 30/30"},
		{[]string{"update"}, "ccski: updating 30/30"},
	} {
		onTerm, code := runStderrOnTerminal(t, b.proj, b.vars, tc.args...)
		if code != 0 || !strings.Contains(onTerm, tc.what) || !strings.Contains(onTerm, "\r") {
			t.Errorf("ccski %s on a terminal: exit %d, want %q on stderr, drawn with \\r:\n%q", strings.Join(tc.args, " "), code, tc.what, onTerm)
		}
	}
	mustOK(t, b.run(t, "remove", "skill-00"))

	for _, args := range [][]string{{"scan", src}, {"install", src, "--all"}, {"update"}, {"install"}} {
		r := b.run(t, args...)
		if r.code != 0 {
			t.Fatalf("want exit 0\n%s", r)
		}
		if strings.Contains(r.stderr+r.stdout, "\r") || strings.Contains(r.stderr, "ccski: scanning") ||
			strings.Contains(r.stderr, "ccski: installing") || strings.Contains(r.stderr, "ccski: updating") {
			t.Errorf("ccski %s piped prints progress:\nstdout %q\nstderr %q", strings.Join(args, " "), r.stdout, r.stderr)
		}
	}
}
