package hostview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/copilot"
)

// machine builds snapshots by hand under a temporary folder: the roots
// of Claude Code, Codex and the shared .agents folder, in a workspace and
// a home.
type machine struct {
	t     *testing.T
	dir   string
	roots []pipeline.RootReport
	all   []*pipeline.Record
	drops []pipeline.Drop
	snap  *pipeline.Snapshot
}

func newMachine(t *testing.T) *machine {
	m := &machine{t: t, dir: t.TempDir()}
	m.root(pipeline.Root{Path: m.path("repo/.claude/skills"), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Hosts: []string{"claude"}})
	m.root(pipeline.Root{Path: m.path("home/.claude/skills"), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Hosts: []string{"claude"}})
	m.root(pipeline.Root{Path: m.path("home/.codex/skills"), Agent: "codex", Provider: "codex",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Hosts: []string{"codex"}})
	m.root(pipeline.Root{Path: m.path("repo/.agents/skills"), Agent: "agents", Provider: "agents",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceShared, Hosts: []string{"codex", "gemini"}})
	m.root(pipeline.Root{Path: m.path("home/.claude/plugins/cache/mk/tools/1/skills"), Agent: "claude",
		Provider: "marketplace", Location: pipeline.LocationPlugin, Kind: pipeline.KindPlugin, Flat: true,
		Plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "mk"}})
	return m
}

func (m *machine) path(rel string) string { return filepath.Join(m.dir, filepath.FromSlash(rel)) }

func (m *machine) root(r pipeline.Root) {
	m.roots = append(m.roots, pipeline.RootReport{Root: r, Exists: true})
}

// skill writes a skill under root (a folder of newMachine, relative) at
// rel with the given SKILL.md text, and records it.
func (m *machine) skill(root, rel, text string) *pipeline.Record {
	m.t.Helper()
	var rr pipeline.Root
	for _, r := range m.roots {
		if r.Path == m.path(root) {
			rr = r.Root
		}
	}
	if rr.Path == "" {
		m.t.Fatalf("no root %s", root)
	}
	dir := filepath.Join(rr.Path, filepath.FromSlash(rel))
	file := filepath.Join(dir, "SKILL.md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		m.t.Fatal(err)
	}
	name := filepath.Base(dir)
	if rr.Plugin != nil {
		name = rr.Plugin.Plugin + ":" + name
	}
	r := &pipeline.Record{ID: rr.Agent + ":" + rel, Name: name, Agent: rr.Agent, Location: rr.Location, Kind: rr.Kind,
		Root: rr.Path, Dir: dir, File: file, RealDir: dir, Hosts: rr.Hosts, Plugin: rr.Plugin}
	m.all = append(m.all, r)
	return r
}

func (m *machine) build() *pipeline.Snapshot {
	var visible []*pipeline.Record
	for _, r := range m.all {
		if _, dropped := m.dropped(r); !dropped {
			visible = append(visible, r)
		}
	}
	if m.snap == nil {
		m.snap = pipeline.NewSnapshot(m.all, visible, m.drops, m.roots, nil)
	}
	return m.snap
}

func (m *machine) dropped(r *pipeline.Record) (pipeline.Drop, bool) {
	for _, d := range m.drops {
		if d.Record == r {
			return d, true
		}
	}
	return pipeline.Drop{}, false
}

// verdict returns host's verdict on the record with id in view v.
func verdict(t *testing.T, v View, id string) Verdict {
	t.Helper()
	for _, x := range append(append([]Verdict{}, v.Loads...), v.NotLoaded...) {
		if x.ID == id || x.ID == "" && x.Name == id {
			return x
		}
	}
	t.Fatalf("%s: no verdict on %s (loads %v, not %v)", v.Host, id, v.Loads, v.NotLoaded)
	return Verdict{}
}

func view(t *testing.T, host string, snap *pipeline.Snapshot, managed ...validate.ManagedTree) View {
	t.Helper()
	h, ok := ByName(host)
	if !ok {
		t.Fatalf("no host %s", host)
	}
	opt := Options{Env: providers.Env{UserDir: t.TempDir()}, Managed: managed}
	v := For(context.Background(), h, snap, opt)
	agreeOne(t, h, snap, v, opt)
	return v
}

