package integration

// End-to-end tests of prompts from slash commands: the go-sdk client
// drives the built binary over stdio on both protocol versions, against a
// machine copy with command files added at test time.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// promptBudget is how long a command file change may take to reach a
// client: the contract is one second, the rest is slack for slow machines.
const promptBudget = 3 * time.Second

// lintKit is the install folder of the machine's lint-kit plugin.
const lintKit = "home/.claude/plugins/cache/tool-market/lint-kit/1.2.0"

// addCommands writes slash commands into the machine copy.
func addCommands(t *testing.T, m *machine.Machine) {
	t.Helper()
	files := map[string]string{
		// Claude Code ranks personal commands over project ones.
		"home/.claude/commands/deploy.md": "---\ndescription: Deploy the service.\nargument-hint: <env> [tag]\n---\n" +
			"Deploy $1 at tag $2.\nEverything: $ARGUMENTS\n",
		"work/repo/.claude/commands/frontend/review.md": "# Review the frontend\n\nReview $ARGUMENTS.\n",
		"work/repo/.claude/commands/deploy.md":          "Project copy: hidden by the personal one.\n",
		"home/.claude/commands/broken.md":               "---\ndescription: [never closed\n---\nBody\n",
		"home/.codex/prompts/sp.specify.md": "---\ndescription: Write a feature specification.\nhandoffs:\n" +
			"  - label: Plan it\n    agent: sp.plan\n    send: true\n---\nSpecify: $ARGUMENTS\n",
		"home/.codex/prompts/sp.plan.md": "---\ndescription: Plan the feature.\nhandoffs:\n" +
			"  - label: Back to the spec\n    agent: sp.specify\n---\nPlan: $ARGUMENTS\n",
		lintKit + "/commands/fix.md": "---\ndescription: Fix lint findings.\n---\nFix $1.\n",
	}
	for rel, content := range files {
		writeRel(t, m, rel, content)
	}
}

func writeRel(t *testing.T, m *machine.Machine, rel, content string) {
	t.Helper()
	p := filepath.Join(m.Root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// promptSession is `ccski mcp` under stdio with a client that reports
// prompts/list_changed.
type promptSession struct {
	cs      *sdk.ClientSession
	changes chan struct{}
	stderr  *lockedBuffer
}

func startPromptServer(t *testing.T, ctx context.Context, m *machine.Machine, pv string, args ...string) *promptSession {
	t.Helper()
	s := &promptSession{changes: make(chan struct{}, 100), stderr: &lockedBuffer{}}
	cmd := exec.Command(binary, std(m, append([]string{"mcp", "--refresh-interval", "1h"}, args...)...)...)
	cmd.Dir = m.Workspace
	cmd.Env = env(m, nil)
	cmd.Stderr = s.stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "prompts-test", Version: "0"}, &sdk.ClientOptions{
		PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) { s.changes <- struct{}{} },
	})
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("connect (protocol %q): %v\nstderr:\n%s", pv, err, s.stderr)
	}
	s.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return s
}

func (s *promptSession) list(t *testing.T, ctx context.Context) map[string]*sdk.Prompt {
	t.Helper()
	out := map[string]*sdk.Prompt{}
	for p, err := range s.cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v\nstderr:\n%s", err, s.stderr)
		}
		out[p.Name] = p
	}
	return out
}

func (s *promptSession) get(ctx context.Context, name, input string) (string, error) {
	res, err := s.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: map[string]string{"arguments": input}})
	if err != nil {
		return "", err
	}
	if len(res.Messages) != 1 {
		return "", errors.New("not one message")
	}
	tc, ok := res.Messages[0].Content.(*sdk.TextContent)
	if !ok {
		return "", errors.New("not text")
	}
	return tc.Text, nil
}

// waitChange reports whether prompts/list_changed arrives within d.
func (s *promptSession) waitChange(d time.Duration) bool {
	select {
	case <-s.changes:
		return true
	case <-time.After(d):
		return false
	}
}

