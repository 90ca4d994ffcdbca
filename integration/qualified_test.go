package integration

// Regression tests for qualified names on a machine laid out like a real
// Claude Code install: the commands of two plugins from two marketplaces
// share the name "setup", the plugin document-skills has a docx skill
// while the project has its own .claude/skills/docx, a project skill and
// a project command share the name "deploy", a skill has a user and a
// project copy, and the plugins superpowers (in its own cache folder) and
// claude-api (sharing the anthropic-agent-skills clone with
// document-skills, as on a real machine) are installed but disabled. The
// binary is driven as a user and an MCP client do: list, info and
// `ccski mcp` over stdio.

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// qualifiedTree is the regression machine, built in a temporary folder.
type qualifiedTree struct {
	home, ws string
	// settings is the user settings file that disables superpowers and
	// claude-api.
	settings string
}

// The files whose bytes the tests compare; the plugin's docx has CRLF
// line endings and non-ASCII text, which a load must keep.
const (
	shipMateSetup  = "---\ndescription: Set up ship-mate for a repository.\nargument-hint: [repo]\n---\nShip-mate: prepare $ARGUMENTS for releases.\n"
	conductorSetup = "---\ndescription: Set up conductor tracks.\n---\nConductor: create the tracks of $ARGUMENTS.\n"
	pluginDocx     = "---\r\nname: docx\r\ndescription: Create and edit Word documents (plugin).\r\n---\r\n# DOCX — the plugin's skill\r\n\r\nUse python-docx; « Zeichen » stay as written.\r\n"
	localDocx      = "---\nname: docx\ndescription: The project's own docx conventions.\n---\n# Project docx\n\nUse the house template.\n"
	deploySkill    = "---\nname: deploy\ndescription: How this project deploys.\n---\n# Deploy skill\n"
	deployCommand  = "---\ndescription: Deploy now.\n---\nDeploy $1.\n"
)

