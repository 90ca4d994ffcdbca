package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/engine/live"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

func TestSplitArguments(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \t\n ", nil},
		{"one", []string{"one"}},
		{"  a   b\tc\nd  ", []string{"a", "b", "c", "d"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`'a b' "c d"`, []string{"a b", "c d"}},
		{`"" x`, []string{"", "x"}},
		{`"multi
line" next`, []string{"multi\nline", "next"}},
		{`don't stop`, []string{"don't", "stop"}},
		{`fix the user's bug`, []string{"fix", "the", "user's", "bug"}},
		{`"unclosed quote here`, []string{`"unclosed`, "quote", "here"}},
		{`"it's fine" ok`, []string{"it's fine", "ok"}},
		{`'say "hi" now' x`, []string{`say "hi" now`, "x"}},
		{`a"b c"d`, []string{`a"b`, `c"d`}},
		{`"a"b c"`, []string{`a"b c`}},
		{"héllo «wörld» 日本 語", []string{"héllo", "«wörld»", "日本", "語"}},
		{"a\u00a0b", []string{"a", "b"}}, // no-break space is white space
	}
	for _, tt := range tests {
		if got := SplitArguments(tt.in); !cmp.Equal(tt.want, got) {
			t.Errorf("SplitArguments(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name, template, input, want string
	}{
		{"whole input", "Fix: $ARGUMENTS.", "the login bug", "Fix: the login bug."},
		{"whole input twice", "$ARGUMENTS / $ARGUMENTS", "x y", "x y / x y"},
		{"positional", "from $1 to $2, then $3", "alpha beta gamma", "from alpha to beta, then gamma"},
		{"positional with quotes", "[$1] [$2] [$3]", `"two words" 'and more' last`, "[two words] [and more] [last]"},
		{"missing positional is empty", "a=$1 b=$2 c=$9.", "only", "a=only b= c=."},
		{"no input", "Review $ARGUMENTS now; $1.", "", "Review  now; ."},
		{"$0, $10 and ${x} are not placeholders", "$0 $10 ${x} $ $$ $a", "A B", "$0 A0 ${x} $ $$ $a"},
		{"Claude's indexed form", "$ARGUMENTS[0]|$ARGUMENTS[1]|$ARGUMENTS[5]|$ARGUMENTS[x]", "p q",
			"p|q||p q[x]"},
		{"input is never substituted again", "Got: $ARGUMENTS and $1",
			`$ARGUMENTS ${x} $1 $2`, `Got: $ARGUMENTS ${x} $1 $2 and $ARGUMENTS`},
		{"positional text with placeholders stays literal", "<$1><$2>", `"$ARGUMENTS" $2`, "<$ARGUMENTS><$2>"},
		{"no placeholders: unchanged, input ignored", "# Title\n\n```go\nfmt.Println(\"$\")\n```\n", "ignored",
			"# Title\n\n```go\nfmt.Println(\"$\")\n```\n"},
		{"markdown, code and UTF-8 survive", "## Étape\n```sh\necho $1\n```\n> $ARGUMENTS\n",
			"naïve — 日本語\n```\ncode\n```", "## Étape\n```sh\necho naïve\n```\n> naïve — 日本語\n```\ncode\n```\n"},
		{"CRLF kept", "a\r\n$1\r\n", "x", "a\r\nx\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Expand(tt.template, tt.input); got != tt.want {
				t.Errorf("Expand(%q, %q) =\n%q\nwant\n%q", tt.template, tt.input, got, tt.want)
			}
		})
	}
}

// promptTree is a home and workspace with commands for engine-backed
// prompt tests.
type promptTree struct {
	tree
	eng *engine.Engine
}

// cmdFile is the path of a Claude user command.
func (tr tree) cmdFile(rel string) string {
	return filepath.Join(tr.home, ".claude", "commands", filepath.FromSlash(rel))
}

