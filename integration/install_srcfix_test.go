package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestInstallStaleMarketplaceFolder is issue 23's point 5: a folder of
// skills whose .claude-plugin/marketplace.json lists plugin sources that
// do not exist is installed as the folder of skills it is, with a warning
// naming the marketplace file and how many sources were missing, in text
// and JSON; before, it was "no skill found in the source" and exit 1.
func TestInstallStaleMarketplaceFolder(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	files := map[string]string{}
	var plugins []string
	for i := range 7 {
		plugins = append(plugins, fmt.Sprintf(`{"name": "gone%d", "source": "./plugins/gone%d"}`, i, i))
	}
	files[".claude-plugin/marketplace.json"] = `{"name": "stale", "owner": {"name": "o"}, "plugins": [` +
		strings.Join(plugins, ", ") + `]}`
	for _, n := range []string{"alpha", "beta", "gamma"} {
		files[n+"/SKILL.md"] = "---\nname: " + n + "\ndescription: The " + n + " skill.\n---\nBody.\n"
	}
	testfs.Write(t, src, files)

	const warn = ".claude-plugin/marketplace.json lists 7 plugin sources that do not exist (gone0, gone1, gone2, gone3, gone4, … 2 more); read the folder as a folder of skills instead"
	r := b.run(t, "install", src, "--all", "--dry-run")
	mustOK(t, r)
	if !strings.Contains(r.stderr, warn) {
		t.Errorf("want the warning %q\n%s", warn, r)
	}
	var rep struct {
		installJSON
		Warnings []string `json:"warnings"`
	}
	r = b.run(t, "install", src, "--all", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &rep)
	if got := strings.Join(rep.statuses(), ", "); got != "alpha installed, beta installed, gamma installed" {
		t.Errorf("install: %s\n%s", got, r)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), warn) {
		t.Errorf("JSON warnings %q lack %q", rep.Warnings, warn)
	}
}

// agentsJSON is the part of install's --json report that says which
// agents it installed for and why.
type agentsJSON struct {
	Agents  []struct{ Agent, Why string } `json:"agents"`
	Results []struct {
		Skill string   `json:"skill"`
		Paths []string `json:"paths"`
	} `json:"results"`
}

