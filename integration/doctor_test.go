package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// hostsMachine lays out, in a temporary folder, a machine with Claude
// Code and Codex installed (their folders exist) and what each leaves
// out: a skill nested in a group folder of .claude/skills (Claude Code
// skips it; Codex loads its nested skill in .agents/skills), a Claude
// skill switched off in settings.json, a plugin whose manifest Claude Code
// refuses, a plugin the settings enable that nobody installed, a disabled
// plugin, a broken link, and a Codex skill its agents/openai.yaml keeps
// out of the model's listing. It returns the variables to run ccski with,
// the repository folder and the base.
func hostsMachine(t *testing.T) (vars []string, repo, base string) {
	t.Helper()
	registerSourcesOnce(t)
	base = testfs.TempDir(t)
	cache := "home/.claude/plugins/cache/mk"
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: Does " + name + " when asked.\n---\n# " + name + "\n"
	}
	testfs.Write(t, base, map[string]string{
		"home/.codex/":                                  "",
		"home/.claude/skills/flat/SKILL.md":             skill("flat"),
		"home/.claude/skills/quiet/SKILL.md":            skill("quiet"),
		"home/.claude/skills/group/nested/SKILL.md":     skill("nested"),
		"home/.claude/skills/gone":                      "-> ../../nowhere",
		"repo/.git/":                                    "",
		"repo/.agents/skills/group/beta/SKILL.md":       skill("beta"),
		"repo/.agents/skills/deploy/SKILL.md":           skill("deploy"),
		"repo/.agents/skills/deploy/agents/openai.yaml": "policy:\n  allow_implicit_invocation: false\n",
		cache + "/good/1/.claude-plugin/plugin.json":    `{"name": "good", "agents": ["./agents/a.md"]}`,
		cache + "/good/1/skills/good-skill/SKILL.md":    skill("good-skill"),
		cache + "/bad/1/.claude-plugin/plugin.json":     `{"name": "bad", "agents": ["./agents/a"]}`,
		cache + "/bad/1/skills/bad-one/SKILL.md":        skill("bad-one"),
		cache + "/bad/1/skills/bad-two/SKILL.md":        skill("bad-two"),
		cache + "/off/1/skills/off-skill/SKILL.md":      skill("off-skill"),
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	entry := func(p string) []map[string]any {
		return []map[string]any{{"scope": "user", "installPath": abs(cache + "/" + p + "/1"), "version": "1"}}
	}
	installed, _ := json.Marshal(map[string]any{"version": 2, "plugins": map[string]any{
		"good@mk": entry("good"), "bad@mk": entry("bad"), "off@mk": entry("off")}})
	settings, _ := json.Marshal(map[string]any{
		"enabledPlugins": map[string]any{"good@mk": true, "bad@mk": true, "off@mk": false, "ghost@mk": true},
		"skillOverrides": map[string]any{"quiet": "off"}})
	testfs.Write(t, base, map[string]string{
		"home/.claude/plugins/installed_plugins.json": string(installed),
		"home/.claude/settings.json":                  string(settings),
	})
	home := abs("home")
	return []string{"HOME=" + home, "PATH=/nonexistent", "TZ=UTC", "LANG=C.UTF-8", "COLUMNS=80"}, abs("repo"), base
}

type doctorJSON struct {
	Hosts []struct {
		Host      string          `json:"host"`
		Installed bool            `json:"installed"`
		Detected  string          `json:"detected"`
		Loads     []verdictJSON   `json:"loads"`
		NotLoaded []verdictJSON   `json:"notLoaded"`
		Listing   json.RawMessage `json:"listing"`
	} `json:"hosts"`
	Absent []string `json:"absent"`
	Broken int      `json:"broken"`
}

type verdictJSON struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Skills  []string `json:"skills"`
	Code    string   `json:"code"`
	Detail  string   `json:"detail"`
	Setting string   `json:"setting"`
	Managed string   `json:"managed"`
	Problem bool     `json:"problem"`
}

