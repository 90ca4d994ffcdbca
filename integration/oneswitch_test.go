package integration

// One switch per skill, whichever agents read it (issue 22, points 4 and
// 7): a skill `ccski install` puts in .agents/skills, linked from
// .claude/skills, is one skill read by Claude Code, Codex and Gemini CLI.
// disable with no --agent turns it off for each of them, enable undoes
// exactly that by either of its ids, a server registered for one host
// never serves what that host turned off, and ccski writes no file for a
// host that is not set up here and leaves none it made behind.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/testfs"
)

// oneSkillTree is a repository with no skills yet, a skill source beside
// it, and a home holding the folders of the hosts given ("claude",
// "codex", "gemini"): the hosts set up on this machine.
func oneSkillTree(t *testing.T, hosts ...string) (switchTree, string) {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	tr := switchTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	files := map[string]string{
		"home/.keep":                       "",
		"src/shared-notes/SKILL.md":        switchSkill("shared-notes"),
		"src/shared-notes/references/x.md": "x\n",
	}
	for _, h := range hosts {
		files["home/."+h+"/"] = ""
	}
	testfs.Write(t, base, files)
	if err := os.MkdirAll(tr.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	git := exec.Command("git", "init", "-q", tr.ws)
	git.Env = tr.env()
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return tr, filepath.Join(base, "src", "shared-notes")
}

// hostsOf returns the hosts of the results with the given status, sorted.
func hostsOf(out toggleOut, status string) []string {
	var hs []string
	for _, r := range out.Results {
		if r.Status == status {
			hs = append(hs, r.Host)
		}
	}
	slices.Sort(hs)
	return hs
}

// served is what `ccski mcp` gives one client.
type served struct {
	// skills are the ids of the skill tool's catalogue; prompts the
	// names of prompts/list; resources the URIs of resources/list.
	skills, prompts, resources []string
	// loadErr is the error of loading the skill asked for, "" when it
	// loaded.
	loadErr string
}

// has reports whether any of what was served mentions name.
func (s served) has(name string) bool {
	for _, l := range [][]string{s.skills, s.prompts, s.resources} {
		for _, x := range l {
			if strings.Contains(x, name) {
				return true
			}
		}
	}
	return s.loadErr == ""
}

// servedTo starts `ccski mcp` with args as clientName would, and returns
// what it serves: its catalogue, prompts and resources, and whether name
// loads through the skill tool.
func servedTo(t *testing.T, tr switchTree, clientName, name string, args ...string) served {
	t.Helper()
	ctx := mcpContext(t)
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, append([]string{"mcp", "--no-refresh"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stderr = tr.ws, tr.env(), stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, nil).Connect(ctx,
		&sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	defer cs.Close()
	var out served
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v\n%s", err, tools, stderr)
	}
	if desc := tools.Tools[0].Description; !strings.Contains(desc, "No skills are installed") {
		// The catalogue names each skill by its shortest name; listSkills
		// loads each to learn its id.
		es, _, err := listSkills(ctx, cs)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		out.skills = entryIDs(es)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatalf("prompts/list: %v\n%s", err, stderr)
	}
	for _, p := range prompts.Prompts {
		out.prompts = append(out.prompts, p.Name)
	}
	res, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatalf("resources/list: %v\n%s", err, stderr)
	}
	for _, r := range res.Resources {
		out.resources = append(out.resources, r.URI)
	}
	if _, err := loadSkill(ctx, cs, name); err != nil {
		out.loadErr = err.Error()
	}
	return out
}

// TestOneSwitchPerFolder: the installed skill is one skill for switches.
func TestOneSwitchPerFolder(t *testing.T) {
	tr, src := oneSkillTree(t, "claude", "codex", "gemini")
	mustOK(t, tr.run(t, "install", src))

	out := tr.toggle(t, 0, "disable", "shared-notes")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude", "codex", "gemini"}) {
		t.Fatalf("disable with no --agent switched %v, want every agent that reads the folder: %+v", got, out)
	}
	if ids, _ := tr.listed(t, false); len(ids) != 0 {
		t.Errorf("after disable, list shows %v, want nothing", ids)
	}
	ids, off := tr.listed(t, true)
	if len(ids) != 2 || len(off[ids[0]]) != 3 || len(off[ids[1]]) != 3 {
		t.Errorf("list --all: %v %v, want the folder's two records, each off for three agents", ids, off)
	}
	// The README's Claude Code registration serves nothing of it.
	if s := servedTo(t, tr, "t", "shared-notes", "--exclude", "claude"); s.has("shared-notes") {
		t.Errorf("mcp --exclude claude serves the skill after disable: %+v", s)
	}

	// enable by the other id undoes exactly what disable did.
	out = tr.toggle(t, 0, "enable", "agents:shared-notes")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude", "codex", "gemini"}) {
		t.Fatalf("enable switched %v, want the three disable switched: %+v", got, out)
	}
	if ids, off := tr.listed(t, false); len(ids) != 1 || len(off) != 0 {
		t.Errorf("after enable: %v %v, want the skill on", ids, off)
	}

	// Off in Claude Code only: the shared view still lists it, Claude's
	// view and a server for Claude Code do not, by either id.
	out = tr.toggle(t, 0, "disable", "agents:shared-notes", "--agent", "claude")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude"}) {
		t.Fatalf("disable --agent claude switched %v: %+v", got, out)
	}
	if ids, _ := tr.listed(t, false); len(ids) != 1 {
		t.Errorf("off for Claude Code only: list shows %v, want it (Codex and Gemini CLI load it)", ids)
	}
	r := tr.run(t, "list", "--json", "--agent", "claude")
	mustOK(t, r)
	if strings.Contains(r.stdout, "shared-notes") {
		t.Errorf("list --agent claude shows the skill Claude Code turned off:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"--exclude", "claude", "--agent", "claude"}, {"--agent", "claude"}} {
		if s := servedTo(t, tr, "t", "shared-notes", args...); s.has("shared-notes") || !strings.Contains(s.loadErr, "off in Claude Code") {
			t.Errorf("mcp %v serves %+v; want nothing, off in Claude Code", args, s)
		}
	}
	out = tr.toggle(t, 0, "enable", "shared-notes")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude"}) {
		t.Errorf("enable after disable --agent claude switched %v, want claude: %+v", got, out)
	}
}