// agreeOne checks that Of, asked of each record of snap alone, gives the
// verdict For gave it in v, and says a record For left out is not read.
func agreeOne(t *testing.T, h Host, snap *pipeline.Snapshot, v View, opt Options) {
	t.Helper()
	byID := map[string]Verdict{}
	for _, x := range append(append([]Verdict{}, v.Loads...), v.NotLoaded...) {
		if x.ID != "" {
			byID[x.ID] = x
		}
	}
	roots := RootsOf(snap)
	for _, r := range snap.All {
		got, read := Of(context.Background(), h, snap, roots, r, opt)
		want, inView := byID[r.ID]
		if read != inView || !verdictEqual(got, want) {
			t.Errorf("%s: Of(%s) = %+v, %v; For gave %+v, %v", h.Name, r.ID, got, read, want, inView)
		}
	}
}

// verdictEqual compares two verdicts field by field (Skills is a slice).
func verdictEqual(a, b Verdict) bool {
	return a.ID == b.ID && a.Name == b.Name && a.File == b.File && a.Loads == b.Loads && a.Code == b.Code &&
		a.Detail == b.Detail && a.Setting == b.Setting && a.By == b.By && a.Managed == b.Managed &&
		a.Problem == b.Problem && len(a.Skills) == len(b.Skills)
}

const okSkill = "---\nname: %s\ndescription: Does a thing when asked.\n---\nBody.\n"

func text(name string) string { return strings.Replace(okSkill, "%s", name, 1) }

// TestNested checks the per-host rule for a skill folder below a group
// folder: Claude Code does not load it (checked against Claude Code
// 2.1.332), Codex does (Codex 0.171.0).
func TestNested(t *testing.T) {
	m := newMachine(t)
	m.skill("repo/.claude/skills", "flat", text("flat"))
	m.skill("repo/.claude/skills", "group/docx", text("docx"))
	m.skill("repo/.agents/skills", "group/beta", text("beta"))
	snap := m.build()

	claude := view(t, "claude", snap)
	if x := verdict(t, claude, "claude:flat"); x.Code != Loads {
		t.Errorf("flat: %+v, want loads", x)
	}
	x := verdict(t, claude, "claude:group/docx")
	if x.Loads || x.Code != Nested || !x.Problem || !x.Owned() || !strings.Contains(x.Detail, "group/docx") {
		t.Errorf("claude on a nested skill: %+v, want nested, a problem the user owns", x)
	}
	if got := claude.Broken(); len(got) != 1 || got[0].ID != "claude:group/docx" {
		t.Errorf("Broken = %+v, want the nested skill", got)
	}
	if x := verdict(t, view(t, "codex", snap), "agents:group/beta"); x.Code != Loads {
		t.Errorf("codex on a nested skill: %+v, want loads", x)
	}
	if x := verdict(t, view(t, "gemini", snap), "agents:group/beta"); x.Code != Nested {
		t.Errorf("gemini on a nested skill: %+v, want nested", x)
	}
}

// TestSwitches checks that a host's own switch is its reason, with the
// file that sets it, and that another host's switch does not count.
func TestSwitches(t *testing.T) {
	m := newMachine(t)
	r := m.skill("repo/.agents/skills", "notes", text("notes"))
	lim := m.skill("home/.claude/skills", "review", text("review"))
	settings := m.path("home/.gemini/settings.json")
	r.Off = []pipeline.HostSwitch{{Host: "gemini", Title: "Gemini CLI", Mode: pipeline.ModeOff, File: settings,
		Scope: "user", Setting: "skills.disabled"}}
	lim.Off = []pipeline.HostSwitch{{Host: "claude", Title: "Claude Code", Mode: pipeline.ModeNameOnly,
		File: m.path("home/.claude/settings.json"), Scope: "user", Setting: "skillOverrides"}}
	snap := m.build()

	x := verdict(t, view(t, "gemini", snap), "agents:notes")
	if x.Loads || x.Code != SwitchedOff || x.Setting != settings || x.Problem {
		t.Errorf("gemini: %+v, want switched-off by %s, no problem", x, settings)
	}
	if x := verdict(t, view(t, "codex", snap), "agents:notes"); x.Code != Loads {
		t.Errorf("codex: %+v, want loads: Gemini CLI's switch is not Codex's", x)
	}
	if x := verdict(t, view(t, "claude", snap), "claude:review"); !x.Loads || x.Code != Limited {
		t.Errorf("claude name-only: %+v, want loads, limited", x)
	}
}

