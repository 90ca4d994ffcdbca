package integration

// Tests of the providers for the hosts' newer skill places, on one machine
// laid out as each host installs them:
//
//   - Codex plugins: superpowers from the marketplace superpowers-dev,
//     installed in $CODEX_HOME/plugins/cache in two versions (6.1.0 and
//     6.2.0, the active one) and enabled in config.toml; linear from
//     openai-curated, installed and disabled there.
//   - GitHub Copilot: the repository's .github/skills/x, the user's
//     ~/.copilot/skills/y, and team-skills/ named by
//     chat.agentSkillsLocations in .vscode/settings.json (JSON with
//     comments and trailing commas, as VS Code writes it).
//   - Cursor: z in both .cursor/skills and ~/.cursor/skills; the
//     project's copy wins.
//   - Gemini CLI extensions: conductor, enabled, with a skill, and tdd-kit,
//     disabled for the workspace in extension-enablement.json.
//
// The binary is driven as a user does: list, sources, info and the MCP
// skill tool. Without the four providers the .github folder is a dynamic
// agent (github:x), the Copilot settings, the plugin cache and the
// extensions are not read, and no host rule names Copilot or Cursor, so
// every check below fails.

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// providersTree is the machine of these tests, built in a temporary folder.
type providersTree struct {
	home, ws string
	// codexConfig is Codex's user config.toml, enablementFile Gemini CLI's
	// extension-enablement.json.
	codexConfig, enablementFile string
	// superpowers is the active install of the enabled Codex plugin,
	// conductor the enabled Gemini CLI extension's folder.
	superpowers, conductor string
}

// The skills the tree's hosts load, written byte for byte so that a load
// over MCP can be compared with them.
const (
	brainstormingMD = "---\nname: brainstorming\ndescription: Turn a rough idea into a design before writing code.\n---\n" +
		"# Brainstorming\n\nAsk one question at a time.\n"
	setupMD = "---\nname: setup\ndescription: Set up Conductor's context files for the project.\n---\n" +
		"# Setup\n\nWrite product.md, tech-stack.md and workflow.md.\n"
)