func TestPromptsEndToEnd(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			m := newMachine(t)
			addCommands(t, m)
			ctx := mcpContext(t)
			s := startPromptServer(t, ctx, m, p.version)

			// prompts/list: names from paths, descriptions, hints, metadata.
			got := s.list(t, ctx)
			type entry struct{ Desc, Hint, ID, Provider string }
			summary := map[string]entry{}
			for name, pr := range got {
				hint := ""
				if len(pr.Arguments) == 1 && pr.Arguments[0].Name == "arguments" {
					hint = pr.Arguments[0].Description
				}
				id, _ := pr.Meta["id"].(string)
				prov, _ := pr.Meta["provider"].(string)
				summary[name] = entry{pr.Description, hint, id, prov}
			}
			generic := summary["sp.plan"].Hint
			if generic == "" || !strings.Contains(generic, "$ARGUMENTS") {
				t.Errorf("generic argument description %q", generic)
			}
			want := map[string]entry{
				"deploy":          {"Deploy the service.", "<env> [tag]", "claude@user:/deploy", "claude"},
				"frontend:review": {"Review the frontend", generic, "claude:/frontend:review", "claude"},
				"sp.specify":      {"Write a feature specification.", generic, "codex:/sp.specify", "codex"},
				"sp.plan":         {"Plan the feature.", generic, "codex:/sp.plan", "codex"},
				"lint-kit:fix":    {"Fix lint findings.", generic, "claude:/@lint-kit:fix", "claude"},
			}
			if d := cmp.Diff(want, summary); d != "" {
				t.Errorf("prompts (-want +got):\n%s", d)
			}
			if f, _ := got["deploy"].Meta["file"].(string); f != filepath.Join(m.Home, ".claude", "commands", "deploy.md") {
				t.Errorf("deploy file = %q", f)
			}
			handoffs, _ := json.Marshal([]any{got["sp.specify"].Meta["handoffs"], got["sp.plan"].Meta["handoffs"]})
			if want := `[[{"agent":"sp.plan","label":"Plan it","send":true}],[{"agent":"sp.specify","label":"Back to the spec"}]]`; string(handoffs) != want {
				t.Errorf("handoffs = %s, want %s", handoffs, want)
			}

			// The skill tool still lists skills only.
			tools, err := s.cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools.Tools {
				if tool.Name == "skill" && strings.Contains(tool.Description, ":/") {
					t.Errorf("the skill tool lists commands:\n%s", tool.Description)
				}
			}

			// prompts/get.
			for _, c := range []struct{ name, input, want string }{
				{"deploy", `"eu west" v2 extra`, "Deploy eu west at tag v2.\nEverything: \"eu west\" v2 extra\n"},
				{"deploy", "$ARGUMENTS ${x} $1", "Deploy $ARGUMENTS at tag ${x}.\nEverything: $ARGUMENTS ${x} $1\n"},
				{"sp.specify", "Ünïcode ✓\n```\n$2\n```", "Specify: Ünïcode ✓\n```\n$2\n```\n"},
				{"frontend:review", "", "# Review the frontend\n\nReview .\n"},
				{"lint-kit:fix", "main.go", "Fix main.go.\n"},
			} {
				text, err := s.get(ctx, c.name, c.input)
				if err != nil {
					t.Errorf("get %s: %v", c.name, err)
					continue
				}
				if text != c.want {
					t.Errorf("get %s %q =\n%q\nwant\n%q", c.name, c.input, text, c.want)
				}
			}
			var we *jsonrpc.Error
			_, err = s.get(ctx, "deploy", strings.Repeat("é", 51201)) // 102,402 bytes
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || we.Message != "Input exceeds maximum allowed size of 100KB" {
				t.Errorf("oversized input: %v", err)
			}
			_, err = s.get(ctx, "deplyo", "")
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "deploy") {
				t.Errorf("unknown prompt: %v", err)
			}
			if _, ok := got["broken"]; ok {
				t.Error("the malformed command is a prompt")
			}

			// Live refresh: add, edit, remove.
			steps := []struct {
				name string
				do   func()
				want func(map[string]*sdk.Prompt) bool
			}{
				{"added", func() { writeRel(t, m, "work/repo/.claude/commands/release.md", "Cut release $1.\n") },
					func(ps map[string]*sdk.Prompt) bool { return ps["release"] != nil }},
				{"edited", func() {
					writeRel(t, m, "work/repo/.claude/commands/release.md", "---\ndescription: Cut a release.\n---\nCut $1.\n")
				}, func(ps map[string]*sdk.Prompt) bool {
					return ps["release"] != nil && ps["release"].Description == "Cut a release."
				}},
				{"removed", func() {
					if err := os.Remove(filepath.Join(m.Workspace, ".claude", "commands", "release.md")); err != nil {
						t.Fatal(err)
					}
				}, func(ps map[string]*sdk.Prompt) bool { return ps["release"] == nil }},
			}
			for _, st := range steps {
				for len(s.changes) > 0 {
					<-s.changes
				}
				st.do()
				start := time.Now()
				if !s.waitChange(promptBudget) {
					t.Fatalf("%s: no prompts/list_changed within %s\nstderr:\n%s", st.name, promptBudget, s.stderr)
				}
				took := time.Since(start)
				// A burst may arrive in two notifications; the list settles.
				if !waitUntil(promptBudget, func() bool { return st.want(s.list(t, ctx)) }) {
					t.Errorf("%s: prompts/list does not show the change", st.name)
				}
				t.Logf("%s: notified after %s", st.name, took.Round(time.Millisecond))
			}
			if text, err := s.get(ctx, "deploy", "prod"); err != nil || !strings.HasPrefix(text, "Deploy prod") {
				t.Errorf("deploy after the refreshes: %q, %v", text, err)
			}
		})
	}
}

