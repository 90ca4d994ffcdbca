package integration

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// installHostsJSON is the part of install's --json report that says which
// agents reject a skill.
type installHostsJSON struct {
	Results []struct {
		Skill, Status, Message string
		Paths                  []string
		Rejected               []struct {
			Agent, Host, Profile string
			Reasons              []string
			Installed            bool
		}
	}
}

// hostsSource writes a folder of skills shaped like the ones install
// refused for Claude Code (issue 22, point 3), all of which Claude Code
// 2.1.332 loads: wshobson's version: key, Anthropic's claude-api with a
// 1,068-character description, ComposioHQ's requires: key under a name
// with a leading hyphen; and a name over 64 characters, which Claude
// Code loads and Codex 0.171.0 does not.
func hostsSource(t *testing.T, dir string) string {
	t.Helper()
	long := strings.Repeat("n", 65)
	testfs.Write(t, dir, map[string]string{
		"skills/reviewer/SKILL.md": "---\nname: reviewer\ndescription: Review code.\nversion: 1.0.0\n---\nReview.\n",
		"skills/claude-api/SKILL.md": "---\nname: claude-api\ndescription: " +
			strings.Repeat("Build apps with the Claude API. ", 40)[:1068] + "\n---\nBuild.\n",
		"skills/-21risk-automation/SKILL.md": "---\nname: -21risk-automation\ndescription: \"Automate 21Risk tasks " +
			"via Rube MCP (Composio).\"\nrequires:\n  mcp: [rube]\n---\nAutomate.\n\n---\n*Powered by Composio*\n",
		"skills/" + long + "/SKILL.md": "---\nname: " + long + "\ndescription: A long name.\n---\nLong.\n",
	})
	return long
}

// TestInstallJudgesByAgent is issue 22's point 3: install judges each
// skill by the rules of the agents it installs for, installs it for those
// that accept it, and names the others and why, in text and JSON.
// --force no longer skips validation; --no-validate does.
func TestInstallJudgesByAgent(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	long := hostsSource(t, src)

	// Claude Code loads all four: all four are installed for it.
	rep := b.jsonRun(t, 0, "install", src, "--all", "--agent", "claude")
	if got := strings.Join(rep.statuses(), ", "); got != "-21risk-automation installed, claude-api installed, "+
		long+" installed, reviewer installed" {
		t.Fatalf("install --agent claude: %s", got)
	}

	// For Claude Code and Codex: the long name goes to Claude Code alone.
	b2 := newInstallBox(t)
	r := b2.run(t, "install", src, long, "--agent", "claude,codex", "--json")
	mustOK(t, r)
	var hr installHostsJSON
	decodeOnly(t, r, &hr)
	res := hr.Results[0]
	if res.Status != "installed" || len(res.Paths) != 1 || !strings.HasSuffix(res.Paths[0], filepath.Join(".claude", "skills", long)) {
		t.Errorf("want it installed in .claude/skills alone\n%s", r)
	}
	if len(res.Rejected) != 1 || res.Rejected[0].Host != "codex" || res.Rejected[0].Profile != "codex" ||
		!strings.HasPrefix(res.Rejected[0].Reasons[0], "name-too-long: ") {
		t.Errorf("want Codex named as rejecting it for its name\n%s", r)
	}
	r = b2.run(t, "install", "--agent", "claude,codex", "--", src, "reviewer", "-21risk-automation")
	mustOK(t, r)
	if strings.Contains(r.stdout, "reject") {
		t.Errorf("skills both agents load were reported as rejected\n%s", r)
	}

	// For Codex alone the long name fails, in text naming Codex and why;
	// --force does not change that, --no-validate does.
	b3 := newInstallBox(t)
	for _, force := range []string{"--force", "--dry-run"} {
		r = b3.run(t, "install", src, long, "--agent", "codex", force)
		if r.code != 1 || !strings.Contains(r.stdout, "for agents: Codex would reject it (validate --profile codex): name-too-long") ||
			!strings.Contains(r.stdout, "--no-validate") {
			t.Errorf("install --agent codex %s: want a failure naming Codex\n%s", force, r)
		}
	}
	r = b3.run(t, "install", src, long, "--agent", "codex", "--no-validate")
	if r.code != 0 || !strings.Contains(r.stdout, "installed for agents all the same (--no-validate): Codex would reject it") {
		t.Errorf("--no-validate: want it installed with the rejection named\n%s", r)
	}
}

// TestInstallForceAndNoValidate checks that the two flags --force once
// was are apart: --no-validate installs a rejected skill but keeps a
// local edit, --force overwrites the edit but validates.
func TestInstallForceAndNoValidate(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": skillText("pdf", "Read PDFs.")})
	mustOK(t, b.run(t, "install", src, "--agent", "codex"))
	edited := filepath.Join(b.proj, ".agents", "skills", "pdf", "SKILL.md")
	testfs.Write(t, b.proj, map[string]string{".agents/skills/pdf/SKILL.md": skillText("pdf", "My own edit.")})

	rep := b.jsonRun(t, 0, "install", src, "--agent", "codex", "--no-validate")
	if rep.Results[0].Status != "skipped" || !strings.Contains(textOf(t, edited), "My own edit.") {
		t.Errorf("--no-validate overwrote a local edit: %+v", rep.Results[0])
	}
	rep = b.jsonRun(t, 0, "install", src, "--agent", "codex", "--force")
	if rep.Results[0].Status != "updated" || strings.Contains(textOf(t, edited), "My own edit.") {
		t.Errorf("--force did not overwrite the edit: %+v", rep.Results[0])
	}
}

// TestInstallLoadsFlawed is the review of issue 22's point 3: a skill
// whose YAML is indented with a tab is one Claude Code 2.1.332 loads (H6)
// and Codex 0.171.0 drops (H7). install --agent claude installs it and
// says, as a warning, what its profile finds; doctor agrees that Claude
// Code loads it; validate with no PATH lists the flaw as a warning and
// passes; for Codex install refuses it.
func TestInstallLoadsFlawed(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{
		"skills/tabbed/SKILL.md": "---\nname: tabbed\ndescription: Tabs in YAML.\nmetadata:\n\tk: v\n---\nBody.\n",
	})
	r := b.run(t, "install", src, "tabbed", "--agent", "claude")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "installed for claude, a warning: Claude Code loads it, but (validate --profile claude): yaml-tab") ||
		strings.Contains(r.stdout, "would reject") {
		t.Errorf("want it installed for Claude Code, its flaw a warning\n%s", r)
	}
	r = b.run(t, "doctor", "--agent", "claude")
	if r.code != 0 || !strings.Contains(r.stdout, "claude:tabbed  [flawed]") {
		t.Errorf("want doctor to say Claude Code loads it, flawed\n%s", r)
	}
	// validate with no PATH: the flaw is still listed, as a warning, and
	// the run passes, since the one host that reads it loads it.
	r = b.run(t, "validate")
	if r.code != 0 || !strings.Contains(r.stdout, "warning  yaml-tab-indent") {
		t.Errorf("want validate to warn and pass\n%s", r)
	}
	r = b.run(t, "install", src, "tabbed", "--agent", "codex", "--json")
	var hr installHostsJSON
	decodeOnly(t, r, &hr)
	if res := hr.Results[0]; res.Status != "failed" || !strings.Contains(res.Message, "Codex would reject it") ||
		!strings.Contains(res.Message, "yaml-tab") {
		t.Errorf("want Codex to refuse it\n%s", r)
	}
}