func newProvidersTree(t *testing.T) providersTree {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	p := providersTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	codex := filepath.Join(p.home, ".codex")
	exts := filepath.Join(p.home, ".gemini", "extensions")
	p.codexConfig = filepath.Join(codex, "config.toml")
	p.enablementFile = filepath.Join(exts, "extension-enablement.json")
	p.superpowers = filepath.Join(codex, "plugins", "cache", "superpowers-dev", "superpowers", "6.2.0")
	p.conductor = filepath.Join(exts, "conductor")

	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
	}
	// Gemini CLI writes a workspace rule as the folder in forward slashes,
	// with a leading and a trailing one, and "*" for its sub-folders.
	wsRule := filepath.ToSlash(p.ws)
	if !strings.HasPrefix(wsRule, "/") {
		wsRule = "/" + wsRule
	}
	const cache = "home/.codex/plugins/cache/"
	testfs.Write(t, base, map[string]string{
		"home/.codex/config.toml": "# Codex user configuration, as the Codex CLI and app write it.\n" +
			"model = \"gpt-5.2-codex\"\napproval_policy = \"on-request\"\n\n" +
			fmt.Sprintf("[projects.%q]\ntrust_level = \"trusted\"\n\n", p.ws) +
			"# Installed from the superpowers-dev marketplace.\n" +
			"[plugins.\"superpowers@superpowers-dev\"]\nenabled = true\n\n" +
			"# Turned off in the /plugins picker.\n" +
			"[plugins.\"linear@openai-curated\"]\nenabled = false\n",
		cache + "superpowers-dev/superpowers/6.1.0/.codex-plugin/plugin.json": `{"name": "superpowers", "version": "6.1.0", "skills": "./skills/"}`,
		cache + "superpowers-dev/superpowers/6.1.0/skills/old-skill/SKILL.md": skill("old-skill", "Only in the superseded 6.1.0 install."),
		cache + "superpowers-dev/superpowers/6.1.0/skills/brainstorming/SKILL.md": skill("brainstorming",
			"The 6.1.0 copy, which Codex does not load."),
		cache + "superpowers-dev/superpowers/6.2.0/.codex-plugin/plugin.json": `{
  "name": "superpowers",
  "version": "6.2.0",
  "description": "Planning, TDD, debugging and review workflows for coding agents.",
  "author": {"name": "Example Author"},
  "skills": "./skills/",
  "interface": {"displayName": "Superpowers", "category": "Developer Tools"}
}`,
		cache + "superpowers-dev/superpowers/6.2.0/skills/brainstorming/SKILL.md": brainstormingMD,
		cache + "superpowers-dev/superpowers/6.2.0/skills/systematic-debugging/SKILL.md": skill("systematic-debugging",
			"Find the root cause of a bug before fixing it."),
		cache + "openai-curated/linear/3f2a9c1e/.codex-plugin/plugin.json": `{"name": "linear", "version": "3f2a9c1e", "skills": "./skills/", "apps": "./.app.json"}`,
		cache + "openai-curated/linear/3f2a9c1e/skills/triage/SKILL.md":    skill("triage", "Triage new Linear issues."),

		"work/repo/.git/":                              "",
		"work/repo/.github/skills/x/SKILL.md":          skill("x", "The repository's x, for Copilot."),
		"work/repo/.github/workflows/ci.yml":           "name: ci\non: [push]\n",
		"work/repo/.github/copilot-instructions.md":    "Use Go 1.26.\n",
		"home/.copilot/skills/y/SKILL.md":              skill("y", "The user's y, for Copilot."),
		"work/repo/team-skills/release-notes/SKILL.md": skill("release-notes", "Write the release notes."),
		"work/repo/.vscode/settings.json": `{
  // Formatting
  "editor.formatOnSave": true,

  /* Agent skills: the team's shared folder.
     .claude/skills is Claude Code's; Copilot is told to leave it alone. */
  "chat.agentSkillsLocations": {
    "team-skills": true,
    ".claude/skills": false,
  },
}
`,

		"work/repo/.cursor/skills/z/SKILL.md": skill("z", "The project's z, for Cursor."),
		"work/repo/.cursor/rules/go.mdc":      "---\ndescription: Go style\n---\nUse gofmt.\n",
		"home/.cursor/skills/z/SKILL.md":      skill("z", "The user's z, for Cursor."),
		"home/.cursor/argv.json":              "{}\n",

		"home/.gemini/settings.json": `{"ui": {"theme": "GitHub"}}`,
		"home/.gemini/extensions/conductor/gemini-extension.json": `{
  "name": "conductor",
  "version": "0.3.1",
  "description": "Context-driven development: specs, plans and tracks.",
  "contextFileName": "GEMINI.md"
}`,
		"home/.gemini/extensions/conductor/.gemini-extension-install.json": `{"source": "https://github.com/example/conductor", "type": "git"}`,
		"home/.gemini/extensions/conductor/GEMINI.md":                      "# Conductor\n",
		"home/.gemini/extensions/conductor/skills/setup/SKILL.md":          setupMD,
		"home/.gemini/extensions/tdd-kit/gemini-extension.json":            `{"name": "tdd-kit", "version": "1.0.0"}`,
		"home/.gemini/extensions/tdd-kit/skills/red-green/SKILL.md":        skill("red-green", "Write a failing test first."),
		"home/.gemini/extensions/extension-enablement.json": mustJSON(t, map[string]any{
			"tdd-kit": map[string]any{"overrides": []string{"!" + wsRule + "/*"}}}),
	})
	return p
}

// run runs the binary in the workspace with the tree's user folder.
func (p providersTree) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, p.ws, env(&machine.Machine{Home: p.home}, nil), append(args, "--user-dir", p.home)...)
}

// records lists the visible records.
func (p providersTree) records(t *testing.T) []record {
	t.Helper()
	r := p.run(t, "list", "--json")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	return recs
}

// providerRecord is what TestProvidersList compares of a record.
type providerRecord struct {
	ID, Name, Provider, Location, Path string
	// Plugin is "<plugin>@<marketplace> <version>", or "".
	Plugin string
}

