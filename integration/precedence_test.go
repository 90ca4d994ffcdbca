package integration

// Regression tests for precedence on a machine laid out like a real
// Claude Code and Codex install: a skill x and a command release both in
// ~/.claude and in the project's .claude, a shared skill y in the
// project's and the user's .agents/skills, and Codex's bundled skills in
// ~/.codex/skills/.system (with the marker file Codex writes there), one
// of which the user also has in ~/.codex/skills. The binary is driven as
// a user does: list, sources and a project ccski.yaml.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// precedenceTree is the regression machine, built in a temporary folder.
type precedenceTree struct{ home, ws string }

func newPrecedenceTree(t *testing.T) precedenceTree {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	p := precedenceTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
	}
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json":                             `{"enabledPlugins": {}}`,
		"home/.claude/plugins/installed_plugins.json":            `{"version": 2, "plugins": {}}`,
		"home/.claude/plugins/known_marketplaces.json":           `{}`,
		"home/.claude/skills/x/SKILL.md":                         skill("x", "The personal x."),
		"home/.claude/commands/release.md":                       "---\ndescription: Release (personal).\n---\nRelease $1.\n",
		"home/.agents/skills/y/SKILL.md":                         skill("y", "The user's y."),
		"home/.codex/config.toml":                                "model = \"gpt-5\"\n",
		"home/.codex/skills/skill-creator/SKILL.md":              skill("skill-creator", "The user's own skill-creator."),
		"home/.codex/skills/.system/.codex-system-skills.marker": "1\n",
		"home/.codex/skills/.system/skill-creator/SKILL.md":      skill("skill-creator", "Create skills (bundled with Codex)."),
		"home/.codex/skills/.system/skill-installer/SKILL.md":    skill("skill-installer", "Install skills (bundled with Codex)."),
		"work/repo/.git/":                                        "",
		"work/repo/.claude/skills/x/SKILL.md":                    skill("x", "The project's x."),
		"work/repo/.claude/commands/release.md":                  "---\ndescription: Release (project).\n---\nRelease $1.\n",
		"work/repo/.agents/skills/y/SKILL.md":                    skill("y", "The project's y."),
	})
	return p
}

// run runs the binary in the workspace with the tree's user folder.
func (p precedenceTree) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, p.ws, env(&machine.Machine{Home: p.home}, nil), append(args, "--user-dir", p.home)...)
}

// precedenceRecord is an entry of `ccski list --json`.
type precedenceRecord struct {
	ID, Location, Description string
}

// visible lists the visible records by id.
func (p precedenceTree) visible(t *testing.T) map[string]precedenceRecord {
	t.Helper()
	r := p.run(t, "list", "--json")
	mustOK(t, r)
	var recs []precedenceRecord
	decodeOnly(t, r, &recs)
	out := map[string]precedenceRecord{}
	for _, rec := range recs {
		out[rec.ID] = rec
	}
	return out
}

// precedenceSources is the part of `ccski sources --json` these tests read.
type precedenceSources struct {
	Priority   []string `json:"priority"`
	Precedence []struct {
		Providers []string `json:"providers"`
		Prefer    string   `json:"prefer"`
		Option    string   `json:"option"`
		Rule      string   `json:"rule"`
	} `json:"precedence"`
	Roots []struct {
		Path, Provider, Location, Kind string
		Exists                         bool
		Skills                         int
	} `json:"roots"`
	Hidden []struct {
		ID, Reason string
	} `json:"hidden"`
}

func (p precedenceTree) sources(t *testing.T) precedenceSources {
	t.Helper()
	r := p.run(t, "sources", "--json")
	mustOK(t, r)
	var s precedenceSources
	decodeOnly(t, r, &s)
	return s
}

func (s precedenceSources) hidden() map[string]string {
	out := map[string]string{}
	for _, h := range s.Hidden {
		out[h.ID] = h.Reason
	}
	return out
}

func (s precedenceSources) rules() map[string]string {
	out := map[string]string{}
	for _, r := range s.Precedence {
		out[strings.Join(r.Providers, ",")] = r.Rule
	}
	return out
}

const (
	personalRule = "Claude Code ranks personal over project (providers.claude.precedence: user)"
	repoRule     = "Codex ranks repo over user (providers.codex.precedence: project)"
	agentsRule   = "Codex, Gemini CLI and OpenClaw rank project over user (providers.agents.precedence: project)"
	projectRule  = "project over user (providers.claude.precedence: project; by default, Claude Code ranks personal over project)"
)

