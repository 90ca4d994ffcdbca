package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/pipeline"
)

// hiddenFixture is a snapshot run through the real filter stages, with
// --exclude codex:xlsx:
//
//	skills:   claude:pdf (user) lost the dedupe to claude@project:pdf;
//	          codex:xlsx is excluded; the plugin skill document-skills:docx
//	          and the project's docx are both visible
//	commands: the setup commands of plugins ship-mate and conductor are
//	          both visible; claude@user:/deploy lost to the project's copy;
//	          codex:/sp.plan is excluded
//	plugin superpowers@m is disabled in <home>/.claude/settings.json; it
//	          has the skills brainstorming and pdf and the command
//	          write-plan
type hiddenFixture struct {
	snap     *pipeline.Snapshot
	byID     map[string]*pipeline.Record
	settings string
}

func newHiddenFixture(t *testing.T) hiddenFixture {
	t.Helper()
	base := t.TempDir()
	plugin := func(name, market string) *pipeline.PluginInfo {
		return &pipeline.PluginInfo{Plugin: name, Marketplace: market, Version: "1.0.0"}
	}
	skills := makeRecords(t, base,
		skillSpec{provider: "claude", name: "pdf", desc: "User pdf."},
		skillSpec{provider: "claude", loc: pipeline.LocationProject, name: "pdf", desc: "Project pdf."},
		skillSpec{provider: "codex", name: "xlsx", desc: "Sheets."},
		skillSpec{provider: "claude", loc: pipeline.LocationPlugin, name: "document-skills:docx", desc: "Plugin docx.",
			body:   "---\nname: docx\ndescription: Plugin docx.\n---\n# The plugin's docx\r\n",
			plugin: plugin("document-skills", "anthropic-agent-skills")},
		skillSpec{provider: "claude", loc: pipeline.LocationProject, name: "docx", desc: "Local docx."},
	)
	command := func(provider string, loc pipeline.Location, name, body string, p *pipeline.PluginInfo) *pipeline.Record {
		file := filepath.Join(base, "commands", provider, string(loc), strings.ReplaceAll(name, ":", "_")+".md")
		writeFile(t, file, []byte(body))
		return &pipeline.Record{Type: pipeline.TypeCommand, Name: name, Description: name, Agent: provider,
			Location: loc, Dir: filepath.Dir(file), File: file, RealDir: filepath.Dir(file), Plugin: p}
	}
	commands := []*pipeline.Record{
		command("claude", pipeline.LocationPlugin, "ship-mate:setup", "Ship-mate setup for $ARGUMENTS.\n", plugin("ship-mate", "a")),
		command("claude", pipeline.LocationPlugin, "conductor:setup", "Conductor setup for $ARGUMENTS.\n", plugin("conductor", "b")),
		command("claude", pipeline.LocationUser, "deploy", "User deploy $1.\n", nil),
		command("claude", pipeline.LocationProject, "deploy", "Project deploy $1.\n", nil),
		command("codex", pipeline.LocationUser, "sp.plan", "Plan $ARGUMENTS.\n", nil),
	}
	all := append(skills, commands...)
	for _, r := range all {
		r.ModTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		switch r.Location {
		case pipeline.LocationProject:
			r.Kind = pipeline.KindWorkspaceAgent
		case pipeline.LocationPlugin:
			r.Kind = pipeline.KindPlugin
		default:
			r.Kind = pipeline.KindUserAgent
		}
	}
	pipeline.AssignIDs(all)
	stages, err := filters.Build(filters.Settings{Exclude: []string{"codex:xlsx,codex:/sp.plan"}}, all)
	if err != nil {
		t.Fatal(err)
	}
	visible, drops := pipeline.Run(stages, slices.Clone(all))
	f := hiddenFixture{snap: pipeline.NewSnapshot(all, visible, drops, nil, nil), byID: map[string]*pipeline.Record{},
		settings: filepath.Join(base, "home", ".claude", "settings.json")}
	f.snap.Disabled = []pipeline.DisabledPlugin{{Provider: "claude", Plugin: "superpowers", Marketplace: "m",
		Settings: f.settings, Skills: []string{"brainstorming", "pdf"}, Commands: []string{"write-plan"}}}
	for _, r := range all {
		f.byID[r.ID] = r
	}
	return f
}

