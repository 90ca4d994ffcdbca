// Package providertest holds the checks that every provider's tests make
// the same way: building a provider from its decoded options (and, where
// New can fail, failing), planning it in a made-up Env, comparing the planned roots, and
// laying out a testdata tree to plan and scan over.
//
// The helpers fail the test they are given; a failure that leaves nothing
// to check afterwards (New or Plan failing) fails it at once.
package providertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Vars returns a Getenv that reads only m (nil reads nothing), so that a
// test never depends on the process environment.
func Vars(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// Env returns the Env of a plan test: UserDir is userDir, WorkspaceDirs is
// dirs (nearest first) and Workspace the first of them ("" when there are
// none), as providers.NewEnv would set them, and Getenv reads only vars.
// Paths may be given slash-separated; they are converted with
// filepath.FromSlash.
func Env(userDir string, vars map[string]string, dirs ...string) providers.Env {
	env := providers.Env{UserDir: filepath.FromSlash(userDir), Getenv: Vars(vars)}
	for _, d := range dirs {
		env.WorkspaceDirs = append(env.WorkspaceDirs, filepath.FromSlash(d))
	}
	if len(env.WorkspaceDirs) > 0 {
		env.Workspace = env.WorkspaceDirs[0]
	}
	return env
}

// NewCase is one row of a provider's TestNew table.
type NewCase struct {
	Name string
	// Options are the options New takes: the provider's *Options as
	// package configs decodes them, or nil for the defaults.
	Options any
	// WantErr lists substrings the error of New must hold; nil means New
	// must succeed.
	WantErr []string
	// Check, when set, makes further checks on the provider New built.
	Check func(tb testing.TB, p providers.Provider)
}

// CheckNew runs each case as a subtest of t: newFn(c.Options) must either
// succeed with a provider whose Name is name (and pass c.Check), or, when
// c.WantErr is set, fail with an error holding every string of c.WantErr.
func CheckNew(t *testing.T, newFn providers.Factory, name string, cases []NewCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) { checkNewCase(t, newFn, name, c) })
	}
}

func checkNewCase(tb testing.TB, newFn providers.Factory, name string, c NewCase) {
	tb.Helper()
	p, err := newFn(c.Options)
	if c.WantErr != nil {
		if err == nil {
			tb.Fatalf("New(%v) succeeded, want an error", c.Options)
		}
		CheckError(tb, err, c.WantErr...)
		return
	}
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	if p.Name() != name {
		tb.Errorf("Name() = %q, want %s", p.Name(), name)
	}
	if c.Check != nil {
		c.Check(tb, p)
	}
}

// CheckError reports each string of want that the non-nil err does not
// hold.
func CheckError(tb testing.TB, err error, want ...string) {
	tb.Helper()
	for _, s := range want {
		if !strings.Contains(err.Error(), s) {
			tb.Errorf("error %q does not hold %q", err, s)
		}
	}
}

// MustNew builds a provider with newFn; an error fails the test at once.
func MustNew(tb testing.TB, newFn providers.Factory, options any) providers.Provider {
	tb.Helper()
	p, err := newFn(options)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// Plan plans p in env with a background context; an error fails the test
// at once.
func Plan(tb testing.TB, p providers.Provider, env providers.Env) providers.Plan {
	tb.Helper()
	plan, err := p.Plan(context.Background(), env)
	if err != nil {
		tb.Fatalf("Plan: %v", err)
	}
	return plan
}

// PlanRoots is Plan for a plan that must hold no diagnostics: it reports
// any, and returns the roots.
func PlanRoots(tb testing.TB, p providers.Provider, env providers.Env) []pipeline.Root {
	tb.Helper()
	plan := Plan(tb, p, env)
	if len(plan.Diagnostics) != 0 {
		tb.Errorf("unexpected diagnostics: %v", plan.Diagnostics)
	}
	return plan.Roots
}

// CheckRoots compares every field of the planned roots with want, in
// order, and reports the difference.
func CheckRoots(tb testing.TB, want, got []pipeline.Root) {
	tb.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		tb.Errorf("roots mismatch (-want +got):\n%s", diff)
	}
}

// CopyTree copies the folder src (such as "testdata/tree") into a new
// temporary folder and returns that folder. Each of repos (slash-separated,
// relative to the copy) is made a repository root by creating a .git
// folder in it, which testdata cannot hold. An error fails the test at
// once.
func CopyTree(tb testing.TB, src string, repos ...string) string {
	tb.Helper()
	base := tb.TempDir()
	if err := os.CopyFS(base, os.DirFS(src)); err != nil {
		tb.Fatal(err)
	}
	for _, r := range repos {
		if err := os.Mkdir(filepath.Join(base, filepath.FromSlash(r), ".git"), 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	return base
}

// InTree returns f(base), or the zero value when f is nil. A test over a
// copied tree gives a provider's options or environment variables as
// functions of the copy's folder, and most cases leave some out.
func InTree[T any](f func(base string) T, base string) T {
	if f == nil {
		var zero T
		return zero
	}
	return f(base)
}

// Rel returns path relative to base, slash-separated, so that a test can
// compare paths under a temporary folder; an error fails the test at once.
func Rel(tb testing.TB, base, path string) string {
	tb.Helper()
	r, err := filepath.Rel(base, path)
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.ToSlash(r)
}