// TestExplicitOnly checks that Codex loads a skill whose openai.yaml
// forbids implicit invocation without listing it, and that Gemini CLI,
// which does not read the file, lists it.
func TestExplicitOnly(t *testing.T) {
	m := newMachine(t)
	r := m.skill("repo/.agents/skills", "deploy", text("deploy"))
	no := false
	r.OpenAI = &pipeline.OpenAIMetadata{AllowImplicitInvocation: &no}
	snap := m.build()
	if x := verdict(t, view(t, "codex", snap), "agents:deploy"); !x.Loads || x.Code != ExplicitOnly {
		t.Errorf("codex: %+v, want loads, explicit-only", x)
	}
	if x := verdict(t, view(t, "gemini", snap), "agents:deploy"); x.Code != Loads {
		t.Errorf("gemini: %+v, want loads", x)
	}
}

// TestShadowed checks that a copy that loses to another copy the host
// also loads is shadowed in a host that keeps one copy per name, and loads
// in Codex, which lists every copy.
func TestShadowed(t *testing.T) {
	m := newMachine(t)
	user := m.skill("home/.claude/skills", "pdf", text("pdf"))
	project := m.skill("repo/.claude/skills", "pdf", text("pdf"))
	codexCopy := m.skill("home/.codex/skills", "pdf", text("pdf"))
	shared := m.skill("repo/.agents/skills", "pdf", text("pdf"))
	user.ID, project.ID = "claude@user:pdf", "claude@project:pdf"
	m.drops = []pipeline.Drop{
		{Record: project, Stage: "dedupe", Reason: "shadowed", By: user},
		{Record: codexCopy, Stage: "dedupe", Reason: "shadowed", By: user},
		{Record: shared, Stage: "dedupe", Reason: "shadowed", By: user},
	}
	snap := m.build()
	claude := view(t, "claude", snap)
	if x := verdict(t, claude, project.ID); x.Code != Shadowed || x.By != user.ID || x.Problem {
		t.Errorf("claude project copy: %+v, want shadowed by %s", x, user.ID)
	}
	// ccski's winner is a Claude copy Codex does not read: Codex loads
	// its own copies, both of them.
	codex := view(t, "codex", snap)
	for _, id := range []string{codexCopy.ID, shared.ID} {
		if x := verdict(t, codex, id); x.Code != Loads {
			t.Errorf("codex %s: %+v, want loads", id, x)
		}
	}
}

// TestHostRules checks the errors of a host's validate profile against
// what the real hosts do: Codex 0.171.0 refuses a skill whose file starts
// with a byte order mark or whose frontmatter is indented with tabs, and
// loads one with no name; Claude Code 2.1.332 loads all three, and so
// does a host without a profile. An error in the body never keeps a skill
// from loading.
func TestHostRules(t *testing.T) {
	m := newMachine(t)
	m.skill("repo/.agents/skills", "bom", "\ufeff---\nname: bom\ndescription: Starts with a BOM.\n---\nBody.\n")
	m.skill("repo/.agents/skills", "tabs", "---\nname: tabs\ndescription: Tabs.\nmetadata:\n\tk: v\n---\nBody.\n")
	m.skill("repo/.agents/skills", "noname", "---\ndescription: No name.\n---\nBody.\n")
	m.skill("home/.claude/skills", "tabs", "---\nname: tabs\ndescription: Tabs.\nmetadata:\n\tk: v\n---\nBody.\n")
	m.skill("home/.claude/skills", "links", "---\nname: links\ndescription: Links to a missing file.\n---\nSee [x](missing.md).\n")
	snap := m.build()
	codex := view(t, "codex", snap)
	for id, code := range map[string]string{"bom": problems.ByteOrderMark, "tabs": problems.YAMLTab} {
		if x := verdict(t, codex, "agents:"+id); x.Loads || x.Code != HostRules || !strings.Contains(x.Detail, code) {
			t.Errorf("codex on %s: %+v, want host-rules naming %s", id, x, code)
		}
	}
	// The codex profile follows Codex here: a missing name is a warning,
	// so the skill loads with nothing to say.
	if x := verdict(t, codex, "agents:noname"); !x.Loads || x.Code != Loads {
		t.Errorf("codex on a skill without a name: %+v, want loads", x)
	}
	claude := view(t, "claude", snap)
	if x := verdict(t, claude, "claude:tabs"); !x.Loads || x.Code != Flawed || !strings.Contains(x.Detail, problems.YAMLTab) {
		t.Errorf("claude on tabs: %+v, want loads, flawed", x)
	}
	if x := verdict(t, claude, "claude:links"); x.Code != Loads {
		t.Errorf("a broken link in the body: %+v, want loads", x)
	}
	if x := verdict(t, view(t, "gemini", snap), "agents:bom"); x.Code != Loads {
		t.Errorf("gemini has no profile: %+v, want loads", x)
	}
}