func TestProvidersList(t *testing.T) {
	p := newProvidersTree(t)
	var got []providerRecord
	for _, r := range p.records(t) {
		pr := providerRecord{ID: r.ID, Name: r.Name, Provider: r.Provider, Location: r.Location, Path: r.Path}
		if r.PluginInfo != nil {
			pr.Plugin = r.PluginInfo.PluginName + "@" + r.PluginInfo.Marketplace + " " + r.PluginInfo.Version
		}
		got = append(got, pr)
	}
	slices.SortFunc(got, func(a, b providerRecord) int { return strings.Compare(a.ID, b.ID) })
	skills := filepath.Join(p.superpowers, "skills")
	want := []providerRecord{
		{"codex:@superpowers:brainstorming", "superpowers:brainstorming", "codex", "plugin",
			filepath.Join(skills, "brainstorming"), "superpowers@superpowers-dev 6.2.0"},
		{"codex:@superpowers:systematic-debugging", "superpowers:systematic-debugging", "codex", "plugin",
			filepath.Join(skills, "systematic-debugging"), "superpowers@superpowers-dev 6.2.0"},
		{"copilot:release-notes", "release-notes", "copilot", "project",
			filepath.Join(p.ws, "team-skills", "release-notes"), ""},
		{"copilot:x", "x", "copilot", "project", filepath.Join(p.ws, ".github", "skills", "x"), ""},
		{"copilot:y", "y", "copilot", "user", filepath.Join(p.home, ".copilot", "skills", "y"), ""},
		{"cursor@project:z", "z", "cursor", "project", filepath.Join(p.ws, ".cursor", "skills", "z"), ""},
		{"gemini:@conductor:setup", "conductor:setup", "gemini", "plugin",
			filepath.Join(p.conductor, "skills", "setup"), "conductor@gemini-extensions 0.3.1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list --json (-want +got):\n%s", diff)
	}
}

// providersSources is the part of `ccski sources --json` these tests read.
type providersSources struct {
	Precedence []struct {
		Providers []string `json:"providers"`
		Prefer    string   `json:"prefer"`
		Option    string   `json:"option"`
		Rule      string   `json:"rule"`
	} `json:"precedence"`
	Roots []struct {
		Path, Provider, Source, Location, Kind string
		Exists                                 bool
		Skills                                 int
		PluginInfo                             *struct {
			PluginName, Marketplace, Version string
		}
	} `json:"roots"`
	Diagnostics []struct {
		Severity, Code, Provider, Path, Message string
	} `json:"diagnostics"`
	Hidden []struct {
		ID, Reason, By string
	} `json:"hidden"`
}

// newProviders are the provider plugins under test, as `ccski sources
// --json` names them in a root's "source".
var newProviders = []string{"codex_plugins", "copilot", "cursor", "gemini_extensions"}