const (
	deployMD = "---\ndescription: Deploy the service.\nargument-hint: <env> [tag]\n---\nDeploy $1 at tag $2.\nAll: $ARGUMENTS\n"
	// The two spec-kit commands hand off to each other: a cycle.
	specifyMD = "---\ndescription: Write a spec.\nhandoffs:\n  - label: Plan it\n    agent: sp.plan\n    prompt: Plan the spec\n    send: true\n---\nSpecify: $ARGUMENTS\n"
	planMD    = "---\ndescription: Plan a spec.\nhandoffs:\n  - label: Back to the spec\n    agent: sp.specify\n---\nPlan: $ARGUMENTS\n"
	reviewMD  = "\n# Review the frontend\n\nReview $1 with care.\n"
	plainMD   = "No placeholders here.\n\n```go\nfmt.Println(\"$HOME\")\n```\n"
)

func newPromptTree(t *testing.T) promptTree {
	t.Helper()
	pt := promptTree{tree: newTree(t)}
	writeFile(t, pt.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	writeFile(t, pt.cmdFile("deploy.md"), []byte(deployMD))
	writeFile(t, pt.cmdFile("frontend/review.md"), []byte(reviewMD))
	writeFile(t, pt.cmdFile("plain.md"), []byte(plainMD))
	writeFile(t, pt.cmdFile("broken.md"), []byte("---\ndescription: \"never closed\n---\nBody\n"))
	writeFile(t, filepath.Join(pt.home, ".codex", "prompts", "sp.specify.md"), []byte(specifyMD))
	writeFile(t, filepath.Join(pt.home, ".codex", "prompts", "sp.plan.md"), []byte(planMD))
	pt.eng = newEngine(t, pt.home, pt.ws)
	return pt
}

// promptsByName lists the prompts of a session by name.
func promptsByName(t *testing.T, ctx context.Context, cs *sdk.ClientSession) map[string]*sdk.Prompt {
	t.Helper()
	out := map[string]*sdk.Prompt{}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		out[p.Name] = p
	}
	return out
}

// promptText gets a prompt and returns its one text message.
func promptText(ctx context.Context, cs *sdk.ClientSession, name string, args map[string]string) (string, error) {
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Messages) != 1 || res.Messages[0].Role != "user" {
		return "", errors.New("want one user message")
	}
	tc, ok := res.Messages[0].Content.(*sdk.TextContent)
	if !ok {
		return "", errors.New("content is not text")
	}
	return tc.Text, nil
}

func TestPromptsList(t *testing.T) {
	pt := newPromptTree(t)
	snap := snapshot(t, pt.eng)
	// The malformed file is skipped with a warning naming it.
	var broken []pipeline.Diagnostic
	for _, d := range snap.Diagnostics {
		if strings.HasSuffix(d.Path, "broken.md") {
			broken = append(broken, d)
		}
	}
	if len(broken) != 1 || broken[0].Severity != pipeline.SeverityWarning || broken[0].Code != "command-yaml-syntax" {
		t.Errorf("diagnostics of broken.md: %+v", broken)
	}
	srv := New(snap, Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			if c := cs.InitializeResult().Capabilities; c.Prompts == nil || !c.Prompts.ListChanged {
				t.Errorf("capabilities do not advertise prompts.listChanged: %+v", c)
			}
			got := promptsByName(t, ctx, cs)
			type entry struct{ Desc, Hint, Provider, ID, File string }
			summary := map[string]entry{}
			for name, p := range got {
				if len(p.Arguments) != 1 || p.Arguments[0].Name != "arguments" || p.Arguments[0].Required {
					t.Errorf("%s: arguments %+v, want one optional \"arguments\"", name, p.Arguments)
					continue
				}
				summary[name] = entry{p.Description, p.Arguments[0].Description, p.Meta["provider"].(string),
					p.Meta["id"].(string), p.Meta["file"].(string)}
			}
			user := filepath.Join(pt.home, ".claude", "commands")
			codex := filepath.Join(pt.home, ".codex", "prompts")
			want := map[string]entry{
				"deploy":          {"Deploy the service.", "<env> [tag]", "claude", "claude:/deploy", filepath.Join(user, "deploy.md")},
				"frontend:review": {"Review the frontend", genericArgumentHint, "claude", "claude:/frontend:review", filepath.Join(user, "frontend", "review.md")},
				"plain":           {"No placeholders here.", genericArgumentHint, "claude", "claude:/plain", filepath.Join(user, "plain.md")},
				"sp.specify":      {"Write a spec.", genericArgumentHint, "codex", "codex:/sp.specify", filepath.Join(codex, "sp.specify.md")},
				"sp.plan":         {"Plan a spec.", genericArgumentHint, "codex", "codex:/sp.plan", filepath.Join(codex, "sp.plan.md")},
			}
			if d := cmp.Diff(want, summary); d != "" {
				t.Errorf("prompts (-want +got):\n%s", d)
			}
			// Handoffs come through as written, the cycle included.
			raw, err := json.Marshal(map[string]any{"specify": got["sp.specify"].Meta["handoffs"], "plan": got["sp.plan"].Meta["handoffs"]})
			if err != nil {
				t.Fatal(err)
			}
			wantHandoffs := `{"plan":[{"agent":"sp.specify","label":"Back to the spec"}],"specify":[{"agent":"sp.plan","label":"Plan it","prompt":"Plan the spec","send":true}]}`
			if string(raw) != wantHandoffs {
				t.Errorf("handoffs =\n%s\nwant\n%s", raw, wantHandoffs)
			}
			if _, ok := got["deploy"].Meta["handoffs"]; ok {
				t.Error("deploy has handoffs metadata although its file has none")
			}
			// The skill tool lists skills only.
			desc := onlyTool(t, ctx, cs).Description
			if !strings.Contains(desc, "<name>alpha</name>") || strings.Contains(desc, "deploy") || strings.Contains(desc, ":/") {
				t.Errorf("skill tool description lists commands or misses the skill:\n%s", desc)
			}
			res, err := call(ctx, cs, map[string]any{"name": "deploy"})
			if err != nil || !res.IsError {
				t.Errorf("the skill tool loaded the command deploy: %v %+v", err, res)
			}
		})
	}
}