// TestCodexDescriptions checks what Codex 0.171.0 does with a description
// that is empty or a list (drops the skill) and with a list-valued
// compatibility (loads it), per the profiles table of hostfacts.
func TestCodexDescriptions(t *testing.T) {
	m := newMachine(t)
	m.skill("repo/.agents/skills", "empty", "---\nname: empty\ndescription: \"\"\n---\nBody.\n")
	m.skill("repo/.agents/skills", "listed", "---\nname: listed\ndescription: [a, b]\n---\nBody.\n")
	m.skill("repo/.agents/skills", "compat", "---\nname: compat\ndescription: Fine.\ncompatibility: [a, b]\n---\nBody.\n")
	codex := view(t, "codex", m.build())
	for id, code := range map[string]string{"empty": problems.DescriptionEmpty, "listed": problems.WrongType} {
		if x := verdict(t, codex, "agents:"+id); x.Loads || x.Code != HostRules || !strings.Contains(x.Detail, code) {
			t.Errorf("codex on %s: %+v, want host-rules naming %s", id, x, code)
		}
	}
	if x := verdict(t, codex, "agents:compat"); !x.Loads {
		t.Errorf("codex on a list-valued compatibility: %+v, want it loaded", x)
	}
}

// TestPlugins checks the verdicts on plugins that give a host nothing:
// turned off (a choice), refused (a problem, upstream when it lies in the
// plugin cache), enabled but not installed (a problem), each for its own
// host only.
func TestPlugins(t *testing.T) {
	m := newMachine(t)
	m.skill("home/.claude/plugins/cache/mk/tools/1/skills", "lint", text("lint"))
	snap := m.build()
	settings := m.path("home/.claude/settings.json")
	manifest := m.path("home/.claude/plugins/cache/mk/bad/1/.claude-plugin/plugin.json")
	if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte(`{"name": "bad", "agents": ["./a"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	snap.Disabled = []pipeline.DisabledPlugin{
		{Provider: "claude", Plugin: "off", Marketplace: "mk", Settings: settings, Skills: []string{"a"}},
		{Provider: "claude", Plugin: "bad", Marketplace: "mk", Settings: manifest, Skills: []string{"b"},
			Refused: "Claude Code refuses its manifest"},
		{Provider: "codex", Plugin: "cx", Marketplace: "mk", Settings: m.path("home/.codex/config.toml")},
	}
	snap.Diagnostics = []pipeline.Diagnostic{{Severity: pipeline.SeverityWarning, Code: providers.CodePluginNotInstalled,
		Provider: "claude", Path: settings, Message: "plugin ghost@mk is enabled in settings.json but not installed"}}
	claude := view(t, "claude", snap, validate.ManagedTrees(m.path("home/.claude"), "")...)

	if x := verdict(t, claude, "claude:lint"); !x.Loads || x.Owned() {
		t.Errorf("plugin skill: %+v, want loads, in a managed tree", x)
	}
	if x := verdict(t, claude, "off@mk"); x.Code != PluginDisabled || x.Problem || x.Setting != settings {
		t.Errorf("disabled plugin: %+v", x)
	}
	x := verdict(t, claude, "bad@mk")
	if x.Code != ManifestRejected || !x.Problem || x.Owned() || x.Skills[0] != "b" {
		t.Errorf("refused plugin: %+v, want a problem in the plugin cache", x)
	}
	if x := verdict(t, claude, "ghost@mk"); x.Code != PluginNotInstalled || !x.Problem || !x.Owned() {
		t.Errorf("plugin not installed: %+v", x)
	}
	for _, x := range claude.NotLoaded {
		if x.Name == "cx@mk" {
			t.Errorf("Claude Code's view holds Codex's plugin: %+v", x)
		}
	}
	if got := claude.Broken(); len(got) != 1 || got[0].Name != "ghost@mk" {
		t.Errorf("Broken = %+v, want only ghost@mk", got)
	}
}

// TestBrokenLink checks that a broken link in a skills folder is a
// problem of the hosts that read the folder only.
func TestBrokenLink(t *testing.T) {
	m := newMachine(t)
	snap := m.build()
	link := filepath.Join(m.path("home/.codex/skills"), "gone")
	snap.Diagnostics = []pipeline.Diagnostic{{Severity: pipeline.SeverityWarning, Code: problems.BrokenSymlink,
		Provider: "codex", Path: link, Message: "symlink target does not exist"}}
	if x := verdict(t, view(t, "codex", snap), "gone"); x.Code != LinkBroken || !x.Problem {
		t.Errorf("codex: %+v, want link-broken", x)
	}
	if v := view(t, "claude", snap); len(v.NotLoaded) != 0 {
		t.Errorf("claude does not read the Codex folder: %+v", v.NotLoaded)
	}
}

// TestDetect checks that a host is found by its folder or by its command
// on PATH, and says how.
func TestDetect(t *testing.T) {
	home, bin := t.TempDir(), t.TempDir()
	env := providers.Env{UserDir: home, Getenv: func(k string) string {
		if k == "PATH" {
			return bin
		}
		return ""
	}}
	codex, _ := ByName("codex")
	if ok, _ := codex.Detect(env); ok {
		t.Fatal("codex found on an empty machine")
	}
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if ok, how := codex.Detect(env); !ok || !strings.Contains(how, "codex on PATH") {
		t.Errorf("Detect = %v, %q, want found on PATH", ok, how)
	}
	if err := os.Mkdir(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	gemini, _ := ByName("gemini")
	if ok, how := gemini.Detect(env); !ok || !strings.Contains(how, ".gemini exists") {
		t.Errorf("Detect = %v, %q, want found by its folder", ok, how)
	}
}

// TestTooLarge checks the size over which Claude Code 2.1.332 skips a
// SKILL.md (1,000,000 bytes load, 1,000,001 do not), and that Codex,
// which loaded one of 11 MB, has none.
func TestTooLarge(t *testing.T) {
	m := newMachine(t)
	big := m.skill("home/.claude/skills", "big", text("big"))
	edge := m.skill("home/.claude/skills", "edge", text("edge"))
	shared := m.skill("repo/.agents/skills", "huge", text("huge"))
	big.Size, edge.Size, shared.Size = 1_000_001, 1_000_000, 11_000_000
	snap := m.build()
	claude := view(t, "claude", snap)
	if x := verdict(t, claude, "claude:big"); x.Loads || x.Code != TooLarge || !x.Problem {
		t.Errorf("claude on 1,000,001 bytes: %+v, want too-large", x)
	}
	if x := verdict(t, claude, "claude:edge"); x.Code != Loads {
		t.Errorf("claude on 1,000,000 bytes: %+v, want loads", x)
	}
	if x := verdict(t, view(t, "codex", snap), "agents:huge"); x.Code != Loads {
		t.Errorf("codex on 11 MB: %+v, want loads", x)
	}
}

// TestCopilotClaudeFolders: Copilot CLI 1.0.102 lists the project's
// .claude/skills but not ~/.claude/skills (`copilot skill list`).
func TestCopilotClaudeFolders(t *testing.T) {
	var copilotHost Host
	for _, h := range Hosts() {
		if h.Name == copilot.Name {
			copilotHost = h
		}
	}
	project := pipeline.Root{Provider: claude.Name, Agent: claude.HostName, Location: pipeline.LocationProject, Path: "/p/.claude/skills"}
	user := pipeline.Root{Provider: claude.Name, Agent: claude.HostName, Location: pipeline.LocationUser, Path: "/h/.claude/skills"}
	shared := pipeline.Root{Provider: "agents", Agent: "agents", Location: pipeline.LocationUser, Path: "/h/.agents/skills"}
	if !copilotHost.Reads(project) || copilotHost.Reads(user) || !copilotHost.Reads(shared) {
		t.Errorf("copilot reads project .claude %v, user .claude %v, user .agents %v; want true, false, true",
			copilotHost.Reads(project), copilotHost.Reads(user), copilotHost.Reads(shared))
	}
}
