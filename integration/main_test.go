// Package integration builds the ccski binary once and drives it as a user
// does, against a copy of the synthetic machine in testdata/machine (see
// package integration/machine).
package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/integration/machine"
)

// binary is the ccski built by TestMain.
var binary string

var (
	sourcesOnce sync.Once
	sourcesErr  error
)

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ccski-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "ccski")
	if runtime.GOOS == "windows" {
		binary += ".exe"
	}
	// ccski_hold lets a test hold a skill load in flight (mcp/hold_ccskihold.go).
	build := exec.Command("go", "build", "-tags", "ccski_hold", "-o", binary, "../cmd/ccski")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building ccski: %v\n", err)
		return 1
	}
	return m.Run()
}

// registerSources stats every Go source and module file below root, so
// the test cache records them as inputs of this test binary: the binary is
// built by a separate process, which the cache cannot see. It must run
// inside m.Run (file accesses are only logged there); newMachine, which
// every test calls, runs it once.
func registerSources(root string) error {
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum") {
			_, err = os.Stat(p)
		}
		return err
	})
}

// registerSourcesOnce runs registerSources the first time a test of this
// run calls it, and fails t if it failed.
func registerSourcesOnce(t *testing.T) {
	t.Helper()
	sourcesOnce.Do(func() { sourcesErr = registerSources("..") })
	if sourcesErr != nil {
		t.Fatal(sourcesErr)
	}
}

// newMachine returns a fresh copy of the synthetic machine.
func newMachine(t *testing.T) *machine.Machine {
	t.Helper()
	registerSourcesOnce(t)
	m, err := machine.Copy(filepath.Join("testdata", "machine"), filepath.Join(t.TempDir(), "machine"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// result is what one run of the binary gave.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("ccski %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// runOpts changes how the binary is run.
type runOpts struct {
	dir string            // working folder; default the workspace
	env map[string]string // extra variables
}

// env builds the environment from scratch, so that the developer's CCSKI_
// variables, XDG_CONFIG_HOME, CLAUDE_CONFIG_DIR and CODEX_HOME never leak
// in.
func env(m *machine.Machine, extra map[string]string) []string {
	vars := map[string]string{
		"HOME":    m.Home,
		"PATH":    os.Getenv("PATH"),
		"TZ":      "UTC",
		"LANG":    "C.UTF-8",
		"COLUMNS": "80",
		"TMPDIR":  os.TempDir(),
	}
	for k, v := range extra {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// ccski runs the binary with args in the machine's workspace.
func ccski(t *testing.T, m *machine.Machine, o runOpts, args ...string) result {
	t.Helper()
	dir := m.Workspace
	if o.dir != "" {
		dir = o.dir
	}
	return runBinary(t, dir, env(m, o.env), args...)
}

// runBinary runs the binary with args in dir, with the variables vars and
// no others, and fails t only if it could not be run.
func runBinary(t *testing.T, dir string, vars []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = vars
	return runCmd(t, cmd, args)
}

// runCmd runs cmd, a run of ccski with args, and returns what it printed
// and its exit code; it fails t only if cmd could not be run.
func runCmd(t *testing.T, cmd *exec.Cmd, args []string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running ccski %v: %v", args, err)
	}
	return r
}

// std returns args followed by the flags that point ccski at the machine:
// its user folder and its custom skill folder.
func std(m *machine.Machine, args ...string) []string {
	return append(args, "--user-dir", m.Home, "--skill-dir", m.SkillDirFlag())
}

// run runs ccski with std flags and no extra options.
func run(t *testing.T, m *machine.Machine, args ...string) result {
	t.Helper()
	return ccski(t, m, runOpts{}, std(m, args...)...)
}

// mustOK fails the test unless r exited 0.
func mustOK(t *testing.T, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("want exit 0\n%s", r)
	}
}

// decodeOnly decodes stdout as exactly one JSON value into v: anything
// after the value but white space is an error.
func decodeOnly(t *testing.T, r result, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	if err := dec.Decode(v); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		t.Fatalf("stdout holds more than one JSON value (%v)\n%s", err, r)
	}
}