// TestSwitchAbsentHosts: on a machine with Claude Code only, disable
// writes nothing for Codex or Gemini CLI, enable leaves no file ccski
// made, and the settings.local.json ccski creates is git-ignored as
// Claude Code ignores it.
func TestSwitchAbsentHosts(t *testing.T) {
	tr, src := oneSkillTree(t, "claude")
	mustOK(t, tr.run(t, "install", src))
	before := filesUnder(t, tr.home)

	out := tr.toggle(t, 0, "disable", "shared-notes")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude"}) {
		t.Fatalf("disable switched %v, want claude alone: %+v", got, out)
	}
	// Off in every host set up here: off.
	if ids, _ := tr.listed(t, false); len(ids) != 0 {
		t.Errorf("off in Claude Code, the one host set up here, the skill is still listed: %v", ids)
	}
	for _, f := range []string{".codex/config.toml", ".gemini/settings.json"} {
		if _, err := os.Lstat(filepath.Join(tr.home, f)); err == nil {
			t.Errorf("disable created ~/%s for a host that is not set up", f)
		}
	}
	if _, err := os.Lstat(filepath.Join(tr.ws, ".gemini")); err == nil {
		t.Error("disable created the project's .gemini")
	}
	local := filepath.Join(tr.ws, ".claude", "settings.local.json")
	if _, err := os.Stat(local); err != nil {
		t.Fatalf("no settings.local.json: %v", err)
	}
	ignore := filepath.Join(tr.home, ".config", "git", "ignore")
	if got := string(readFile(t, ignore)); got != "**/.claude/settings.local.json\n" {
		t.Errorf("global git ignore file holds %q, want Claude Code's rule", got)
	}
	if c := exec.Command("git", "check-ignore", "-q", ".claude/settings.local.json"); true {
		c.Dir, c.Env = tr.ws, tr.env()
		if err := c.Run(); err != nil {
			t.Errorf("git check-ignore .claude/settings.local.json: %v, want it ignored", err)
		}
	}

	out = tr.toggle(t, 0, "enable", "shared-notes")
	if got := hostsOf(out, "changed"); !slices.Equal(got, []string{"claude"}) {
		t.Fatalf("enable switched %v: %+v", got, out)
	}
	if _, err := os.Lstat(local); err == nil {
		t.Errorf("enable left the settings.local.json ccski made: %q", readFile(t, local))
	}
	after := filesUnder(t, tr.home)
	for _, f := range after {
		if !slices.Contains(before, f) && f != ".config/git/ignore" {
			t.Errorf("disable then enable left ~/%s", f)
		}
	}

	// A file the user had stays, even when enable empties it.
	putFile(t, local, []byte("{\"skillOverrides\": {\"shared-notes\": \"off\"}}\n"))
	tr.toggle(t, 0, "enable", "shared-notes")
	if got := string(readFile(t, local)); got == "" {
		t.Error("enable removed a settings.local.json the user wrote")
	}
}

// filesUnder lists the files below dir, relative, but ccski's own state.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (rel == ".config/ccski" || rel == ".local") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSwitchDisabledPluginOtherHost: asking Codex to turn off a skill of
// a disabled Claude plugin answers for Codex, not for Claude Code.
func TestSwitchDisabledPluginOtherHost(t *testing.T) {
	tr := newSwitchTree(t)
	tr.toggle(t, 0, "disable", "linter:lint-fix")
	out := tr.toggle(t, 0, "disable", "linter:lint-fix", "--agent", "codex")
	if len(out.Results) != 1 || out.Results[0].Host != "codex" || out.Results[0].Status != "skipped" ||
		!strings.Contains(out.Results[0].Note, "Codex does not read") {
		t.Errorf("disable --agent codex of a disabled Claude plugin's skill: %+v", out.Results)
	}
}