func TestPromptsGet(t *testing.T) {
	pt := newPromptTree(t)
	srv := New(snapshot(t, pt.eng), Options{Logger: discard()})
	exact := strings.Repeat("x", MaxPromptInput)
	tests := []struct {
		name    string
		prompt  string
		args    map[string]string
		want    string
		code    int64  // JSON-RPC error code; 0 for success
		message string // the whole error message, when set
		has     []string
	}{
		{name: "substitution", prompt: "deploy", args: map[string]string{"arguments": "staging v1.2"},
			want: "Deploy staging at tag v1.2.\nAll: staging v1.2\n"},
		{name: "positional arguments with quotes", prompt: "deploy", args: map[string]string{"arguments": `"eu west" 'tag two' extra`},
			want: "Deploy eu west at tag tag two.\nAll: \"eu west\" 'tag two' extra\n"},
		{name: "no arguments", prompt: "deploy",
			want: "Deploy  at tag .\nAll: \n"},
		{name: "literal template syntax in the input", prompt: "deploy", args: map[string]string{"arguments": "$ARGUMENTS ${HOME} $1"},
			want: "Deploy $ARGUMENTS at tag ${HOME}.\nAll: $ARGUMENTS ${HOME} $1\n"},
		{name: "multi-line UTF-8 markdown input", prompt: "sp.specify",
			args: map[string]string{"arguments": "# Über-Feature 🚀\n\n```js\nconst x = `$1`;\n```\n- 日本語"},
			want: "Specify: # Über-Feature 🚀\n\n```js\nconst x = `$1`;\n```\n- 日本語\n"},
		{name: "no frontmatter: the whole file, nested name", prompt: "frontend:review", args: map[string]string{"arguments": "Button.tsx"},
			want: "\n# Review the frontend\n\nReview Button.tsx with care.\n"},
		{name: "no placeholders: the body as it is", prompt: "plain", args: map[string]string{"arguments": "anything"},
			want: plainMD},
		{name: "exactly the size limit", prompt: "sp.specify", args: map[string]string{"arguments": exact},
			want: "Specify: " + exact + "\n"},
		{name: "over the size limit", prompt: "sp.specify", args: map[string]string{"arguments": exact + "y"},
			code: jsonrpc.CodeInvalidParams, message: "Input exceeds maximum allowed size of 100KB"},
		{name: "over the limit in other argument keys", prompt: "sp.specify", args: map[string]string{"arguments": exact[:60000], "other": exact[:60000]},
			code: jsonrpc.CodeInvalidParams, message: "Input exceeds maximum allowed size of 100KB"},
		{name: "unknown prompt with suggestions", prompt: "deplyo",
			code: jsonrpc.CodeInvalidParams, has: []string{`unknown prompt "deplyo"`, "did you mean", "deploy"}},
		{name: "unknown prompt close to several", prompt: "sp.",
			code: jsonrpc.CodeInvalidParams, has: []string{"sp.specify", "sp.plan"}},
		{name: "at most three suggestions", prompt: "p",
			code: jsonrpc.CodeInvalidParams, has: []string{`unknown prompt "p"; did you mean `}},
		{name: "a skill is not a prompt by default", prompt: "alpha", code: jsonrpc.CodeInvalidParams, has: []string{`unknown prompt "alpha"`}},
		{name: "the malformed file is not a prompt", prompt: "broken", code: jsonrpc.CodeInvalidParams, has: []string{`unknown prompt "broken"`}},
	}
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 20*time.Second)
			cs := connect(t, srv, pv, nil)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := promptText(ctx, cs, tt.prompt, tt.args)
					if tt.code == 0 {
						if err != nil {
							t.Fatalf("prompts/get: %v", err)
						}
						if got != tt.want {
							t.Errorf("text =\n%q\nwant\n%q", got, tt.want)
						}
						return
					}
					var we *jsonrpc.Error
					if !errors.As(err, &we) {
						t.Fatalf("err = %v (%T), want a JSON-RPC error", err, err)
					}
					if we.Code != tt.code {
						t.Errorf("code = %d, want %d", we.Code, tt.code)
					}
					if tt.message != "" && we.Message != tt.message {
						t.Errorf("message = %q, want %q", we.Message, tt.message)
					}
					for _, s := range tt.has {
						if !strings.Contains(we.Message, s) {
							t.Errorf("message %q does not hold %q", we.Message, s)
						}
					}
					if n := strings.Count(we.Message, ","); n > 2 {
						t.Errorf("message %q suggests more than three names", we.Message)
					}
				})
			}
		})
	}
}

