package toggle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// fakeSwitcher appends a line per switch to one file, and fails for a
// skill named "broken" after writing.
type fakeSwitcher struct{ file string }

func (fakeSwitcher) Modes() []string  { return []string{pipeline.ModeOff, "dim"} }
func (fakeSwitcher) Scopes() []string { return []string{"user"} }

func (f fakeSwitcher) write(fs *providers.Files, line string) (bool, error) {
	return providers.EditFile(fs, f.file, func(d []byte) ([]byte, error) { return append(d, line+"\n"...), nil })
}

func (f fakeSwitcher) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	changed, err := f.write(req.Files, req.Record.Name+" "+req.Mode)
	if req.Record.Name == "broken" {
		return nil, errors.New("cannot")
	}
	return []providers.Edit{{File: f.file, Scope: "user", Setting: "x", Changed: changed}}, err
}

func (f fakeSwitcher) SetPlugin(req providers.PluginRequest) ([]providers.Edit, error) {
	changed, err := f.write(req.Files, req.Key+" plugin")
	return []providers.Edit{{File: f.file, Scope: "user", Setting: "p", Changed: changed}}, err
}

func TestToggler(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"s/a/SKILL.md":      "",
		"s/broken/SKILL.md": "",
		"s/loose/SKILL.md":  "",
		"s/both/SKILL.md":   "",
		"s/both/.SKILL.md":  "",
		"s/off/.SKILL.md":   "",
		"p/lint/SKILL.md":   "",
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	rec := func(id, name, dir string, hosts ...string) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: name, Agent: "h", Dir: abs(dir), File: abs(dir + "/SKILL.md"), Hosts: hosts}
	}
	a := rec("h:a", "a", "s/a", "h")
	broken := rec("h:broken", "broken", "s/broken", "h")
	loose := rec("x:loose", "loose", "s/loose")
	both := rec("x:both", "both", "s/both")
	off := rec("x:off", "off", "s/off")
	off.Disabled, off.File = true, abs("s/off/.SKILL.md")
	lint := rec("h:@p:lint", "p:lint", "p/lint")
	lint.Plugin = &pipeline.PluginInfo{Plugin: "p", Marketplace: "m"}
	cmd := &pipeline.Record{ID: "h:/p:fix", Name: "p:fix", Agent: "h", Type: pipeline.TypeCommand, Plugin: lint.Plugin}
	stray := rec("y:@q:s", "q:s", "p/lint")
	stray.Agent, stray.Plugin = "y", &pipeline.PluginInfo{Plugin: "q", Marketplace: "m"}
	all := []*pipeline.Record{a, broken, loose, both, off, lint, cmd, stray}
	snap := pipeline.NewSnapshot(all, all, nil, nil, nil)
	file := abs("settings")
	host := providers.Host{Name: "h", Title: "H", Switcher: fakeSwitcher{file: file}}

	tg := New(providers.Env{}, snap, []providers.Host{host})
	plan := func() {
		tg.Record(a, Request{Mode: "dim"})
		tg.Record(broken, Request{})
		tg.Record(a, Request{Agents: []string{"other"}})
		tg.Record(loose, Request{})
		tg.Record(both, Request{})
		tg.Record(off, Request{On: true})
		tg.Record(lint, Request{})
		tg.Record(lint, Request{Mode: "dim"})
		tg.Record(stray, Request{})
		tg.Record(a, Request{Mode: "loud"})
	}
	p := tg.Commit(plan, true)
	var got []string
	for _, r := range p.Results {
		got = append(got, strings.Join([]string{r.Skill, r.Host, string(r.Status), r.Mode, r.Error}, "|"))
	}
	want := []string{
		"h:a|h|changed|dim|",
		"h:broken|h|failed|off|cannot",
		"h:a|other|skipped||",
		"x:loose||changed|off|",
		"x:both||failed|off|both SKILL.md and .SKILL.md exist; remove the one you do not want, then run again",
		"x:off||changed|on|",
		"h:@p:lint|h|changed|off|",
		"h:@p:lint|h|failed||h:@p:lint is a skill of the plugin p@m, and plugins are only on or off: use --mode off",
		"y:@q:s||failed||y:@q:s is a skill of the plugin q@m, which no agent ccski can switch reads; ccski never renames files inside a plugin",
		"h:a|h|failed|loud|H's switch has no loud mode; use off or dim",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
	if note := p.Results[6].Note; !strings.Contains(note, "plugin p@m off") || !strings.Contains(note, "1 command(s): p:fix") {
		t.Errorf("plugin note: %q", note)
	}
	// The failed switch's write was rolled back.
	files := p.Files()
	if len(files) != 1 || string(files[0].New) != "a dim\np@m plugin\n" {
		t.Fatalf("files: %+v", files)
	}
	// The diff names the file from base, where it is new.
	if d := p.Diffs(base); len(d) != 1 || !strings.HasPrefix(d[0].Diff, "--- /dev/null\n+++ b/settings\n@@ -0,0 +1,2 @@\n") ||
		!strings.Contains(d[0].Diff, "\n+a dim\n") {
		t.Errorf("diffs: %+v", d)
	}
	for _, f := range []string{"s/loose/.SKILL.md", "s/off/SKILL.md", "settings"} {
		if _, err := os.Stat(abs(f)); err == nil {
			t.Errorf("a dry run made %s", f)
		}
	}
	p = tg.Commit(plan, false)
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var again []string
	for _, r := range p.Results {
		again = append(again, strings.Join([]string{r.Skill, r.Host, string(r.Status), r.Mode, r.Error}, "|"))
	}
	if d := cmp.Diff(want, again); d != "" {
		t.Errorf("results written (-want +got):\n%s", d)
	}
	for _, f := range []string{"s/loose/.SKILL.md", "s/off/SKILL.md", "settings"} {
		if _, err := os.Stat(abs(f)); err != nil {
			t.Errorf("after Commit: %v", err)
		}
	}
	if got, _ := os.ReadFile(file); string(got) != "a dim\np@m plugin\n" {
		t.Errorf("settings: %q", got)
	}
}