// TestSkillToolReachesEveryNamedSkill checks that an id or a qualified
// name loads the record it names whatever dedupe hid, that records the
// user's filters hide are refused with the reason, and that a disabled
// plugin is named as such.
func TestSkillToolReachesEveryNamedSkill(t *testing.T) {
	f := newHiddenFixture(t)
	if got, want := visibleIDs(f.snap), []string{"claude@project:pdf", "claude:@document-skills:docx", "claude:docx",
		"claude:/@ship-mate:setup", "claude:/@conductor:setup", "claude@project:/deploy"}; !cmp.Equal(got, want) {
		t.Fatalf("fixture visible = %v, want %v", got, want)
	}
	srv := New(f.snap, Options{Logger: discard()})
	tests := []struct {
		name   string
		arg    string
		wantID string
		errHas []string
	}{
		{name: "a dedupe loser by its id", arg: "claude@user:pdf", wantID: "claude@user:pdf"},
		{name: "the plugin skill by its plugin name", arg: "document-skills:docx", wantID: "claude:@document-skills:docx"},
		{name: "the local skill of the same short name", arg: "docx", wantID: "claude:docx"},
		{name: "an excluded skill by its id", arg: "codex:xlsx",
			errHas: []string{`Skill "codex:xlsx" is hidden`, "excluded by --exclude codex:xlsx"}},
		{name: "a skill of a disabled plugin", arg: "superpowers:brainstorming",
			errHas: []string{`"superpowers:brainstorming" is not available: plugin superpowers is disabled (enable it in ` +
				f.settings + ` enabledPlugins: "superpowers@m": true)`}},
		{name: "a disabled plugin's skill by id", arg: "claude:@superpowers:brainstorming",
			errHas: []string{"plugin superpowers is disabled"}},
		{name: "a disabled plugin's skill by its bare name", arg: "brainstorming",
			errHas: []string{`Skill "brainstorming" is not available: it names the skill superpowers:brainstorming, ` +
				`but plugin superpowers is disabled (enable it in ` + f.settings + ` enabledPlugins: "superpowers@m": true).`}},
		{name: "a visible skill wins over a disabled plugin's", arg: "pdf", wantID: "claude@project:pdf"},
	}
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := call(ctx, cs, map[string]any{"name": tt.arg})
					if err != nil {
						t.Fatal(err)
					}
					text := resultText(t, res)
					if tt.wantID != "" {
						if res.IsError {
							t.Fatalf("isError %q", text)
						}
						if diff := cmp.Diff(wantLoad(t, f.byID[tt.wantID]), text); diff != "" {
							t.Errorf("load (-want +got):\n%s", diff)
						}
						return
					}
					if !res.IsError {
						t.Fatalf("loaded %q, want isError", text)
					}
					for _, h := range tt.errHas {
						if !strings.Contains(text, h) {
							t.Errorf("error %q does not hold %q", text, h)
						}
					}
					if strings.Contains(text, "Did you mean") {
						t.Errorf("error %q suggests unrelated names", text)
					}
				})
			}
		})
	}
}

// TestPromptsReachEveryNamedCommand checks that the commands of two
// plugins are both prompts, that a command dedupe hid is served by its id,
// and that a command the filters hide or a disabled plugin's command says
// why it is not served.
func TestPromptsReachEveryNamedCommand(t *testing.T) {
	f := newHiddenFixture(t)
	srv := New(f.snap, Options{Logger: discard()})
	cs := connect(t, srv, "", nil)
	ctx := testCtx(t, 10*time.Second)
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"conductor:setup", "deploy", "ship-mate:setup"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, prompt, want string
		has                []string // an invalid-params error holding these
	}{
		{name: "one plugin's setup", prompt: "ship-mate:setup", want: "Ship-mate setup for prod.\n"},
		{name: "the other plugin's setup", prompt: "conductor:setup", want: "Conductor setup for prod.\n"},
		{name: "a visible command by its id", prompt: "claude:/@conductor:setup", want: "Conductor setup for prod.\n"},
		{name: "a dedupe loser by its id", prompt: "claude@user:/deploy", want: "User deploy prod.\n"},
		{name: "an excluded command by its id", prompt: "codex:/sp.plan",
			has: []string{`prompt "codex:/sp.plan"`, "is hidden: excluded by --exclude codex:/sp.plan"}},
		{name: "a disabled plugin's command", prompt: "superpowers:write-plan",
			has: []string{"plugin superpowers is disabled (enable it in " + f.settings + " enabledPlugins"}},
		{name: "a disabled plugin's command by its bare name", prompt: "write-plan",
			has: []string{"it names the command /superpowers:write-plan, but plugin superpowers is disabled (enable it in " + f.settings}},
		{name: "an unknown name still gets suggestions", prompt: "deplyo", has: []string{`unknown prompt "deplyo"; did you mean deploy`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := promptText(ctx, cs, tt.prompt, map[string]string{PromptArgument: "prod"})
			if tt.has == nil {
				if err != nil || got != tt.want {
					t.Errorf("prompts/get %q = %q, %v; want %q", tt.prompt, got, err, tt.want)
				}
				return
			}
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("prompts/get %q = %q, %v; want invalid params", tt.prompt, got, err)
			}
			for _, h := range tt.has {
				if !strings.Contains(we.Message, h) {
					t.Errorf("message %q does not hold %q", we.Message, h)
				}
			}
		})
	}
}