// TestInstallDetectsAgents is issue 23's point 7: with no --agent,
// install is for the shared .agents/skills plus the agents installed on
// the machine (a config folder in HOME, a command on PATH), as ccski
// doctor detects them, and says which and how; --agent overrides; on a
// machine with no agent, it keeps the default (.agents/skills and a link
// in .claude/skills) and says so. Before, it always linked .claude/skills
// and never .cursor/skills, whatever was installed.
func TestInstallDetectsAgents(t *testing.T) {
	src := filepath.Join(testfs.TempDir(t), "src")
	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": "---\nname: pdf\ndescription: Read PDFs.\n---\nRead.\n"})
	rel := func(b *installBox, paths []string) string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(b.proj, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		return strings.Join(out, ", ")
	}
	install := func(b *installBox, args ...string) (agentsJSON, result) {
		t.Helper()
		r := b.run(t, append([]string{"install", src, "pdf", "--json"}, args...)...)
		mustOK(t, r)
		var rep agentsJSON
		decodeOnly(t, r, &rep)
		if len(rep.Results) != 1 {
			t.Fatalf("want one result\n%s", r)
		}
		return rep, r
	}
	whys := func(rep agentsJSON) string {
		var out []string
		for _, a := range rep.Agents {
			out = append(out, a.Agent+": "+a.Why)
		}
		return strings.Join(out, "; ")
	}
	// withPath returns vars with PATH replaced by path.
	withPath := func(vars []string, path string) []string {
		var out []string
		for _, v := range vars {
			if !strings.HasPrefix(v, "PATH=") {
				out = append(out, v)
			}
		}
		return append(out, "PATH="+path)
	}

	// Codex (its folder) and Cursor (its command on PATH): the copy in
	// .agents/skills, which Codex reads, and a link for Cursor; none for
	// Claude Code, which is not installed.
	b := newInstallBox(t)
	bin := filepath.Join(b.root, "bin")
	testfs.Write(t, b.root, map[string]string{"home/.codex/config.toml": "", "bin/cursor-agent": "#!/bin/sh\n"})
	if err := os.Chmod(filepath.Join(bin, "cursor-agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	b.vars = withPath(b.vars, bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	rep, r := install(b)
	if got, want := whys(rep), "agents: shared folder; codex: detected: "+filepath.Join(b.home, ".codex")+
		" exists; cursor: detected: cursor-agent on PATH: "+filepath.Join(bin, "cursor-agent"); got != want {
		t.Errorf("agents:\n got %s\nwant %s\n%s", got, want, r)
	}
	if got := rel(b, rep.Results[0].Paths); got != ".agents/skills/pdf, .cursor/skills/pdf" {
		t.Errorf("installed in %s, want .agents/skills/pdf, .cursor/skills/pdf\n%s", got, r)
	}
	// The text report says the same.
	r = b.run(t, "install", src, "pdf", "--dry-run", "--force")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "Agents: agents (shared folder), codex (detected: ") ||
		!strings.Contains(r.stdout, "cursor (detected: cursor-agent on PATH: ") {
		t.Errorf("text report does not say which agents and how\n%s", r)
	}

	// --agent overrides detection.
	b3 := newInstallBox(t)
	b3.vars = b.vars
	rep, r = install(b3, "--agent", "claude")
	if got := whys(rep); got != "claude: --agent" {
		t.Errorf("agents with --agent claude: %s\n%s", got, r)
	}
	if got := rel(b3, rep.Results[0].Paths); got != ".claude/skills/pdf" {
		t.Errorf("installed in %s, want .claude/skills/pdf\n%s", got, r)
	}

	// No agent on the machine: the default, said to be one.
	b4 := newInstallBox(t)
	b4.vars = withPath(b4.vars, filepath.Join(b4.root, "nobin"))
	rep, r = install(b4)
	if got := whys(rep); got != "agents: default: no agent detected; claude: default: no agent detected" {
		t.Errorf("agents on a machine without any: %s\n%s", got, r)
	}
	if got := rel(b4, rep.Results[0].Paths); got != ".agents/skills/pdf, .claude/skills/pdf" {
		t.Errorf("installed in %s, want .agents/skills/pdf, .claude/skills/pdf\n%s", got, r)
	}
}

// TestInstallNamesPluginExtras is issue 23's point 5: installing the
// skills of a plugin that also has hooks, agents, commands and MCP
// servers says exactly which were not installed and how to get them
// (Claude Code's own plugin install), in text and JSON; a plugin of
// skills alone gets no such notice. Before, they were dropped silently.
func TestInstallNamesPluginExtras(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "mk")
	testfs.Write(t, src, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "sp-dev", "owner": {"name": "o"}, "plugins": [
			{"name": "superpowers", "source": "./plugins/superpowers"}, {"name": "plain", "source": "./plugins/plain"}]}`,
		"plugins/superpowers/skills/using-superpowers/SKILL.md": "---\nname: using-superpowers\ndescription: Use skills.\n---\nUse.\n",
		"plugins/superpowers/hooks/hooks.json": `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [
			{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/session-start.sh"}]}]}}`,
		"plugins/superpowers/agents/code-reviewer.md": "---\nname: code-reviewer\ndescription: Review.\n---\n",
		"plugins/superpowers/commands/brainstorm.md":  "Brainstorm.\n",
		"plugins/superpowers/.mcp.json":               `{"mcpServers": {"docs": {"command": "docs-server"}}}`,
		"plugins/plain/skills/pdf/SKILL.md":           "---\nname: pdf\ndescription: Read PDFs.\n---\nRead.\n",
	})
	want := "plugin superpowers also has hooks (hooks/hooks.json: SessionStart), agents (code-reviewer), " +
		"commands (brainstorm), MCP servers (docs), which ccski does not install (it installs skills only): " +
		"to get them, run `claude plugin marketplace add " + src + "` then `claude plugin install superpowers@sp-dev`"
	r := b.run(t, "install", src, "--all", "--dry-run")
	mustOK(t, r)
	if !strings.Contains(r.stderr, want) {
		t.Errorf("want the notice\n%s\n%s", want, r)
	}
	if strings.Contains(r.stderr, "plugin plain") {
		t.Errorf("a plugin of skills alone got a notice\n%s", r)
	}
	var rep struct {
		NotInstalled []struct {
			Plugin, Marketplace, Install        string
			Hooks, Agents, Commands, MCPServers []string
		} `json:"notInstalled"`
	}
	r = b.run(t, "install", src, "pdf", "using-superpowers", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &rep)
	if len(rep.NotInstalled) != 1 {
		t.Fatalf("want one plugin in notInstalled\n%s", r)
	}
	n := rep.NotInstalled[0]
	got := fmt.Sprint(n.Plugin, n.Marketplace, n.Hooks, n.Agents, n.Commands, n.MCPServers)
	if got != "superpowerssp-dev[hooks/hooks.json: SessionStart] [code-reviewer] [brainstorm] [docs]" ||
		!strings.Contains(n.Install, "claude plugin install superpowers@sp-dev") {
		t.Errorf("notInstalled = %s, %q\n%s", got, n.Install, r)
	}
	// Only the plain plugin's skill: nothing to say.
	b2 := newInstallBox(t)
	r = b2.run(t, "install", src, "pdf")
	mustOK(t, r)
	if strings.Contains(r.stderr, "does not install") {
		t.Errorf("a notice for a plugin not installed from\n%s", r)
	}
}