// TestProfileFallback: a profile records which skills are hidden by
// .SKILL.md, and use renames exactly where the state differs: a skill the
// profile has as .SKILL.md is not renamed back when its host switch is
// turned on, and one it has as SKILL.md comes back.
func TestProfileFallback(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"s/hidden/.SKILL.md": "",
		"s/loose/SKILL.md":   "",
		"s/plain/SKILL.md":   "",
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	rec := func(id, dir, file string, disabled bool, hosts ...string) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: filepath.Base(dir), Agent: "h", Dir: abs(dir), File: abs(dir + "/" + file),
			Disabled: disabled, Hosts: hosts}
	}
	host := providers.Host{Name: "h", Title: "H", Switcher: fakeSwitcher{file: abs("settings")}}
	// Saved: hidden is .SKILL.md (and on for h), loose (no host) and plain
	// are SKILL.md.
	saved := []*pipeline.Record{
		rec("h:hidden", "s/hidden", ".SKILL.md", true, "h"),
		rec("x:loose", "s/loose", "SKILL.md", false),
		rec("h:plain", "s/plain", "SKILL.md", false, "h"),
	}
	p := New(providers.Env{}, pipeline.NewSnapshot(saved, saved, nil, nil, nil), []providers.Host{host}).Capture("p", []string{"h"})
	want := []FallbackState{{ID: "h:hidden", Dir: abs("s/hidden"), Off: true}, {ID: "h:plain", Dir: abs("s/plain")},
		{ID: "x:loose", Dir: abs("s/loose")}}
	if d := cmp.Diff(want, p.Fallback); d != "" {
		t.Fatalf("fallback (-want +got):\n%s", d)
	}

	// Now: hidden is also off for h, and loose was renamed .SKILL.md.
	testfs.Write(t, base, map[string]string{"s/loose/.SKILL.md": ""})
	os.Remove(abs("s/loose/SKILL.md"))
	hidden := rec("h:hidden", "s/hidden", ".SKILL.md", true, "h")
	hidden.Off = []pipeline.HostSwitch{{Host: "h", Mode: pipeline.ModeOff}}
	now := []*pipeline.Record{hidden, rec("x:loose", "s/loose", ".SKILL.md", true), rec("h:plain", "s/plain", "SKILL.md", false, "h")}
	tg := New(providers.Env{}, pipeline.NewSnapshot(now, now, nil, nil, nil), []providers.Host{host})
	plan := tg.Commit(func() { tg.Use(p, "") }, true)
	wantRenames := []Rename{{From: abs("s/loose/.SKILL.md"), To: abs("s/loose/SKILL.md")}}
	if d := cmp.Diff(wantRenames, plan.Renames); d != "" {
		t.Errorf("renames (-want +got):\n%s", d)
	}
	if files := plan.Files(); len(files) != 1 || string(files[0].New) != "hidden on\n" {
		t.Errorf("host switches: %+v", files)
	}
}