// TestSkillToolRejectsUnknownArguments checks that the handler enforces
// what the input schema declares: "name" is the only argument.
func TestSkillToolRejectsUnknownArguments(t *testing.T) {
	f := newHiddenFixture(t)
	srv := New(f.snap, Options{Logger: discard()})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	schema, ok := onlyTool(t, ctx, cs).InputSchema.(map[string]any)
	if !ok || schema["additionalProperties"] != false {
		t.Fatalf("input schema %v does not forbid other properties", schema)
	}
	tests := []struct {
		name string
		args map[string]any
		has  []string
	}{
		{"Claude Code's args", map[string]any{"name": "docx", "args": "--fast"},
			[]string{`unknown argument "args"`, `takes only "name"`, "apply any arguments yourself"}},
		{"several", map[string]any{"name": "docx", "z": 1, "a": true}, []string{`unknown arguments "a", "z"`}},
		{"Claude Code's key instead of name", map[string]any{"skill": "docx"}, []string{`unknown argument "skill"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A tool result the model reads (SEP-1303), not a JSON-RPC error.
			res, err := call(ctx, cs, tt.args)
			if err != nil || !res.IsError {
				t.Fatalf("call %v = %+v, %v; want an isError result", tt.args, res, err)
			}
			msg := resultText(t, res)
			for _, h := range tt.has {
				if !strings.Contains(msg, h) {
					t.Errorf("message %q does not hold %q", msg, h)
				}
			}
		})
	}
	// The name alone still loads.
	if res, err := call(ctx, cs, map[string]any{"name": "docx"}); err != nil || res.IsError {
		t.Errorf("name alone: %+v, %v", res, err)
	}
}

// TestResourcesReachDedupeLosers checks that a skill the skill tool loads
// by id also serves its files as resources.
func TestResourcesReachDedupeLosers(t *testing.T) {
	f := newHiddenFixture(t)
	srv := New(f.snap, Options{Logger: discard()})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	r := f.byID["claude@user:pdf"]
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ResourceScheme + pipeline.EscapeID(r.ID) + "/SKILL.md"})
	if err != nil {
		t.Fatalf("resources/read of the hidden copy: %v", err)
	}
	data, _ := os.ReadFile(r.File)
	if len(res.Contents) != 1 || res.Contents[0].Text != string(data) {
		t.Errorf("contents %+v, want %q", res.Contents, data)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: ResourceScheme + pipeline.EscapeID("codex:xlsx") + "/SKILL.md"}); err == nil {
		t.Error("resources/read served an excluded skill")
	}
}

// TestSkillPromptWinsOverDisabledCommand checks that with skill prompts a
// name no prompt is registered under loads the visible skill it names even
// when a disabled plugin has a command of that name, and that without
// skill prompts the disabled command is what the name is said to mean.
func TestSkillPromptWinsOverDisabledCommand(t *testing.T) {
	f := newHiddenFixture(t)
	f.snap.Disabled[0].Commands = append(f.snap.Disabled[0].Commands, "pdf")
	tests := []struct {
		name         string
		skillPrompts bool
		want         string // the prompt's text; "" for an error
		has          string // what the error holds
	}{
		{name: "skill prompts", skillPrompts: true, want: "# pdf\n"},
		{name: "commands only", has: "it names the command /superpowers:pdf, but plugin superpowers is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(f.snap, Options{Logger: discard(), SkillPrompts: tt.skillPrompts})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, "", nil)
			got, err := promptText(ctx, cs, "claude:pdf", nil)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Errorf("prompts/get claude:pdf = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.has) {
				t.Errorf("prompts/get claude:pdf = %q, %v; want an error holding %q", got, err, tt.has)
			}
		})
	}
}
