package realhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Machine is a home and a project laid out like a real install, for
// comparing ccski with the real hosts: personal, project and plugin
// skills, a skill whose folder and frontmatter names differ, nested skill
// folders, a plugin turned off, a plugin whose manifest Claude Code
// refuses, a plugin enabled but never installed, a skill ccski installed
// (.agents/skills with a link from .claude/skills), a "link" that is a
// plain text file (a repository cloned with core.symlinks=false, as on
// Windows), a broken link, a Codex switch, a Codex skill only for
// explicit use, and more skills than the hosts' listing budgets hold.
type Machine struct {
	// Root holds Home and Project; Home is HOME, Project the git
	// repository to run in.
	Root, Home, Project string
	// Bulk is how many bulk skills with long descriptions each of
	// ~/.claude/skills and ~/.agents/skills holds.
	Bulk int
}

// BulkDescription is the description of bulk skill i: 409 characters.
func BulkDescription(i int) string {
	return fmt.Sprintf("bulk %03d %s", i, strings.Repeat("d", 400))
}

// NewMachine lays the machine out in a temporary folder of t.
func NewMachine(t testing.TB) *Machine {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := &Machine{Root: root, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "work", "proj"), Bulk: 40}
	h, p := m.Home, m.Project
	skill := func(dir, name, desc string) {
		m.write(t, filepath.Join(dir, "SKILL.md"), fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nBody.\n", name, desc, name))
	}
	// Claude Code, personal.
	skill(h+"/.claude/skills/review", "review", "Review a change for bugs.")
	skill(h+"/.claude/skills/video-downloader", "youtube-downloader", "Download a video; the folder's name differs.")
	skill(h+"/.claude/skills/group/nested-user", "nested-user", "A personal skill nested in a group folder.")
	for i := 1; i <= m.Bulk; i++ {
		skill(fmt.Sprintf("%s/.claude/skills/bulk-%03d", h, i), fmt.Sprintf("bulk-%03d", i), BulkDescription(i))
	}
	// Claude Code plugins of the marketplace mk: good (two skills, one
	// nested), bad (a manifest Claude Code refuses), off (turned off),
	// ghost (enabled, never installed).
	plugins := h + "/.claude/plugins"
	cache := plugins + "/cache/mk"
	market := plugins + "/marketplaces/mk"
	m.write(t, market+"/.claude-plugin/marketplace.json", `{"name":"mk","owner":{"name":"Test"},"plugins":[`+
		`{"name":"good","source":"./plugins/good"},{"name":"bad","source":"./plugins/bad"},`+
		`{"name":"off","source":"./plugins/off"},{"name":"ghost","source":"./plugins/ghost"}]}`+"\n")
	manifests := map[string]string{
		"good": `{"name":"good","version":"1.0.0","description":"Good plugin"}`,
		"bad":  `{"name":"bad","version":"1.0.0","description":"Refused manifest","agents":["x"]}`,
		"off":  `{"name":"off","version":"1.0.0","description":"Turned off"}`,
	}
	installed := []string{}
	for name, manifest := range manifests {
		for _, dir := range []string{cache + "/" + name + "/1.0.0", market + "/plugins/" + name} {
			m.write(t, dir+"/.claude-plugin/plugin.json", manifest+"\n")
			switch name {
			case "good":
				skill(dir+"/skills/alpha", "alpha", "Good plugin's alpha.")
				skill(dir+"/skills/gfolder", "g-name", "Good plugin's skill whose folder's name differs.")
				skill(dir+"/skills/group/gnested", "gnested", "Good plugin's nested skill.")
			case "bad":
				skill(dir+"/skills/bskill", "bskill", "A skill of the plugin with a refused manifest.")
			case "off":
				skill(dir+"/skills/oskill", "oskill", "A skill of the plugin turned off.")
			}
		}
		installed = append(installed, fmt.Sprintf(`"%s@mk":[{"scope":"user","installPath":%q,"version":"1.0.0",`+
			`"installedAt":"2025-01-01T00:00:00.000Z","lastUpdated":"2025-01-01T00:00:00.000Z"}]`, name, cache+"/"+name+"/1.0.0"))
	}
	m.write(t, plugins+"/installed_plugins.json", `{"version":2,"plugins":{`+strings.Join(installed, ",")+"}}\n")
	m.write(t, plugins+"/known_marketplaces.json", fmt.Sprintf(`{"mk":{"source":{"source":"github","repo":"example/mk"},`+
		`"installLocation":%q,"lastUpdated":"2025-01-01T00:00:00.000Z"}}`+"\n", market))
	m.write(t, h+"/.claude/settings.json", `{"enabledPlugins":{"good@mk":true,"bad@mk":true,"off@mk":false,"ghost@mk":true}}`+"\n")
	// Codex, personal: one nested, one turned off by path, one for
	// explicit use only; ~/.agents/skills read by Codex alone here.
	skill(h+"/.codex/skills/cx-user", "cx-user", "A Codex skill.")
	skill(h+"/.codex/skills/cgroup/cx-nested", "cx-nested", "A Codex skill nested in a group folder.")
	skill(h+"/.codex/skills/cx-off", "cx-off", "A Codex skill turned off in config.toml.")
	skill(h+"/.codex/skills/cx-explicit", "cx-explicit", "A Codex skill its agents/openai.yaml keeps for explicit use.")
	m.write(t, h+"/.codex/skills/cx-explicit/agents/openai.yaml", "policy:\n  allow_implicit_invocation: false\n")
	m.write(t, h+"/.codex/config.toml", fmt.Sprintf("model_context_window = 200000\n\n[[skills.config]]\npath = %q\nenabled = false\n",
		h+"/.codex/skills/cx-off/SKILL.md"))
	skill(h+"/.agents/skills/shared-user", "shared-user", "A personal skill in ~/.agents/skills.")
	for i := 1; i <= m.Bulk; i++ {
		skill(fmt.Sprintf("%s/.agents/skills/cbulk-%03d", h, i), fmt.Sprintf("cbulk-%03d", i), BulkDescription(i))
	}
	// The project.
	skill(p+"/.claude/skills/proj-top", "proj-top", "A project skill.")
	skill(p+"/.claude/skills/group/docx", "docx", "A project skill nested in a group folder.")
	// What ccski install lays out: the skill in .agents/skills, a link
	// to it from .claude/skills.
	skill(p+"/.agents/skills/installed", "installed", "A skill ccski installed, linked from .claude/skills.")
	m.symlink(t, "../../.agents/skills/installed", p+"/.claude/skills/installed")
	// The same, cloned where symlinks are off: the link is a text file
	// holding its target.
	skill(p+"/.agents/skills/winskill", "winskill", "A skill whose link from .claude/skills is a plain text file.")
	m.write(t, p+"/.claude/skills/winskill", "../../.agents/skills/winskill")
	// A link to a skill that is gone.
	m.symlink(t, "../../.agents/skills/gone", p+"/.claude/skills/gone")
	git := exec.Command("git", "init", "-q", p)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init %s: %v\n%s", p, err, out)
	}
	return m
}

func (m *Machine) write(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (m *Machine) symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