// TestAdmitRefuses: under an Admit that refuses (the organisation's
// policy), profile use turns nothing on, neither a host switch nor a
// .SKILL.md rename, enable fails naming why, and turning off is not asked
// about.
func TestAdmitRefuses(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/hidden/.SKILL.md": "", "s/loose/.SKILL.md": "", "s/plain/SKILL.md": ""})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	rec := func(id, dir, file string, disabled bool, hosts ...string) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: filepath.Base(dir), Agent: "h", Dir: abs(dir), File: abs(dir + "/" + file),
			Disabled: disabled, Hosts: hosts}
	}
	host := providers.Host{Name: "h", Title: "H", Switcher: fakeSwitcher{file: abs("settings")}}
	hidden := rec("h:hidden", "s/hidden", ".SKILL.md", true, "h")
	hidden.Off = []pipeline.HostSwitch{{Host: "h", Mode: pipeline.ModeOff}}
	now := []*pipeline.Record{hidden, rec("x:loose", "s/loose", ".SKILL.md", true), rec("h:plain", "s/plain", "SKILL.md", false, "h")}
	p := &Profile{Name: "p", Hosts: map[string]*HostProfile{"h": {Skills: []SkillState{{ID: "h:hidden", File: abs("s/hidden/.SKILL.md"), Mode: pipeline.ModeOn}}}},
		Fallback: []FallbackState{{ID: "x:loose", Dir: abs("s/loose")}}}
	tg := New(providers.Env{}, pipeline.NewSnapshot(now, now, nil, nil, nil), []providers.Host{host})
	var asked []string
	tg.Admit = func(r *pipeline.Record) error {
		asked = append(asked, r.ID)
		return errors.New("policy.blocked_skills (managed config x) blocks " + r.Name)
	}
	plan := tg.Commit(func() { tg.Use(p, "") }, true)
	if len(plan.Renames) != 0 || len(plan.Files()) != 0 {
		t.Errorf("profile use under a refusing policy changed something: renames %+v, files %+v", plan.Renames, plan.Files())
	}
	var failed []string
	for _, r := range plan.Results {
		if r.Status == Failed && strings.Contains(r.Error, "policy.blocked_skills") {
			failed = append(failed, r.Skill)
		}
	}
	if d := cmp.Diff([]string{"h:hidden", "x:loose"}, failed); d != "" {
		t.Errorf("failed results (-want +got):\n%s\n%+v", d, plan.Results)
	}
	asked = nil
	plan = tg.Commit(func() { tg.Skill("plain", Request{}) }, true)
	if len(asked) != 0 || plan.Count(Failed) != 0 {
		t.Errorf("turning off asked %v and gave %+v", asked, plan.Results)
	}
	plan = tg.Commit(func() { tg.Skill("plain", Request{On: true}) }, true)
	if plan.Count(Failed) != 1 || !strings.Contains(plan.Results[0].Error, "blocks plain") {
		t.Errorf("enable under a refusing policy: %+v", plan.Results)
	}
}

// meddler is a switcher whose file another program rewrites while ccski
// edits it.
type meddler struct{ file string }

func (meddler) Modes() []string  { return []string{pipeline.ModeOff} }
func (meddler) Scopes() []string { return []string{"user"} }

func (m meddler) SetSkill(req providers.SkillRequest) ([]providers.Edit, error) {
	changed, err := providers.EditFile(req.Files, m.file, func(d []byte) ([]byte, error) { return append(d, "off\n"...), nil })
	if d, rerr := os.ReadFile(m.file); rerr == nil {
		os.WriteFile(m.file, append(d, "theirs\n"...), 0o644)
	}
	return []providers.Edit{{File: m.file, Scope: "user", Setting: "x", Changed: changed}}, err
}

func (meddler) SetPlugin(providers.PluginRequest) ([]providers.Edit, error) { return nil, nil }

