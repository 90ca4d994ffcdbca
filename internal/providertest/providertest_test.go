package providertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// recorder is a testing.TB that records failures instead of failing; a
// fatal failure ends the goroutine, as it does in a real test.
type recorder struct {
	testing.TB // the test's own, for TempDir
	msgs       []string
	fatal      bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Error(args ...any)         { r.msgs = append(r.msgs, fmt.Sprint(args...)) }
func (r *recorder) Errorf(f string, a ...any) { r.msgs = append(r.msgs, fmt.Sprintf(f, a...)) }
func (r *recorder) Fatal(args ...any)         { r.Error(args...); r.fatal = true; runtime.Goexit() }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.fatal = true; runtime.Goexit() }

// record runs f with a recorder and returns it once f has ended.
func record(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// fake is a provider that plans the given roots and diagnostics.
type fake struct {
	name   string
	plan   providers.Plan
	err    error
	gotEnv providers.Env
}

func (f *fake) Name() string { return f.name }

func (f *fake) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	f.gotEnv = env
	return f.plan, f.err
}

func factory(p providers.Provider, err error) providers.Factory {
	return func(any) (providers.Provider, error) { return p, err }
}

func TestVarsAndEnv(t *testing.T) {
	if got := Vars(nil)("HOME"); got != "" {
		t.Errorf("Vars(nil)(HOME) = %q, want empty", got)
	}
	env := Env("/u", map[string]string{"A": "1"}, "/r/a", "/r")
	if env.UserDir != filepath.FromSlash("/u") || env.Workspace != filepath.FromSlash("/r/a") {
		t.Errorf("Env = %+v", env)
	}
	if diff := cmp.Diff([]string{filepath.FromSlash("/r/a"), filepath.FromSlash("/r")}, env.WorkspaceDirs); diff != "" {
		t.Errorf("WorkspaceDirs (-want +got):\n%s", diff)
	}
	if env.Getenv("A") != "1" || env.Getenv("B") != "" {
		t.Errorf("Getenv reads more than its map")
	}
	if env := Env("/u", nil); env.Workspace != "" || env.WorkspaceDirs != nil {
		t.Errorf("Env without folders = %+v", env)
	}
}

func TestCheckNew(t *testing.T) {
	ok := &fake{name: "p"}
	bad := errors.New("providers.p: unknown key \"x\"")
	checked := false
	tests := []struct {
		name      string
		newFn     providers.Factory
		c         NewCase
		wantMsgs  []string
		wantFatal bool
	}{
		{name: "success", newFn: factory(ok, nil),
			c: NewCase{Check: func(testing.TB, providers.Provider) { checked = true }}},
		{name: "wrong name", newFn: factory(&fake{name: "q"}, nil),
			wantMsgs: []string{`Name() = "q", want p`}},
		{name: "unexpected error", newFn: factory(nil, bad),
			wantMsgs: []string{`New: providers.p: unknown key "x"`}, wantFatal: true},
		{name: "wanted error", newFn: factory(nil, bad), c: NewCase{WantErr: []string{"providers.p", `"x"`}}},
		{name: "error missing a substring", newFn: factory(nil, bad), c: NewCase{WantErr: []string{"providers.p", "did you mean"}},
			wantMsgs: []string{`error "providers.p: unknown key \"x\"" does not hold "did you mean"`}},
		{name: "no error", newFn: factory(ok, nil), c: NewCase{Options: map[string]any{"x": 1}, WantErr: []string{"x"}},
			wantMsgs: []string{"New(map[x:1]) succeeded, want an error"}, wantFatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := record(t, func(tb testing.TB) { checkNewCase(tb, tt.newFn, "p", tt.c) })
			if diff := cmp.Diff(tt.wantMsgs, r.msgs); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
			if r.fatal != tt.wantFatal {
				t.Errorf("fatal = %v, want %v", r.fatal, tt.wantFatal)
			}
		})
	}
	if !checked {
		t.Errorf("NewCase.Check was not called")
	}
	CheckNew(t, factory(ok, nil), "p", []NewCase{{Name: "as subtests"}})
}

func TestPlanHelpers(t *testing.T) {
	roots := []pipeline.Root{{Path: "/a", Agent: "p"}}
	diag := pipeline.Diagnostic{Code: "c"}
	p := &fake{name: "p", plan: providers.Plan{Roots: roots, Diagnostics: []pipeline.Diagnostic{diag}}}
	env := Env("/u", nil, "/w")

	r := record(t, func(tb testing.TB) {
		if got := Plan(tb, p, env); !cmp.Equal(got.Roots, roots) || len(got.Diagnostics) != 1 {
			t.Errorf("Plan = %+v", got)
		}
	})
	if len(r.msgs) != 0 || !cmp.Equal(p.gotEnv.WorkspaceDirs, env.WorkspaceDirs) {
		t.Errorf("Plan: failures %q, planned in %+v", r.msgs, p.gotEnv)
	}

	r = record(t, func(tb testing.TB) { CheckRoots(tb, roots, PlanRoots(tb, p, env)) })
	if len(r.msgs) != 1 || !strings.HasPrefix(r.msgs[0], "unexpected diagnostics") {
		t.Errorf("PlanRoots with a diagnostic: failures %q", r.msgs)
	}

	r = record(t, func(tb testing.TB) { CheckRoots(tb, roots, []pipeline.Root{{Path: "/a", Agent: "p", Depth: 1}}) })
	if len(r.msgs) != 1 || !strings.Contains(r.msgs[0], "roots mismatch (-want +got)") || !strings.Contains(r.msgs[0], "Depth") {
		t.Errorf("CheckRoots of different roots: failures %q", r.msgs)
	}

	r = record(t, func(tb testing.TB) { Plan(tb, &fake{err: errors.New("boom")}, env); tb.Errorf("not reached") })
	if diff := cmp.Diff([]string{"Plan: boom"}, r.msgs); diff != "" || !r.fatal {
		t.Errorf("Plan error (-want +got):\n%s", diff)
	}

	r = record(t, func(tb testing.TB) { MustNew(tb, factory(nil, errors.New("bad")), nil); tb.Errorf("not reached") })
	if diff := cmp.Diff([]string{"bad"}, r.msgs); diff != "" || !r.fatal {
		t.Errorf("MustNew error (-want +got):\n%s", diff)
	}
}

func TestTreeHelpers(t *testing.T) {
	src := t.TempDir()
	testfs.Write(t, src, map[string]string{"repo/sub/a.txt": "a", "home/": ""})
	base := CopyTree(t, src, "repo")
	if b, err := os.ReadFile(filepath.Join(base, "repo", "sub", "a.txt")); err != nil || string(b) != "a" {
		t.Errorf("copied file = %q, %v", b, err)
	}
	if st, err := os.Stat(filepath.Join(base, "repo", ".git")); err != nil || !st.IsDir() {
		t.Errorf("repo/.git is not a folder: %v", err)
	}
	if got := Rel(t, base, filepath.Join(base, "repo", "sub")); got != "repo/sub" {
		t.Errorf("Rel = %q, want repo/sub", got)
	}
	if got := InTree(func(b string) map[string]any { return map[string]any{"home": b} }, base); got["home"] != base {
		t.Errorf("InTree = %v, want home %s", got, base)
	}
	if got := InTree[map[string]string](nil, base); got != nil {
		t.Errorf("InTree(nil) = %v, want nil", got)
	}
}