// TestSkillPrompts checks mcp.skill_prompts: skills become prompts whose
// text is the SKILL.md body, and a skill whose name a command already has
// is served under its id.
func TestSkillPrompts(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr.userSkill("alpha"), []byte("---\nname: alpha\ndescription: Alpha skill\n---\n# Alpha\n\nUse $1 for $ARGUMENTS.\n"))
	writeFile(t, tr.userSkill("deploy"), skillMD("deploy", "The deploy skill"))
	writeFile(t, tr.cmdFile("deploy.md"), []byte(deployMD))
	snap := snapshot(t, newEngine(t, tr.home, tr.ws))
	var logs bytes.Buffer
	var mu sync.Mutex
	log := slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))
	srv := New(snap, Options{Logger: log, SkillPrompts: true})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	got := promptsByName(t, ctx, cs)
	var names []string
	for n, p := range got {
		names = append(names, n+"="+p.Meta["type"].(string))
	}
	if d := cmp.Diff([]string{"alpha=skill", "claude:deploy=skill", "deploy=command"}, sortedStrings(names)); d != "" {
		t.Errorf("prompts (-want +got):\n%s", d)
	}
	text, err := promptText(ctx, cs, "alpha", map[string]string{"arguments": "x y"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "# Alpha\n\nUse x for x y.\n"; text != want {
		t.Errorf("alpha text = %q, want %q", text, want)
	}
	if text, err := promptText(ctx, cs, "deploy", map[string]string{"arguments": "prod"}); err != nil || !strings.HasPrefix(text, "Deploy prod") {
		t.Errorf("deploy is not the command: %q, %v", text, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "prompt=claude:deploy") || !strings.Contains(logs.String(), "name=deploy") {
		t.Errorf("the renamed prompt was not logged:\n%s", logs.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func sortedStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// promptChanges counts notifications/prompts/list_changed.
type promptChanges struct{ ch chan struct{} }

func (p *promptChanges) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{PromptListChangedHandler: func(context.Context, *sdk.PromptListChangedRequest) {
		p.ch <- struct{}{}
	}}
}

func (p *promptChanges) wait(d time.Duration) bool {
	select {
	case <-p.ch:
		return true
	case <-time.After(d):
		return false
	}
}

// TestPromptsListChanged drives a live.Refresher over a real tree: adding,
// editing and removing a command file each reach the client as
// prompts/list_changed, and a rescan that changes nothing sends none.
func TestPromptsListChanged(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			tr := newTree(t)
			writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
			writeFile(t, tr.cmdFile("first.md"), []byte("First command.\n"))
			eng := newEngine(t, tr.home, tr.ws)
			srv := New(snapshot(t, eng), Options{Logger: discard()})
			ref := refresherFor(srv, eng, live.Options{})
			changes := &promptChanges{ch: make(chan struct{}, 100)}
			tools := newChangeCounter()
			opts := changes.options()
			opts.ToolListChangedHandler = tools.options().ToolListChangedHandler
			ctx := testCtx(t, 20*time.Second)
			cs := connect(t, srv, pv, opts)
			descOf := func() map[string]string {
				out := map[string]string{}
				for n, p := range promptsByName(t, ctx, cs) {
					out[n] = p.Description
				}
				return out
			}
			if d := cmp.Diff(map[string]string{"first": "First command."}, descOf()); d != "" {
				t.Fatalf("initial prompts (-want +got):\n%s", d)
			}

			ref.Refresh(ctx)
			if changes.wait(300 * time.Millisecond) {
				t.Error("prompts/list_changed sent although nothing changed")
			}

			steps := []struct {
				name string
				do   func(t *testing.T)
				want map[string]string
			}{
				{"command added", func(t *testing.T) {
					writeFile(t, tr.cmdFile("second.md"), []byte("---\ndescription: Second.\n---\n$ARGUMENTS\n"))
				}, map[string]string{"first": "First command.", "second": "Second."}},
				{"command edited", func(t *testing.T) {
					writeFile(t, tr.cmdFile("first.md"), []byte("First command, edited at length.\n"))
				}, map[string]string{"first": "First command, edited at length.", "second": "Second."}},
				{"body edited only", func(t *testing.T) {
					writeFile(t, tr.cmdFile("second.md"), []byte("---\ndescription: Second.\n---\nNew body: $ARGUMENTS\n"))
				}, map[string]string{"first": "First command, edited at length.", "second": "Second."}},
				{"command removed", func(t *testing.T) {
					if err := os.Remove(tr.cmdFile("first.md")); err != nil {
						t.Fatal(err)
					}
				}, map[string]string{"second": "Second."}},
			}
			for _, st := range steps {
				st.do(t)
				ref.Refresh(ctx)
				if !changes.wait(5 * time.Second) {
					t.Fatalf("%s: no prompts/list_changed within 5s", st.name)
				}
				if d := cmp.Diff(st.want, descOf()); d != "" {
					t.Errorf("%s: prompts (-want +got):\n%s", st.name, d)
				}
			}
			if text, err := promptText(ctx, cs, "second", map[string]string{"arguments": "v"}); err != nil || text != "New body: v\n" {
				t.Errorf("second after the edit: %q, %v", text, err)
			}
			// Commands never touched the skill tool.
			if tools.wait(200 * time.Millisecond) {
				t.Error("tools/list_changed sent for command changes")
			}
		})
	}
}

// TestSyncPromptsNoChange checks Update's bookkeeping directly: an equal
// snapshot registers nothing again.
func TestSyncPromptsNoChange(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr.cmdFile("a.md"), []byte("A.\n"))
	cfg := configs.Default(all.Registry())
	eng, err := engine.New(cfg, providers.NewEnv(tr.home, tr.ws, func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	srv := New(snapshot(t, eng), Options{})
	srv.mu.Lock()
	changed := srv.syncPrompts(snapshot(t, eng))
	srv.mu.Unlock()
	if changed {
		t.Error("syncPrompts reported a change for an equal snapshot")
	}
	writeFile(t, tr.cmdFile("b.md"), []byte("B.\n"))
	srv.mu.Lock()
	changed = srv.syncPrompts(snapshot(t, eng))
	srv.mu.Unlock()
	if !changed {
		t.Error("syncPrompts missed an added command")
	}
}