func newQualifiedTree(t *testing.T) qualifiedTree {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	q := qualifiedTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	q.settings = filepath.Join(q.home, ".claude", "settings.json")
	plugins := filepath.Join(q.home, ".claude", "plugins")
	mustJSON := func(v any) string {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	type obj = map[string]any
	market := func(name string, entries ...obj) string {
		return mustJSON(obj{"name": name, "owner": obj{"name": name + " maintainers"}, "plugins": entries})
	}
	install := func(path, version string) []obj {
		return []obj{{"scope": "user", "installPath": path, "version": version,
			"installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}
	}
	cache := func(m, p, v string) string { return filepath.Join(plugins, "cache", m, p, v) }
	known := obj{}
	for _, m := range []string{"harbor", "orchestra", "anthropic-agent-skills", "superpowers-marketplace"} {
		known[m] = obj{"source": obj{"source": "github", "repo": "example/" + m},
			"installLocation": filepath.Join(plugins, "marketplaces", m), "lastUpdated": "2025-01-01T00:00:00.000Z"}
	}
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json": mustJSON(obj{"enabledPlugins": obj{
			"ship-mate@harbor": true, "conductor@orchestra": true,
			"document-skills@anthropic-agent-skills": true, "superpowers@superpowers-marketplace": false,
			"claude-api@anthropic-agent-skills": false}}),
		"home/.claude/plugins/known_marketplaces.json": mustJSON(known),
		"home/.claude/plugins/installed_plugins.json": mustJSON(obj{"version": 2, "plugins": obj{
			"ship-mate@harbor":                       install(cache("harbor", "ship-mate", "1.0.0"), "1.0.0"),
			"conductor@orchestra":                    install(cache("orchestra", "conductor", "2.3.0"), "2.3.0"),
			"document-skills@anthropic-agent-skills": install(filepath.Join(plugins, "marketplaces", "anthropic-agent-skills"), "1.0.0"),
			"claude-api@anthropic-agent-skills":      install(filepath.Join(plugins, "marketplaces", "anthropic-agent-skills"), "1.0.0"),
			"superpowers@superpowers-marketplace":    install(cache("superpowers-marketplace", "superpowers", "4.0.0"), "4.0.0"),
		}}),
		"home/.claude/plugins/marketplaces/harbor/.claude-plugin/marketplace.json": market("harbor",
			obj{"name": "ship-mate", "source": "./plugins/ship-mate"}),
		"home/.claude/plugins/marketplaces/orchestra/.claude-plugin/marketplace.json": market("orchestra",
			obj{"name": "conductor", "source": "./conductor"}),
		"home/.claude/plugins/marketplaces/anthropic-agent-skills/.claude-plugin/marketplace.json": market("anthropic-agent-skills",
			obj{"name": "document-skills", "source": "./", "strict": false, "skills": []string{"./skills/docx"}},
			obj{"name": "claude-api", "source": "./", "strict": false, "skills": []string{"./skills/claude-api"}}),
		"home/.claude/plugins/marketplaces/anthropic-agent-skills/skills/docx/SKILL.md": pluginDocx,
		"home/.claude/plugins/marketplaces/anthropic-agent-skills/skills/claude-api/SKILL.md": "---\nname: claude-api\n" +
			"description: Build apps with the Claude API.\n---\n# Claude API\n",
		"home/.claude/plugins/marketplaces/superpowers-marketplace/.claude-plugin/marketplace.json": market("superpowers-marketplace",
			obj{"name": "superpowers", "source": "./"}),
		"home/.claude/plugins/cache/harbor/ship-mate/1.0.0/.claude-plugin/plugin.json":                    `{"name": "ship-mate", "version": "1.0.0"}`,
		"home/.claude/plugins/cache/harbor/ship-mate/1.0.0/commands/setup.md":                             shipMateSetup,
		"home/.claude/plugins/cache/orchestra/conductor/2.3.0/.claude-plugin/plugin.json":                 `{"name": "conductor", "version": "2.3.0"}`,
		"home/.claude/plugins/cache/orchestra/conductor/2.3.0/commands/setup.md":                          conductorSetup,
		"home/.claude/plugins/cache/superpowers-marketplace/superpowers/4.0.0/.claude-plugin/plugin.json": `{"name": "superpowers", "version": "4.0.0"}`,
		"home/.claude/plugins/cache/superpowers-marketplace/superpowers/4.0.0/skills/brainstorming/SKILL.md": "---\nname: brainstorming\n" +
			"description: Refine ideas before coding.\n---\n# Brainstorming\n",
		"home/.claude/plugins/cache/superpowers-marketplace/superpowers/4.0.0/commands/write-plan.md": "Write a plan.\n",
		"home/.claude/skills/lint/SKILL.md":        "---\nname: lint\ndescription: The user's lint rules.\n---\n# User lint\n",
		"work/repo/.git/":                          "",
		"work/repo/.claude/skills/lint/SKILL.md":   "---\nname: lint\ndescription: The project's lint rules.\n---\n# Project lint\n",
		"work/repo/.claude/skills/docx/SKILL.md":   localDocx,
		"work/repo/.claude/skills/deploy/SKILL.md": deploySkill,
		"work/repo/.claude/commands/deploy.md":     deployCommand,
	})
	return q
}

// run runs the binary in the workspace with the tree's user folder.
func (q qualifiedTree) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, q.ws, env(&machine.Machine{Home: q.home}, nil), append(args, "--user-dir", q.home)...)
}

// qualifiedRecord is an entry of `ccski list --json`.
type qualifiedRecord struct {
	ID, Type, Name, File string
}

func (q qualifiedTree) list(t *testing.T, args ...string) map[string]qualifiedRecord {
	t.Helper()
	r := q.run(t, append([]string{"list", "--json"}, args...)...)
	mustOK(t, r)
	var recs []qualifiedRecord
	decodeOnly(t, r, &recs)
	out := map[string]qualifiedRecord{}
	for _, rec := range recs {
		out[rec.ID] = rec
	}
	return out
}