// TestDoctor checks, through the binary, each host's verdict on each
// case of hostsMachine, the hosts found and not found, and exit 1 for the
// problems the user owns.
func TestDoctor(t *testing.T) {
	vars, repo, base := hostsMachine(t)
	r := runBinary(t, repo, vars, "doctor", "--json")
	if r.code != 1 {
		t.Fatalf("want exit 1: the nested skill, the missing plugin and the link are the user's\n%s", r)
	}
	if !strings.Contains(r.stderr, "skills will not load: 3 problems in your own skills") {
		t.Errorf("stderr does not count 3 problems\n%s", r)
	}
	var res doctorJSON
	decodeOnly(t, r, &res)
	if res.Broken != 3 || strings.Join(res.Absent, ",") != "Gemini CLI,GitHub Copilot,Cursor" {
		t.Errorf("broken %d, absent %v", res.Broken, res.Absent)
	}
	got := map[string]map[string]verdictJSON{}
	for _, h := range res.Hosts {
		if !h.Installed || !strings.HasSuffix(h.Detected, " exists") {
			t.Errorf("%s: installed %v, detected %q", h.Host, h.Installed, h.Detected)
		}
		got[h.Host] = map[string]verdictJSON{}
		for _, v := range append(h.Loads, h.NotLoaded...) {
			key := v.Name
			if key == "" {
				key = v.ID
			}
			got[h.Host][key] = v
		}
	}
	settings := filepath.Join(base, "home", ".claude", "settings.json")
	want := []struct {
		host, name, code string
		problem          bool
	}{
		{"claude", "flat", "loads", false},
		{"claude", "nested", "nested", true},
		{"claude", "quiet", "switched-off", false},
		{"claude", "good:good-skill", "loads", false},
		{"claude", "bad@mk", "manifest-rejected", true},
		{"claude", "ghost@mk", "plugin-not-installed", true},
		{"claude", "off@mk", "plugin-disabled", false},
		{"claude", "gone", "link-broken", true},
		{"codex", "beta", "loads", false},
		{"codex", "deploy", "explicit-only", false},
	}
	for _, w := range want {
		v, ok := got[w.host][w.name]
		if !ok {
			t.Errorf("%s: no verdict on %s; have %v", w.host, w.name, got[w.host])
			continue
		}
		if v.Code != w.code || v.Problem != w.problem {
			t.Errorf("%s on %s: code %q problem %v, want %q %v (%s)", w.host, w.name, v.Code, v.Problem, w.code, w.problem, v.Detail)
		}
	}
	if v := got["claude"]["quiet"]; v.Setting != settings || !strings.Contains(v.Detail, "skillOverrides") {
		t.Errorf("the switch does not name its file and setting: %+v", v)
	}
	if v := got["claude"]["bad@mk"]; v.Managed == "" || strings.Join(v.Skills, ",") != "bad-one,bad-two" ||
		!strings.Contains(v.Detail, `agents.0: Invalid string: must end with ".md"`) {
		t.Errorf("the refused plugin: %+v", v)
	}
	if _, ok := got["claude"]["beta"]; ok {
		t.Errorf("Claude Code does not read .agents/skills, yet has a verdict on beta")
	}
	if _, ok := got["codex"]["nested"]; ok {
		t.Errorf("Codex does not read .claude/skills, yet has a verdict on nested")
	}

	// The text says the same, with the reasons.
	r = runBinary(t, repo, vars, "doctor", "--no-color")
	if r.code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	for _, s := range []string{"Claude Code: ", "claude:nested  [nested]", "bad@mk  [manifest-rejected]",
		"ghost@mk  [plugin-not-installed]", "claude:quiet  [switched-off]", "agents:deploy  [explicit-only]",
		"Not found on this machine: Gemini CLI, GitHub Copilot, Cursor"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("doctor lacks %q\n%s", s, r)
		}
	}
}

