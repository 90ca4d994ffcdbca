package all

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ccski/ccski/providers"
)

// TestInstallFolders checks what install relies on: the shared folder
// comes first and is the only one, every folder belongs to a registered
// agent label once, a plain install includes the shared folder, and each
// folder is the one its provider reads (a skill installed there is found).
func TestInstallFolders(t *testing.T) {
	labels := map[string]bool{}
	for _, e := range Registry() {
		for _, l := range e.Labels {
			labels[l.Name] = true
		}
	}
	folders := InstallFolders()
	if len(folders) == 0 || !folders[0].Shared || !folders[0].Default {
		t.Fatalf("the first install folder must be the shared one, installed by default: %+v", folders)
	}
	var seen []string
	env := providers.Env{UserDir: "/home/u"}
	for i, f := range folders {
		if !labels[f.Agent] {
			t.Errorf("install folder %q names no registered agent label", f.Agent)
		}
		if slices.Contains(seen, f.Agent) {
			t.Errorf("agent %q has two install folders", f.Agent)
		}
		seen = append(seen, f.Agent)
		if i > 0 && f.Shared {
			t.Errorf("%q is a second shared folder", f.Agent)
		}
		if f.Project == "" || filepath.IsAbs(f.Project) || f.User == nil || !filepath.IsAbs(f.User(env)) {
			t.Errorf("%q: project folder %q must be relative and the user folder absolute", f.Agent, f.Project)
		}
	}

	// Every folder, at both scopes, is a root some provider plans, with
	// the agent's label (or, for the shared folder, read by it).
	base := t.TempDir()
	ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
	penv := providers.NewEnv(home, ws, func(string) string { return "" })
	planned := map[string]bool{}
	for _, e := range Registry() {
		p, err := e.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := p.Plan(context.Background(), penv)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range plan.Roots {
			planned[filepath.Clean(r.Path)] = true
		}
	}
	for _, f := range folders {
		for _, dir := range []string{f.Dir(penv, "project", ws), f.Dir(penv, "user", ws)} {
			if !planned[dir] {
				t.Errorf("install folder %s of %q is no root any provider plans: ccski would not find what it installs", dir, f.Agent)
			}
		}
	}
}