// TestQualifiedNamesCLI checks list and info on the regression machine.
func TestQualifiedNamesCLI(t *testing.T) {
	q := newQualifiedTree(t)
	visible := q.list(t)
	// Every plugin keeps its names apart: both setup commands and both
	// docx skills are visible.
	for _, id := range []string{"claude:/@ship-mate:setup", "claude:/@conductor:setup", "claude:@document-skills:docx", "claude:docx"} {
		if _, ok := visible[id]; !ok {
			t.Errorf("list --json lacks %s; it has %v", id, slices.Sorted(maps.Keys(visible)))
		}
	}
	for id := range visible {
		if strings.Contains(id, "superpowers") {
			t.Errorf("list --json shows %s of the disabled plugin", id)
		}
	}

	info := func(name string) (map[string]any, result) {
		t.Helper()
		r := q.run(t, "info", name, "--json", "--full")
		var out map[string]any
		if r.code == 0 {
			decodeOnly(t, r, &out)
		}
		return out, r
	}
	tests := []struct {
		name, arg, id, content string
	}{
		{"the plugin's docx", "document-skills:docx", "claude:@document-skills:docx", pluginDocx},
		{"the project's docx", "docx", "claude:docx", localDocx},
		{"a skill wins over a command of the same name", "deploy", "claude:deploy", deploySkill},
		{"the command by its id", "claude:/deploy", "claude:/deploy", deployCommand},
		{"one plugin's setup", "ship-mate:setup", "claude:/@ship-mate:setup", shipMateSetup},
		{"the other plugin's setup", "conductor:setup", "claude:/@conductor:setup", conductorSetup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, r := info(tt.arg)
			if r.code != 0 {
				t.Fatalf("info %s failed\n%s", tt.arg, r)
			}
			if got["id"] != tt.id || got["content"] != tt.content || got["hidden"] != nil {
				t.Errorf("info %s = id %v hidden %v content %q; want %s, visible, %q", tt.arg, got["id"], got["hidden"], got["content"], tt.id, tt.content)
			}
		})
	}

	// The disabled plugin's skill: the plugin and the settings file, not
	// unrelated suggestions.
	r := q.run(t, "info", "superpowers:brainstorming")
	want := `"superpowers:brainstorming" is not available: plugin superpowers is disabled (enable it in ` + q.settings +
		` enabledPlugins: "superpowers@superpowers-marketplace": true)`
	if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("info of a disabled plugin's skill: want exit 1 and %q\n%s", want, r)
	}
	r = q.run(t, "info", "superpowers:brainstorming", "--json")
	var je struct{ Error, Code string }
	decodeOnly(t, r, &je)
	if r.code != 1 || je.Code != "plugin_disabled" || !strings.Contains(je.Error, want) {
		t.Errorf("info --json of a disabled plugin's skill: want code plugin_disabled\n%s", r)
	}

	// A disabled plugin's skill or command by its bare name: the plugin
	// and the settings file too.
	for name, want := range q.disabledByBareName() {
		r := q.run(t, "info", name)
		if r.code != 1 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "did you mean") {
			t.Errorf("info %s: want exit 1 and %q\n%s", name, want, r)
		}
		r = q.run(t, "info", name, "--json")
		var je struct{ Error, Code string }
		decodeOnly(t, r, &je)
		if r.code != 1 || je.Code != "plugin_disabled" {
			t.Errorf("info %s --json: want code plugin_disabled\n%s", name, r)
		}
	}
}

// disabledByBareName maps bare names of the disabled plugins' skills and
// commands to what a lookup of each must say.
func (q qualifiedTree) disabledByBareName() map[string]string {
	enable := func(key string) string {
		return ` (enable it in ` + q.settings + ` enabledPlugins: "` + key + `": true)`
	}
	return map[string]string{
		"claude-api": `"claude-api" is not available: it names the skill claude-api:claude-api, but plugin claude-api is disabled` +
			enable("claude-api@anthropic-agent-skills"),
		"brainstorming": `"brainstorming" is not available: it names the skill superpowers:brainstorming, but plugin superpowers is disabled` +
			enable("superpowers@superpowers-marketplace"),
		"write-plan": `"write-plan" is not available: it names the command /superpowers:write-plan, but plugin superpowers is disabled` +
			enable("superpowers@superpowers-marketplace"),
	}
}