func TestProvidersSourcesJSON(t *testing.T) {
	p := newProvidersTree(t)
	r := p.run(t, "sources", "--json")
	mustOK(t, r)
	var s providersSources
	decodeOnly(t, r, &s)

	// Each provider's roots, in the order sources lists them: the old
	// Codex install, the disabled plugin and the disabled extension have
	// none.
	type root struct {
		Source, Provider, Location, Kind, Path, Plugin string
		Skills                                         int
	}
	var roots []root
	for _, rt := range s.Roots {
		if !slices.Contains(newProviders, rt.Source) {
			continue
		}
		got := root{rt.Source, rt.Provider, rt.Location, rt.Kind, rt.Path, "", rt.Skills}
		if rt.PluginInfo != nil {
			got.Plugin = rt.PluginInfo.PluginName + "@" + rt.PluginInfo.Marketplace + " " + rt.PluginInfo.Version
		}
		if !rt.Exists {
			got.Skills = -1
		}
		roots = append(roots, got)
	}
	want := []root{
		{"copilot", "copilot", "project", "workspace-agent", filepath.Join(p.ws, ".github", "skills"), "", 1},
		{"copilot", "copilot", "project", "workspace-agent", filepath.Join(p.ws, "team-skills"), "", 1},
		{"copilot", "copilot", "user", "user-agent", filepath.Join(p.home, ".copilot", "skills"), "", 1},
		{"cursor", "cursor", "project", "workspace-agent", filepath.Join(p.ws, ".cursor", "skills"), "", 1},
		{"cursor", "cursor", "user", "user-agent", filepath.Join(p.home, ".cursor", "skills"), "", 1},
		{"codex_plugins", "codex", "plugin", "plugin", filepath.Join(p.superpowers, "skills"),
			"superpowers@superpowers-dev 6.2.0", 2},
		{"gemini_extensions", "gemini", "plugin", "plugin", filepath.Join(p.conductor, "skills"),
			"conductor@gemini-extensions 0.3.1", 1},
	}
	if diff := cmp.Diff(want, roots); diff != "" {
		t.Errorf("roots of %v (-want +got):\n%s", newProviders, diff)
	}

	// Copilot's and Cursor's rules for their project and user copies.
	type rule struct{ Providers, Prefer, Option, Rule string }
	rules := map[string]rule{}
	for _, pr := range s.Precedence {
		k := strings.Join(pr.Providers, ",")
		rules[k] = rule{k, pr.Prefer, pr.Option, pr.Rule}
	}
	for _, w := range []rule{
		{"copilot", "project", "providers.copilot.precedence",
			"GitHub Copilot ranks project skills over personal ones (providers.copilot.precedence: project)"},
		{"cursor", "project", "providers.cursor.precedence",
			"Cursor documents no order; ccski ranks project over personal (providers.cursor.precedence: project)"},
	} {
		if got := rules[w.Providers]; got != w {
			t.Errorf("precedence of %s = %+v, want %+v", w.Providers, got, w)
		}
	}

	// The user's Cursor copy is hidden by the project's, under Cursor's rule.
	var cursorHidden []string
	for _, h := range s.Hidden {
		if strings.HasPrefix(h.ID, "cursor") {
			cursorHidden = append(cursorHidden, h.ID+" by "+h.By+": "+h.Reason)
		}
	}
	wantHidden := []string{"cursor@user:z by cursor@project:z: shadowed by cursor@project:z " +
		"(Cursor documents no order; ccski ranks project over personal (providers.cursor.precedence: project))"}
	if diff := cmp.Diff(wantHidden, cursorHidden); diff != "" {
		t.Errorf("hidden Cursor copies (-want +got):\n%s", diff)
	}

	// The disabled plugin and extension are reported with where to turn
	// them on.
	type diag struct{ Severity, Code, Provider, Path, Message string }
	var diags []diag
	for _, d := range s.Diagnostics {
		if d.Code == "plugin-disabled" || d.Code == "extension-disabled" {
			diags = append(diags, diag(d))
		}
	}
	wantDiags := []diag{
		{"info", "plugin-disabled", "codex", p.codexConfig, "plugin linear@openai-curated is disabled in " +
			p.codexConfig + `; set enabled = true in its [plugins."linear@openai-curated"] table to load its skills`},
		{"info", "extension-disabled", "gemini", p.enablementFile, "extension tdd-kit is disabled for " + p.ws +
			" in " + p.enablementFile + "; run `gemini extensions enable tdd-kit` to load its skills"},
	}
	if diff := cmp.Diff(wantDiags, diags); diff != "" {
		t.Errorf("disabled-plugin diagnostics (-want +got):\n%s", diff)
	}
}

func TestProvidersSourcesText(t *testing.T) {
	p := newProvidersTree(t)
	r := p.run(t, "sources", "--no-color")
	mustOK(t, r)
	// Columns are padded and long lines wrapped at COLUMNS: compare with
	// runs of white space made single spaces.
	text := strings.Join(strings.Fields(r.stdout), " ")
	for _, want := range []string{
		"✓ copilot project 1 skill " + filepath.Join(p.ws, ".github", "skills"),
		"✓ copilot project 1 skill " + filepath.Join(p.ws, "team-skills"),
		"✓ codex plugin superpowers@superpowers-dev 2 skills " + filepath.Join(p.superpowers, "skills"),
		"✓ gemini plugin conductor@gemini-extensions 1 skill " + filepath.Join(p.conductor, "skills"),
		"- copilot: GitHub Copilot ranks project skills over personal ones (providers.copilot.precedence: project)",
		"- cursor: Cursor documents no order; ccski ranks project over personal (providers.cursor.precedence: project)",
		"cursor@user:z shadowed by cursor@project:z (Cursor documents no order;",
		"info [plugin-disabled] " + p.codexConfig,
		"info [extension-disabled] " + p.enablementFile,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("sources lacks %q\n%s", want, r)
		}
	}
}