// TestCommitFailedWriteIsFailed: a settings file that cannot be written
// makes the switches that needed it failures naming the file and why, and
// the renames of the same command are not made but failed too.
func TestCommitFailedWriteIsFailed(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/a/SKILL.md": "", "s/loose/SKILL.md": "", "settings": "mine\n"})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	a := &pipeline.Record{ID: "h:a", Name: "a", Agent: "h", Dir: abs("s/a"), File: abs("s/a/SKILL.md"), Hosts: []string{"h"}}
	loose := &pipeline.Record{ID: "x:loose", Name: "loose", Agent: "x", Dir: abs("s/loose"), File: abs("s/loose/SKILL.md")}
	all := []*pipeline.Record{a, loose}
	host := providers.Host{Name: "h", Title: "H", Switcher: meddler{file: abs("settings")}}
	tg := New(providers.Env{}, pipeline.NewSnapshot(all, all, nil, nil, nil), []providers.Host{host})
	p := tg.Commit(func() {
		tg.Record(a, Request{})
		tg.Record(loose, Request{})
	}, false)
	var ce *providers.ChangedError
	if !errors.As(p.Err, &ce) || ce.File != abs("settings") {
		t.Fatalf("Err = %v, want a ChangedError naming the settings", p.Err)
	}
	if len(p.Results) != 2 || p.Count(Failed) != 2 || p.Count(Changed) != 0 {
		t.Fatalf("results: %+v", p.Results)
	}
	if msg := p.Results[0].Error; !strings.Contains(msg, abs("settings")) || !strings.Contains(msg, "changed while ccski was editing it") {
		t.Errorf("the switch's error: %s", msg)
	}
	if msg := p.Results[1].Error; !strings.HasPrefix(msg, "not renamed, because the settings files could not all be written") {
		t.Errorf("the rename's error: %s", msg)
	}
	if _, err := os.Stat(abs("s/loose/SKILL.md")); err != nil {
		t.Errorf("the rename was made: %v", err)
	}
	if got, _ := os.ReadFile(abs("settings")); string(got) != "mine\ntheirs\ntheirs\n" {
		t.Errorf("settings: %q, want the other program's", got)
	}
}

// TestAdmitEveryWayOn: Admit is asked about every way a skill becomes
// loadable, not only enable: disable --mode to a mode a host still loads,
// turning on a plugin skill (about each of its sibling skills, which come
// on with it), and a profile's plugins: entries (about the skills of a
// plugin that is off, by name, as they were never discovered).
func TestAdmitEveryWayOn(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"s/plain/.SKILL.md": "", "p/lint/SKILL.md": "", "p/evil/SKILL.md": ""})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	rec := func(id, dir, file string, disabled bool) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: filepath.Base(dir), Agent: "h", Dir: abs(dir), File: abs(dir + "/" + file),
			Disabled: disabled, Hosts: []string{"h"}}
	}
	host := providers.Host{Name: "h", Title: "H", Switcher: fakeSwitcher{file: abs("settings")}}
	plain := rec("h:plain", "s/plain", ".SKILL.md", true)
	plain.Off = []pipeline.HostSwitch{{Host: "h", Mode: pipeline.ModeOff}}
	lint, evil := rec("h:lint", "p/lint", "SKILL.md", false), rec("h:evil", "p/evil", "SKILL.md", false)
	for _, r := range []*pipeline.Record{lint, evil} {
		r.Plugin = &pipeline.PluginInfo{Plugin: "p", Marketplace: "m"}
		r.Off = []pipeline.HostSwitch{{Host: "h", Mode: pipeline.ModeOff}}
	}
	now := []*pipeline.Record{plain, lint, evil}
	snap := pipeline.NewSnapshot(now, now, nil, nil, nil)
	snap.Disabled = []pipeline.DisabledPlugin{{Provider: "h", Plugin: "q", Marketplace: "m", Skills: []string{"evil-too"}}}
	tg := New(providers.Env{}, snap, []providers.Host{host})
	tg.Admit = func(r *pipeline.Record) error {
		if r.Name == "plain" || strings.HasPrefix(r.Name, "evil") {
			return errors.New("policy.blocked_skills (managed config x) blocks " + r.Name)
		}
		return nil
	}
	refused := func(plan *Plan, want string) {
		t.Helper()
		if len(plan.Files()) != 0 || len(plan.Renames) != 0 {
			t.Errorf("a refused skill was turned on: files %v, renames %v", plan.Files(), plan.Renames)
		}
		for _, r := range plan.Results {
			if r.Status == Failed && strings.Contains(r.Error, want) {
				return
			}
		}
		t.Errorf("no failure saying %q: %+v", want, plan.Results)
	}
	refused(tg.Commit(func() { tg.Skill("plain", Request{Mode: "dim"}) }, true), "blocks plain")
	refused(tg.Commit(func() { tg.Skill("lint", Request{On: true}) }, true), "the plugin p@m holds the skill h:evil")
	p := &Profile{Name: "p", Hosts: map[string]*HostProfile{"h": {Plugins: map[string]bool{"q@m": true}}}}
	refused(tg.Commit(func() { tg.Use(p, "") }, true), "the plugin q@m holds the skill evil-too")
	p = &Profile{Name: "p", Hosts: map[string]*HostProfile{"h": {Skills: []SkillState{{ID: "h:plain", File: plain.File, Mode: "dim"}}}}}
	refused(tg.Commit(func() { tg.Use(p, "") }, true), "blocks plain")
}