// TestCommandsInCLI checks that list and sources show commands, that
// --kind filters, and that the malformed file is reported.
func TestCommandsInCLI(t *testing.T) {
	m := newMachine(t)
	addCommands(t, m)

	r := run(t, m, "list", "--kind", "command", "--json")
	mustOK(t, r)
	var recs []map[string]any
	decodeOnly(t, r, &recs)
	var ids []string
	for _, rec := range recs {
		if rec["type"] != "command" {
			t.Errorf("%v has type %v", rec["id"], rec["type"])
		}
		ids = append(ids, rec["id"].(string))
	}
	sort.Strings(ids)
	want := []string{"claude:/@lint-kit:fix", "claude:/frontend:review", "claude@user:/deploy", "codex:/sp.plan", "codex:/sp.specify"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("list --kind command (-want +got):\n%s", d)
	}

	r = run(t, m, "list", "--kind", "skill", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &recs)
	for _, rec := range recs {
		if rec["type"] != "skill" {
			t.Errorf("list --kind skill shows %v (%v)", rec["id"], rec["type"])
		}
	}
	if len(recs) != len(defaultIDs) {
		t.Errorf("list --kind skill shows %d records, want %d", len(recs), len(defaultIDs))
	}

	r = run(t, m, "list")
	mustOK(t, r)
	for _, s := range []string{"Commands (5)", "- claude@user:/deploy", "- codex:/sp.specify"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("list does not show %q:\n%s", s, r.stdout)
		}
	}

	r = run(t, m, "sources", "--kind", "command", "--json")
	mustOK(t, r)
	var src struct {
		Roots []struct {
			Path, Type string
			Skills     int
		} `json:"roots"`
		Hidden []struct {
			ID, Reason string
		} `json:"hidden"`
		Diagnostics []struct {
			Severity, Code, Path, Message string
		} `json:"diagnostics"`
	}
	decodeOnly(t, r, &src)
	for _, root := range src.Roots {
		if root.Type != "command" {
			t.Errorf("sources --kind command lists the %s root %s", root.Type, root.Path)
		}
	}
	if len(src.Hidden) != 1 || src.Hidden[0].ID != "claude@project:/deploy" ||
		!strings.Contains(src.Hidden[0].Reason, "shadowed by claude@user:/deploy (Claude Code ranks personal over project") {
		t.Errorf("hidden: %+v", src.Hidden)
	}
	found := false
	for _, d := range src.Diagnostics {
		if strings.HasSuffix(d.Path, filepath.Join(".claude", "commands", "broken.md")) {
			found = d.Severity == "warning" && strings.Contains(d.Message, "command skipped")
		}
	}
	if !found {
		t.Errorf("no warning for broken.md in %+v", src.Diagnostics)
	}

	r = run(t, m, "list", "--kind", "prompts")
	if r.code != 2 || !strings.Contains(r.stderr, `invalid --kind "prompts"`) {
		t.Errorf("bad --kind:\n%s", r)
	}
}