// TestPrecedenceDefault checks the default ranking: Claude's personal
// copies win over the project's (skills and commands alike), the shared
// folders' project copy wins as Codex ranks them, and sources states each
// rule, in JSON and in text.
func TestPrecedenceDefault(t *testing.T) {
	p := newPrecedenceTree(t)
	vis := p.visible(t)
	for id, desc := range map[string]string{
		"claude@user:x":        "The personal x.",
		"claude@user:/release": "Release (personal).",
		"agents@project:y":     "The project's y.",
	} {
		if got, ok := vis[id]; !ok || got.Description != desc {
			t.Errorf("list --json: %s = %+v (present %v), want %q", id, got, ok, desc)
		}
	}
	for _, id := range []string{"claude@project:x", "claude@project:/release", "agents@user:y"} {
		if _, ok := vis[id]; ok {
			t.Errorf("list --json shows %s, which a higher copy hides", id)
		}
	}

	s := p.sources(t)
	hidden := s.hidden()
	for id, want := range map[string]string{
		"claude@project:x":        "shadowed by claude@user:x (" + personalRule + ")",
		"claude@project:/release": "shadowed by claude@user:/release (" + personalRule + ")",
		"agents@user:y":           "shadowed by agents@project:y (" + agentsRule + ")",
	} {
		if got := hidden[id]; got != want {
			t.Errorf("hidden %s: %q\nwant %q", id, got, want)
		}
	}
	rules := s.rules()
	if rules["claude"] != personalRule || rules["codex"] != repoRule || rules["agents,gemini,openclaw"] != agentsRule {
		t.Errorf("sources --json precedence = %v", rules)
	}
	if len(s.Priority) == 0 || s.Priority[0] != "custom" || !slices.Contains(s.Priority, "workspace-agent") {
		t.Errorf("sources --json priority = %v", s.Priority)
	}

	r := p.run(t, "sources")
	mustOK(t, r)
	text := strings.Join(strings.Fields(r.stdout), " ") // unwrapped
	for _, want := range []string{"Precedence", "claude: " + personalRule, "codex: " + repoRule,
		"Copies of one skill rank by root kind (priority): custom, project, workspace-agent"} {
		if !strings.Contains(text, want) {
			t.Errorf("sources does not say %q:\n%s", want, r.stdout)
		}
	}
}

// TestPrecedenceProjectConfig checks that providers.claude.precedence:
// project in the project's ccski.yaml puts the project's copies first and
// that sources says so, and that a bad value names the file and the key.
func TestPrecedenceProjectConfig(t *testing.T) {
	p := newPrecedenceTree(t)
	cfg := filepath.Join(p.ws, "ccski.yaml")
	if err := os.WriteFile(cfg, []byte("providers:\n  claude:\n    precedence: project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vis := p.visible(t)
	for id, desc := range map[string]string{
		"claude@project:x":        "The project's x.",
		"claude@project:/release": "Release (project).",
	} {
		if got, ok := vis[id]; !ok || got.Description != desc {
			t.Errorf("list --json: %s = %+v (present %v), want %q", id, got, ok, desc)
		}
	}
	s := p.sources(t)
	if got, want := s.hidden()["claude@user:x"], "shadowed by claude@project:x ("+projectRule+")"; got != want {
		t.Errorf("hidden claude@user:x: %q\nwant %q", got, want)
	}
	if got := s.rules()["claude"]; got != projectRule {
		t.Errorf("claude rule = %q, want %q", got, projectRule)
	}

	if err := os.WriteFile(cfg, []byte("providers:\n  claude:\n    precedence: personal\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := p.run(t, "list")
	for _, want := range []string{cfg, "providers.claude.precedence", `invalid value "personal"`, "valid values: user, project"} {
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("bad precedence: want exit 2 and %q\n%s", want, r)
		}
	}
}

// TestCodexSystemSkills checks that Codex's bundled skills in
// ~/.codex/skills/.system are listed as Codex system skills, from a root
// of their own, and that the user's copy of one of them wins, as Codex
// ranks user skills above system ones.
func TestCodexSystemSkills(t *testing.T) {
	p := newPrecedenceTree(t)
	vis := p.visible(t)
	want := map[string]precedenceRecord{
		"codex@user:skill-creator": {ID: "codex@user:skill-creator", Location: "user", Description: "The user's own skill-creator."},
		"codex:skill-installer":    {ID: "codex:skill-installer", Location: "system", Description: "Install skills (bundled with Codex)."},
	}
	got := map[string]precedenceRecord{}
	for id, rec := range vis {
		if strings.HasPrefix(id, "codex") {
			got[id] = rec
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("codex skills of list --json (-want +got):\n%s", d)
	}

	s := p.sources(t)
	if got, want := s.hidden()["codex@system:skill-creator"],
		"shadowed by codex@user:skill-creator (higher priority: user-agent over system)"; got != want {
		t.Errorf("hidden codex@system:skill-creator: %q, want %q", got, want)
	}
	system := filepath.Join(p.home, ".codex", "skills", ".system")
	found := false
	for _, root := range s.Roots {
		if root.Path == system {
			found = true
			if root.Provider != "codex" || root.Location != "system" || root.Kind != "system" || !root.Exists || root.Skills != 2 {
				t.Errorf("root %s = %+v, want codex system with 2 skills", system, root)
			}
		}
		if root.Path == filepath.Dir(system) && root.Skills != 1 {
			t.Errorf("the walk of %s found %d skills, want 1 (.system is its own root)", root.Path, root.Skills)
		}
	}
	if !found {
		t.Errorf("sources --json has no root %s", system)
	}

	r := p.run(t, "list", "--all")
	mustOK(t, r)
	for _, want := range []string{" system (2)", "- codex@system:skill-creator", "- codex:skill-installer"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("list --all does not show %q:\n%s", want, r.stdout)
		}
	}

	// Without .system nothing is reported missing: the root is optional.
	if err := os.RemoveAll(system); err != nil {
		t.Fatal(err)
	}
	r = p.run(t, "sources", "--json")
	mustOK(t, r)
	var diags struct {
		Diagnostics []struct{ Path, Message string } `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &diags); err != nil {
		t.Fatal(err)
	}
	for _, d := range diags.Diagnostics {
		if strings.Contains(d.Path, ".system") {
			t.Errorf("a missing .system is reported: %+v", d)
		}
	}
}