// TestDisabledCanBeFound: the skills of a disabled plugin are listed by
// list --disabled and --all and found by search, each with why it is off
// and the command that turns it on; --all shows the linked copy of a
// skill the default list counts as hidden.
func TestDisabledCanBeFound(t *testing.T) {
	tr := newSwitchTree(t)
	tr.toggle(t, 0, "disable", "linter:lint-fix")
	enable := "ccski enable " + switchPluginID
	for _, args := range [][]string{{"list", "--disabled"}, {"list", "--all"}, {"search", "lint"}} {
		r := tr.run(t, args...)
		mustOK(t, r)
		for _, want := range []string{switchPluginID, "claude:@linter:lint-check", switchPluginKey, enable} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v does not say %q:\n%s", args, want, r.stdout)
			}
		}
	}
	r := tr.run(t, "list", "--all", "--json")
	mustOK(t, r)
	if strings.Contains(r.stdout, switchPluginID) {
		t.Errorf("list --json, whose every id resolves to a record, lists %s, which has none", switchPluginID)
	}
	// Not in the default list, which says how to see them.
	r = tr.run(t, "list")
	mustOK(t, r)
	if strings.Contains(r.stdout, switchPluginID) || !strings.Contains(r.stdout, "--disabled") {
		t.Errorf("default list:\n%s", r.stdout)
	}

	// The linked copy --all promises.
	tr2, src := oneSkillTree(t, "claude")
	mustOK(t, tr2.run(t, "install", src))
	r = tr2.run(t, "list")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "--all shows") {
		t.Fatalf("default list says nothing of the linked copy:\n%s", r.stdout)
	}
	r = tr2.run(t, "list", "--all")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "agents:shared-notes") || !strings.Contains(r.stdout, "claude:shared-notes") {
		t.Errorf("list --all does not show both copies of the linked folder:\n%s", r.stdout)
	}
}

// TestRegisteredHostNeverServesDisabled: each host registered as the
// README says (its --agent and --exclude) is never served a skill that
// host turned off, by the catalogue, the skill tool, prompts or
// resources; and a server registered without --agent recognises Claude
// Code, Codex and Gemini CLI by their clientInfo and takes their view.
func TestRegisteredHostNeverServesDisabled(t *testing.T) {
	tr, src := oneSkillTree(t, "claude", "codex", "gemini")
	testfs.Write(t, tr.home, map[string]string{
		".codex/skills/codex-tool/SKILL.md":   switchSkill("codex-tool"),
		".claude/skills/claude-tool/SKILL.md": switchSkill("claude-tool"),
	})
	mustOK(t, tr.run(t, "install", src))
	hosts := []struct {
		name, client string
		agent        string   // the host whose own switch turns the skill off ("" for all of them)
		args         []string // the README's registration
		control      string   // a skill the host does not load itself, which it is served
	}{
		{"Claude Code", "claude-code", "claude", []string{"--agent", "claude", "--exclude", "claude"}, "codex-tool"},
		{"Codex", "codex-mcp-client", "codex", []string{"--agent", "codex", "--exclude", "codex,agents"}, "claude-tool"},
		{"Gemini CLI", "gemini-cli-mcp-client", "gemini", []string{"--agent", "gemini", "--exclude", "gemini,agents"}, "claude-tool"},
		{"Cursor", "cursor-vscode", "", []string{"--exclude", "cursor"}, "codex-tool"},
		{"GitHub Copilot", "Visual Studio Code", "", []string{"--exclude", "copilot,agents"}, "claude-tool"},
	}
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) {
			args := []string{"disable", "shared-notes"}
			if h.agent != "" {
				args = append(args, "--agent", h.agent)
			}
			tr.toggle(t, 0, args...)
			defer tr.toggle(t, 0, "enable", "shared-notes")
			s := servedTo(t, tr, h.client, "shared-notes", h.args...)
			if s.has("shared-notes") {
				t.Errorf("%s, registered as the README says, is served the skill it turned off: %+v", h.name, s)
			}
			if !slices.Contains(s.skills, "codex:"+h.control) && !slices.Contains(s.skills, "claude:"+h.control) {
				t.Errorf("%s is not served %s, which it does not load itself: %+v", h.name, h.control, s)
			}
			if h.agent == "" {
				return
			}
			// Registered without --agent (the README's snippets before),
			// the client's name picks the view.
			old := h.args[2:] // without "--agent", h.agent
			if s := servedTo(t, tr, h.client, "shared-notes", old...); s.has("shared-notes") {
				t.Errorf("%s registered with %v is served the skill it turned off: %+v", h.name, old, s)
			}
			// Another client of the same server is served the shared view,
			// where Codex and Gemini CLI still load it.
			if h.agent == "claude" {
				if s := servedTo(t, tr, "other-client", "shared-notes"); !slices.Contains(s.skills, "agents:shared-notes") &&
					!slices.Contains(s.skills, "claude:shared-notes") {
					t.Errorf("a client of no host is not served a skill only Claude Code turned off: %+v", s)
				}
			}
		})
	}
}
