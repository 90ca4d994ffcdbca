package toggle

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// lineSwitcher keeps one "name off" line per skill turned off in its
// file, and takes it out again when the skill is turned on.
type lineSwitcher struct{ file string }

func (lineSwitcher) Modes() []string  { return []string{pipeline.ModeOff} }
func (lineSwitcher) Scopes() []string { return []string{"user"} }

func (l lineSwitcher) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	line := req.Record.Name + " off\n"
	changed, err := providers.EditFile(req.Files, l.file, func(d []byte) ([]byte, error) {
		s := strings.ReplaceAll(string(d), line, "")
		if req.Mode != pipeline.ModeOn {
			s += line
		}
		return []byte(s), nil
	})
	return []providers.Edit{{File: l.file, Scope: "user", Setting: "line", Changed: changed}}, err
}

func (l lineSwitcher) SetPlugin(providers.PluginRequest) ([]providers.Edit, error) { return nil, nil }

// TestTogglerLeavesNothingBehind: a host whose folder is missing gets no
// file from a disable that does not name it; enable removes a file ccski
// made once it holds nothing, and keeps a file the user had.
func TestTogglerLeavesNothingBehind(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/a/SKILL.md": "", "home/.here/": ""})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	a := &pipeline.Record{ID: "h:a", Name: "a", Agent: "h", Dir: abs("s/a"), File: abs("s/a/SKILL.md"),
		Hosts: []string{"here", "gone"}}
	snap := pipeline.NewSnapshot([]*pipeline.Record{a}, []*pipeline.Record{a}, nil, nil, nil)
	home := func(dir string) func(providers.Env) string {
		return func(providers.Env) string { return abs(dir) }
	}
	hosts := []providers.Host{
		{Name: "here", Title: "Here", Switcher: lineSwitcher{abs("home/.here/settings")}, Home: home("home/.here")},
		{Name: "gone", Title: "Gone", Switcher: lineSwitcher{abs("home/.gone/settings")}, Home: home("home/.gone")},
	}
	env := providers.Env{UserDir: abs("home"), Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return abs("state")
		}
		return ""
	}}
	run := func(req Request) *Plan {
		t.Helper()
		tg := New(env, snap, hosts)
		p := tg.Commit(func() { tg.Record(a, req) }, false)
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		return p
	}
	status := func(p *Plan) string {
		var out []string
		for _, r := range p.Results {
			out = append(out, r.Host+" "+string(r.Status))
		}
		return strings.Join(out, ", ")
	}

	p := run(Request{})
	if got := status(p); got != "here changed, gone skipped" || !strings.Contains(p.Results[1].Note, "not set up here") {
		t.Errorf("disable: %s (%+v)", got, p.Results)
	}
	if _, err := os.Stat(abs("home/.gone")); err == nil {
		t.Error("disable made the folder of a host that is not set up")
	}
	if got, _ := os.ReadFile(abs("home/.here/settings")); string(got) != "a off\n" {
		t.Errorf("settings: %q", got)
	}
	// Named, the host is written for all the same.
	if got := status(run(Request{Agents: []string{"gone"}})); got != "gone changed" {
		t.Errorf("disable --agent gone: %s", got)
	}

	p = run(Request{On: true})
	if got := status(p); got != "here changed, gone changed" {
		t.Errorf("enable: %s", got)
	}
	for _, f := range []string{"home/.here/settings", "home/.gone/settings"} {
		if _, err := os.Lstat(abs(f)); !os.IsNotExist(err) {
			t.Errorf("enable left %s, which ccski made: %v", f, err)
		}
	}

	// A file the user had stays, empty.
	if err := os.WriteFile(abs("home/.here/settings"), []byte("a off\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(Request{On: true})
	if got, err := os.ReadFile(abs("home/.here/settings")); err != nil || len(got) != 0 {
		t.Errorf("the user's file: %q, %v", got, err)
	}
}