// TestDoctorManagedOnly checks that what lies in a folder an agent
// manages (a refused plugin in Claude Code's plugin cache) is reported,
// and exits 0: the user fixes it upstream.
func TestDoctorManagedOnly(t *testing.T) {
	vars, repo, base := hostsMachine(t)
	for _, p := range []string{"home/.claude/skills/group", "home/.claude/skills/gone"} {
		if err := os.RemoveAll(filepath.Join(base, filepath.FromSlash(p))); err != nil {
			t.Fatal(err)
		}
	}
	settings, _ := json.Marshal(map[string]any{"enabledPlugins": map[string]any{"good@mk": true, "bad@mk": true}})
	testfs.Write(t, base, map[string]string{"home/.claude/settings.json": string(settings)})
	r := runBinary(t, repo, vars, "doctor", "--agent", "claude", "--no-color")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "! bad@mk  [manifest-rejected]") || !strings.Contains(r.stdout, "Claude Code plugin cache") {
		t.Errorf("the refused plugin is not reported as upstream's\n%s", r)
	}
	if r := runBinary(t, repo, vars, "doctor", "--agent", "nope"); r.code != 2 || !strings.Contains(r.stderr, "unknown host") {
		t.Errorf("an unknown --agent is not a usage error\n%s", r)
	}
}

// TestDoctorIgnoresProviderSwitches checks that doctor reads an agent's
// folders even when ccski's configuration turns their provider off: the
// agent reads them all the same.
func TestDoctorIgnoresProviderSwitches(t *testing.T) {
	vars, repo, base := hostsMachine(t)
	testfs.Write(t, base, map[string]string{"repo/ccski.yaml": "providers:\n  claude: {enabled: false}\n  marketplace: {enabled: false}\n"})
	r := runBinary(t, repo, vars, "doctor", "--agent", "claude", "--no-color")
	if r.code != 1 || !strings.Contains(r.stdout, "claude:nested  [nested]") || !strings.Contains(r.stdout, "bad@mk") {
		t.Errorf("doctor skipped what the claude provider's switch hides from ccski\n%s", r)
	}
}

// TestHostsSkipInSources checks issue 22 point 2 through sources, list
// and info: a nested Claude skill and a plugin Claude Code refuses are not
// shown as if Claude Code loaded them, and sources says why.
func TestHostsSkipInSources(t *testing.T) {
	vars, repo, base := hostsMachine(t)
	r := runBinary(t, repo, vars, "sources", "--no-color")
	mustOK(t, r)
	for _, s := range []string{"Not loaded by their agents", "claude:nested  Claude Code, nested:",
		"gone  Claude Code, link-broken", "ghost@mk is enabled in", "Claude Code refuses its manifest"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("sources lacks %q\n%s", s, r)
		}
	}
	r = runBinary(t, repo, vars, "list", "--json")
	mustOK(t, r)
	if strings.Contains(r.stdout, "bad-one") {
		t.Errorf("list shows a skill of the plugin Claude Code refuses\n%s", r)
	}
	r = runBinary(t, repo, vars, "info", "bad:bad-one")
	if r.code == 0 || !strings.Contains(r.stderr, "Claude Code refuses its manifest") {
		t.Errorf("info on a refused plugin's skill does not say why\n%s", r)
	}
	// No switch turns a refused plugin on, and disable writes nothing.
	settings := filepath.Join(base, "home", ".claude", "settings.json")
	before, _ := os.ReadFile(settings)
	for _, verb := range []string{"enable", "disable"} {
		r = runBinary(t, repo, vars, verb, "bad:bad-one")
		if !strings.Contains(r.stdout+r.stderr, "is not loaded: Claude Code refuses its manifest") {
			t.Errorf("%s on a refused plugin's skill does not say why\n%s", verb, r)
		}
	}
	if after, _ := os.ReadFile(settings); string(after) != string(before) {
		t.Errorf("enable or disable changed settings.json:\n%s", after)
	}
}