// TestQualifiedNamesMCP checks the skill tool and prompts on the
// regression machine over stdio, on both protocol versions.
func TestQualifiedNamesMCP(t *testing.T) {
	q := newQualifiedTree(t)
	all := q.list(t, "--all")
	visible := q.list(t)
	// The copy of lint the dedupe hides, whichever precedence wins.
	var hiddenLint qualifiedRecord
	for id, rec := range all {
		if _, shown := visible[id]; !shown && rec.Name == "lint" {
			hiddenLint = rec
		}
	}
	if hiddenLint.ID == "" {
		t.Fatalf("no hidden copy of lint among %v", slices.Sorted(maps.Keys(all)))
	}
	lintData, err := os.ReadFile(hiddenLint.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cs, stderr := q.startMCP(t, ctx, p.version)

			// Both setup commands are prompts, each with its own text.
			names := map[string]bool{}
			for pr, err := range cs.Prompts(ctx, nil) {
				if err != nil {
					t.Fatalf("prompts/list: %v\n%s", err, stderr)
				}
				names[pr.Name] = true
			}
			for name, want := range map[string]string{
				"ship-mate:setup": "Ship-mate: prepare web for releases.\n",
				"conductor:setup": "Conductor: create the tracks of web.\n",
			} {
				if !names[name] {
					t.Errorf("prompts/list lacks %s: %v", name, names)
				}
				res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: map[string]string{"arguments": "web"}})
				if err != nil {
					t.Errorf("prompts/get %s: %v", name, err)
					continue
				}
				if tc, ok := res.Messages[0].Content.(*sdk.TextContent); !ok || tc.Text != want {
					t.Errorf("prompts/get %s = %+v, want %q", name, res.Messages[0].Content, want)
				}
			}

			// The plugin's docx loads byte-exact by its qualified name,
			// and the hidden copy of lint by its id.
			for name, want := range map[string]string{
				"document-skills:docx": pluginDocx,
				"docx":                 localDocx,
				"deploy":               deploySkill,
				hiddenLint.ID:          string(lintData),
			} {
				text, err := loadSkill(ctx, cs, name)
				if err != nil {
					t.Errorf("load %s: %v", name, err)
					continue
				}
				if _, body, ok := strings.Cut(text, "\n\n"); !ok || body != want {
					t.Errorf("load %s: body %q, want %q", name, body, want)
				}
			}

			// A disabled plugin's skill or command says so.
			msg := loadError(t, ctx, cs, "superpowers:brainstorming")
			want := `plugin superpowers is disabled (enable it in ` + q.settings + ` enabledPlugins: "superpowers@superpowers-marketplace": true)`
			if !strings.Contains(msg, want) || strings.Contains(msg, "Did you mean") {
				t.Errorf("skill of a disabled plugin: %q, want it to hold %q", msg, want)
			}
			_, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "superpowers:write-plan"})
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, want) {
				t.Errorf("prompt of a disabled plugin: %v, want invalid params holding %q", err, want)
			}
			// And by their bare names: the skill tool for skills,
			// prompts/get for commands.
			bare := q.disabledByBareName()
			for _, name := range []string{"claude-api", "brainstorming"} {
				if msg := loadError(t, ctx, cs, name); !strings.Contains(msg, bare[name]) || strings.Contains(msg, "Did you mean") {
					t.Errorf("skill %s: %q, want it to hold %q", name, msg, bare[name])
				}
			}
			_, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "write-plan"})
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, bare["write-plan"]) {
				t.Errorf("prompt write-plan: %v, want invalid params holding %q", err, bare["write-plan"])
			}

			// The schema forbids other arguments, and the tool says so.
			res, err := callSkill(ctx, cs, map[string]any{"name": "docx", "args": "--fast"})
			if text, _ := resultText(res); err != nil || !res.IsError || !strings.Contains(text, `unknown argument "args"`) {
				t.Errorf("skill with args: %+v, %v; want an isError result naming \"args\"", res, err)
			}
		})
	}
}

// startMCP starts `ccski mcp` on the tree over stdio and connects.
func (q qualifiedTree) startMCP(t *testing.T, ctx context.Context, pv string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, "mcp", "--refresh-interval", "1h", "--user-dir", q.home)
	cmd.Dir = q.ws
	cmd.Env = env(&machine.Machine{Home: q.home}, nil)
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "qualified-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
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