// TestProvidersInfoDisabled asks for the skills of the disabled Codex
// plugin and Gemini CLI extension, by qualified and by bare name: each
// answer names the plugin and how to enable it.
func TestProvidersInfoDisabled(t *testing.T) {
	p := newProvidersTree(t)
	codexHint := "plugin linear is disabled (enable it in " + p.codexConfig +
		`: [plugins."linear@openai-curated"] enabled = true)`
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"linear:triage", []string{`"linear:triage" is not available: ` + codexHint}},
		{"triage", []string{`"triage" is not available: it names the skill linear:triage, but ` + codexHint}},
		{"tdd-kit:red-green", []string{`"tdd-kit:red-green" is not available: plugin tdd-kit is disabled`,
			"`gemini extensions enable tdd-kit`", p.enablementFile}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := p.run(t, "info", tt.name)
			if r.code != 1 {
				t.Errorf("want exit 1\n%s", r)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q\n%s", w, r)
				}
			}
		})
	}
}

// TestProvidersMCP loads a Codex plugin skill and a Gemini CLI extension
// skill by their qualified names over stdio: the header names the plugin
// and the active version, and SKILL.md follows byte for byte. A skill of
// the disabled Codex plugin is refused naming where to enable it.
func TestProvidersMCP(t *testing.T) {
	p := newProvidersTree(t)
	byID := map[string]record{}
	for _, r := range p.records(t) {
		byID[r.ID] = r
	}
	for _, pv := range protocols {
		t.Run(pv.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cs, stderr := p.serve(t, ctx, pv.version)
			entries := mustSkills(t, ctx, cs, stderr)
			for _, tt := range []struct{ id, name, body string }{
				{"codex:@superpowers:brainstorming", "superpowers:brainstorming", brainstormingMD},
				{"gemini:@conductor:setup", "conductor:setup", setupMD},
			} {
				rec, ok := byID[tt.id]
				if !ok {
					t.Fatalf("list --json lacks %s", tt.id)
				}
				e, ok := findEntry(entries, tt.id)
				if want := (skillEntry{rec.ID, rec.Description, rec.Provider, rec.Location}); !ok || e != want {
					t.Errorf("skill tool entry %s = %+v (listed %v), want %+v", tt.id, e, ok, want)
				}
				text, err := loadSkill(ctx, cs, tt.name)
				if err != nil {
					t.Errorf("%v\nstderr:\n%s", err, stderr)
					continue
				}
				if want := loadHeader(rec) + "\n" + tt.body; text != want {
					t.Errorf("load %s (-want +got):\n%s", tt.name, cmp.Diff(want, text))
				}
			}
			msg := loadError(t, ctx, cs, "linear:triage")
			if want := "plugin linear is disabled"; !strings.Contains(msg, want) ||
				!strings.Contains(msg, p.codexConfig+`: [plugins."linear@openai-curated"] enabled = true`) {
				t.Errorf("load linear:triage: %q, want it to say %q and where to enable it", msg, want)
			}
		})
	}
}

// serve starts `ccski mcp` on the tree over stdio, with an hour between
// rescans, and connects a client with protocol setting pv.
func (p providersTree) serve(t *testing.T, ctx context.Context, pv string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, "mcp", "--refresh-interval", "1h", "--user-dir", p.home)
	cmd.Dir, cmd.Env, cmd.Stderr = p.ws, env(&machine.Machine{Home: p.home}, nil), stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "providers-test", Version: "0"}, nil).Connect(ctx,
		&sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("connect (protocol %q): %v\nstderr:\n%s", pv, err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}
