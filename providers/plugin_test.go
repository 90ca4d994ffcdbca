package providers

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
)

var testHome = HomeFolder{Provider: "alpha", Var: "ALPHA_HOME", Folder: ".alpha"}

// TestHomeFolder checks the one place a shared folder is worked out: the
// owner's option, else its variable, else the folder below the user
// folder, relative values taken from the workspace and "~" from the user
// folder; and that a reader takes the folder the owner set in the Env.
func TestHomeFolder(t *testing.T) {
	tests := []struct {
		name      string
		vars      map[string]string
		option    string
		nilGetenv bool
		want      string
	}{
		{name: "default", want: "/u/.alpha"},
		{name: "nil Getenv: default", nilGetenv: true, want: "/u/.alpha"},
		{name: "variable", vars: map[string]string{"ALPHA_HOME": "/a"}, want: "/a"},
		{name: "relative variable is taken from the workspace", vars: map[string]string{"ALPHA_HOME": "./x/../a"}, want: "/w/a"},
		{name: "tilde variable is taken from the user folder", vars: map[string]string{"ALPHA_HOME": "~/a"}, want: "/u/a"},
		{name: "bare tilde", vars: map[string]string{"ALPHA_HOME": "~"}, want: "/u"},
		{name: "option beats the variable", vars: map[string]string{"ALPHA_HOME": "/a"}, option: "/opt/", want: "/opt"},
		{name: "relative option", option: "alt", want: "/w/alt"},
		{name: "tilde option", option: "~/alt", want: "/u/alt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := Env{UserDir: filepath.FromSlash("/u"), Workspace: filepath.FromSlash("/w"),
				Getenv: func(k string) string { return tt.vars[k] }}
			if tt.nilGetenv {
				env.Getenv = nil
			}
			if got := testHome.Resolve(env, tt.option); got != filepath.FromSlash(tt.want) {
				t.Errorf("Resolve = %q, want %q", got, tt.want)
			}
			if tt.option == "" {
				if got := testHome.From(env); got != filepath.FromSlash(tt.want) {
					t.Errorf("From an Env without Homes = %q, want %q", got, tt.want)
				}
			}
			env.Homes = map[string]string{"alpha": "/set", "beta": "/other"}
			if got := testHome.From(env); got != "/set" {
				t.Errorf("From = %q, want what the owner set, /set", got)
			}
		})
	}
}

// TestWithHome checks that an owner's Plan can work in an Env with its
// own folder set, without changing the Env it was given.
func TestWithHome(t *testing.T) {
	orig := Env{Homes: map[string]string{"beta": "/b"}}
	got := orig.WithHome("alpha", "/a")
	if d := cmp.Diff(map[string]string{"alpha": "/a", "beta": "/b"}, got.Homes); d != "" {
		t.Errorf("WithHome (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]string{"beta": "/b"}, orig.Homes); d != "" {
		t.Errorf("WithHome changed the given Env (-want +got):\n%s", d)
	}
	if same := got.WithHome("alpha", "/a"); same.Homes["alpha"] != "/a" {
		t.Errorf("WithHome of the folder already set = %v", same.Homes)
	}
}

// plugin is a made-up provider that implements the optional interfaces it
// is given values for.
type plugin struct {
	name string
	home string
	rule *pipeline.Precedence
	host *Host
}

func (p *plugin) Name() string                            { return p.name }
func (p *plugin) Plan(context.Context, Env) (Plan, error) { return Plan{}, nil }

type homeOwner struct{ *plugin }

func (h homeOwner) Home(env Env) string { return filepath.Join(env.UserDir, h.home) }

type ranker struct{ *plugin }

func (r ranker) Rule() *pipeline.Precedence { return r.rule }

type hostOwner struct{ *plugin }

func (h hostOwner) Host() Host { return *h.host }

var (
	_ HomeOwner = homeOwner{}
	_ Ranker    = ranker{}
	_ HostOwner = hostOwner{}
)

// TestPrepare checks that Prepare collects what each provider gives the
// others through the optional interfaces, under its name, whatever else
// it implements, and leaves the given Env alone.
func TestPrepare(t *testing.T) {
	rule := personalFirst.Precedence("project")
	entries := []Entry{{Name: "alpha", Folders: []string{".alpha"}}, {Name: "beta"}, {Name: "gamma"}}
	ps := []Provider{
		homeOwner{&plugin{name: "alpha", home: ".alpha"}},
		ranker{&plugin{name: "beta", rule: rule}},
		&plugin{name: "gamma"},
	}
	in := NewEnv(filepath.FromSlash("/u"), t.TempDir(), func(string) string { return "" })
	env := Prepare(in, entries, ps)
	if d := cmp.Diff(map[string]string{"alpha": filepath.FromSlash("/u/.alpha")}, env.Homes); d != "" {
		t.Errorf("Homes (-want +got):\n%s", d)
	}
	if len(env.Rules) != 1 || env.Rules["beta"] != rule {
		t.Errorf("Rules = %v, want beta's rule only", env.Rules)
	}
	if d := cmp.Diff([]string{".alpha", ".beta", ".gamma"}, env.Claimed); d != "" {
		t.Errorf("Claimed (-want +got):\n%s", d)
	}
	if in.Homes != nil || in.Rules != nil || in.Claimed != nil {
		t.Errorf("Prepare changed the given Env: %+v", in)
	}
}

// TestBuildHosts checks that the hosts are those of the HostOwners, in
// order, each built from its defaults, and that an entry that cannot
// build is left out.
func TestBuildHosts(t *testing.T) {
	a, b := &Host{Name: "a", Title: "A"}, &Host{Name: "b", Title: "B"}
	entries := []Entry{
		{Name: "one", New: func(any) (Provider, error) { return hostOwner{&plugin{name: "one", host: b}}, nil }},
		{Name: "two", New: func(any) (Provider, error) { return &plugin{name: "two"}, nil }},
		{Name: "broken", New: func(any) (Provider, error) { return nil, errors.New("no") }},
		{Name: "three", New: func(o any) (Provider, error) {
			if o != nil {
				return nil, errors.New("built with options, not the defaults")
			}
			return hostOwner{&plugin{name: "three", host: a}}, nil
		}},
	}
	ps := Build(entries)
	if len(ps) != 3 {
		t.Fatalf("Build built %d providers, want 3", len(ps))
	}
	if got := HostNames(Hosts(ps)); !cmp.Equal([]string{"b", "a"}, got) {
		t.Errorf("host names = %q, want b, a", got)
	}
}
