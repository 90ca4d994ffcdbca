package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// stubModel is the client's model in the tests: it records every
// sampling request and answers with a fixed text.
type stubModel struct {
	mu     sync.Mutex
	asked  []*sdk.CreateMessageParams
	answer string
}

func (m *stubModel) options() *sdk.ClientOptions {
	return &sdk.ClientOptions{CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.asked = append(m.asked, req.Params)
		return &sdk.CreateMessageResult{Role: "assistant", Model: "stub-1", Content: &sdk.TextContent{Text: m.answer}}, nil
	}}
}

// requests returns the sampling requests so far and forgets them.
func (m *stubModel) requests() []*sdk.CreateMessageParams {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := m.asked
	m.asked = nil
	return out
}

// askSkills are skills of three providers, each with a distinct body line.
func askSkills(t *testing.T) ([]*pipeline.Record, *pipeline.Snapshot) {
	t.Helper()
	spec := func(provider, name, line string) skillSpec {
		return skillSpec{provider: provider, name: name, desc: "About " + name + ".",
			body: "---\nname: " + name + "\ndescription: About " + name + ".\n---\n# " + name + "\n\n" + line + "\n"}
	}
	recs := makeRecords(t, t.TempDir(),
		spec("claude", "pdf", "Fill forms with pdftk fill_form."),
		spec("codex", "changelog", "Group commits by type."),
		spec("codex", "review", "Read every hunk twice."),
		spec("claude", "deploy", "Deploy with make ship."))
	roots := []pipeline.RootReport{
		{Root: pipeline.Root{Path: recs[0].Root, Agent: "claude"}, Exists: true, Skills: 2},
		{Root: pipeline.Root{Path: recs[1].Root, Agent: "codex"}, Exists: true, Skills: 2},
		{Root: pipeline.Root{Path: filepath.Join(t.TempDir(), "gemini"), Agent: "gemini"}, Exists: false},
	}
	return recs, pipeline.NewSnapshot(recs, recs, nil, roots, nil)
}

func fileText(t *testing.T, r *pipeline.Record) string {
	t.Helper()
	data, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestAsk(t *testing.T) {
	recs, snap := askSkills(t)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}, AskContext: 100000})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			model := &stubModel{answer: "Use pdftk fill_form, per claude:pdf."}
			cs := connect(t, srv, pv, model.options())
			tool := listToolsByName(t, ctx, cs)[ToolAsk]
			ask := func(sources []string, question string) (*sdk.CallToolResult, []*sdk.CreateMessageParams) {
				t.Helper()
				res := callNamed(t, ctx, cs, ToolAsk, map[string]any{"sources": sources, "question": question})
				return res, model.requests()
			}

			// One provider: its skills, whole, and the question go to the model.
			res, asked := ask([]string{"Claude"}, "How do I fill a PDF form?")
			if text := resultText(t, res); text != model.answer {
				t.Fatalf("ask returned %q, want the model's answer", text)
			}
			raw := structuredAsk(t, tool, res)
			if raw.Answer != model.answer || raw.Model != "stub-1" || !slices.Equal(raw.Skills, []string{"claude:pdf", "claude:deploy"}) ||
				len(raw.Omitted) != 0 || raw.Truncated {
				t.Errorf("structured result %+v", raw)
			}
			if len(asked) != 1 {
				t.Fatalf("%d sampling requests, want 1", len(asked))
			}
			p := asked[0]
			if p.SystemPrompt != askSystemPrompt || p.MaxTokens != AskMaxTokens || len(p.Messages) != 1 || p.Messages[0].Role != "user" {
				t.Fatalf("sampling request %+v", p)
			}
			msg := p.Messages[0].Content.(*sdk.TextContent).Text
			for _, r := range []*pipeline.Record{recs[0], recs[3]} {
				if !strings.Contains(msg, fileText(t, r)) || !strings.Contains(msg, `<skill id="`+r.ID+`" folder="`+r.Dir+`">`) {
					t.Errorf("the request lacks %s's SKILL.md:\n%s", r.ID, msg)
				}
			}
			if !strings.HasSuffix(msg, "\n\nQuestion: How do I fill a PDF form?") {
				t.Errorf("the request does not end with the question:\n%s", msg)
			}
			if strings.Contains(msg, "Group commits") || strings.Contains(msg, "hunk") {
				t.Error("the request holds skills of a source not asked for")
			}

			// Several sources combine, in priority order, each skill once:
			// a provider, a folder and a skill name.
			res, asked = ask([]string{recs[2].Dir, "claude", "changelog", "claude:pdf"}, "What is there?")
			raw = structuredAsk(t, tool, res)
			if want := []string{"claude:pdf", "codex:changelog", "codex:review", "claude:deploy"}; !slices.Equal(raw.Skills, want) {
				t.Errorf("combined sources gave %v, want %v", raw.Skills, want)
			}
			if msg := asked[0].Messages[0].Content.(*sdk.TextContent).Text; strings.Count(msg, "<skill id=") != 4 {
				t.Errorf("combined request holds %d skills, want 4", strings.Count(msg, "<skill id="))
			}
			// A root folder selects the skills under it.
			res, _ = ask([]string{recs[1].Root + string(filepath.Separator)}, "q")
			if raw = structuredAsk(t, tool, res); !slices.Equal(raw.Skills, []string{"codex:changelog", "codex:review"}) {
				t.Errorf("root folder gave %v", raw.Skills)
			}

			// Unknown sources: an error naming each, with suggestions, and
			// no question to the model.
			res, asked = ask([]string{"codx", "/no/such/place", "claude"}, "q")
			msg = wantToolError(t, res)
			for _, want := range []string{`Unknown source "codx" (did you mean codex?)`, `unknown source "/no/such/place"`,
				"Sources are provider names (claude, codex, gemini)"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q lacks %q", msg, want)
				}
			}
			if len(asked) != 0 {
				t.Error("the model was asked despite an unknown source")
			}
			if msg := wantToolError(t, callNamed(t, ctx, cs, ToolAsk, map[string]any{"sources": []string{"gemini"}, "question": "q"})); !strings.Contains(msg, `Source "gemini" has no visible skills`) {
				t.Errorf("a provider without skills: %q", msg)
			}
			for _, args := range []map[string]any{{"sources": []string{}, "question": "q"}, {"sources": []string{"claude"}},
				{"sources": []string{"claude"}, "question": "  "}, {"sources": []string{""}, "question": "q"}} {
				if res := callNamed(t, ctx, cs, ToolAsk, args); !res.IsError {
					t.Errorf("%v: want an error", args)
				}
			}
		})
	}
}

// structuredAsk validates and decodes an ask result.
func structuredAsk(t *testing.T, tool *sdk.Tool, res *sdk.CallToolResult) AskOutput {
	t.Helper()
	// The text content is the answer itself, which may span lines: check
	// the schema without structured's one-line rule.
	if res.IsError {
		t.Fatalf("ask failed: %s", resultText(t, res))
	}
	var inst any
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := schemaOf(t, tool.OutputSchema).Validate(inst); err != nil {
		t.Fatalf("ask result does not match its output schema: %v\n%s", err, raw)
	}
	var out AskOutput
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAskWithoutSampling(t *testing.T) {
	_, snap := askSkills(t)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			msg := wantToolError(t, callNamed(t, ctx, cs, ToolAsk, map[string]any{"sources": []string{"claude"}, "question": "q"}))
			if !strings.Contains(msg, "This client does not support sampling") || !strings.Contains(msg, "deprecated since protocol 2026-07-28") {
				t.Errorf("error %q does not say the client lacks sampling, deprecated since 2026-07-28", msg)
			}
		})
	}
}

// TestAskDescribesSampling checks the ask tool says it relies on
// sampling, which protocol 2026-07-28 deprecates.
func TestAskDescribesSampling(t *testing.T) {
	_, snap := askSkills(t)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}})
	ctx := testCtx(t, 10*time.Second)
	desc := listToolsByName(t, ctx, connect(t, srv, "", nil))[ToolAsk].Description
	for _, want := range []string{"Relies on MCP sampling", "2026-07-28 deprecates"} {
		if !strings.Contains(desc, want) {
			t.Errorf("ask description lacks %q:\n%s", want, desc)
		}
	}
}

func TestAskContextCap(t *testing.T) {
	recs, snap := askSkills(t)
	sizes := []int{len(fileText(t, recs[0])), len(fileText(t, recs[1])), len(fileText(t, recs[2]))}
	for _, tc := range []struct {
		name          string
		limit         int
		skills, left  []string
		truncated     bool
		wantInMessage string
	}{
		// Room for the first and third, not the second: whole files only,
		// the next ones are still tried.
		{"whole files", sizes[0] + sizes[2] + 1, []string{"claude:pdf", "codex:review"}, []string{"codex:changelog"}, false,
			"left out for size: codex:changelog"},
		// Room for none: the start of the first, marked as cut.
		{"one cut", 20, []string{"claude:pdf"}, []string{"codex:changelog", "codex:review"}, true, "[… cut here"},
		{"no cap", 0, []string{"claude:pdf", "codex:changelog", "codex:review"}, []string{}, false, "Read every hunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "whole files" && sizes[1] <= sizes[2] {
				t.Fatalf("fixture sizes %v: the second file must be the largest", sizes)
			}
			srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}, AskContext: tc.limit})
			ctx := testCtx(t, 10*time.Second)
			model := &stubModel{answer: "ok"}
			cs := connect(t, srv, "2025-11-25", model.options())
			tool := listToolsByName(t, ctx, cs)[ToolAsk]
			res := callNamed(t, ctx, cs, ToolAsk, map[string]any{"sources": []string{"claude:pdf", "codex"}, "question": "q"})
			got := structuredAsk(t, tool, res)
			if !slices.Equal(got.Skills, tc.skills) || !slices.Equal(got.Omitted, tc.left) || got.Truncated != tc.truncated {
				t.Errorf("skills %v omitted %v truncated %v; want %v %v %v", got.Skills, got.Omitted, got.Truncated,
					tc.skills, tc.left, tc.truncated)
			}
			asked := model.requests()
			if len(asked) != 1 {
				t.Fatalf("%d requests", len(asked))
			}
			msg := asked[0].Messages[0].Content.(*sdk.TextContent).Text
			if !strings.Contains(msg, tc.wantInMessage) {
				t.Errorf("request lacks %q:\n%s", tc.wantInMessage, msg)
			}
			if tc.truncated && strings.Contains(msg, fileText(t, recs[0])) {
				t.Error("the cut file was sent whole")
			}
		})
	}
}

// TestAskContextSkipsRunawayFile: a SKILL.md over skillmd.MaxSkillFile is
// never sent whole, even with no context cap: it is left out for size,
// and only its beginning is cut in when nothing else fits.
func TestAskContextSkipsRunawayFile(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "huge", desc: "Runaway."},
		skillSpec{provider: "claude", name: "small", desc: "Small."})
	if err := os.Truncate(recs[0].File, skillmd.MaxSkillFile+1); err != nil {
		t.Fatal(err)
	}
	text, out := askContext(nil, recs, 0, func(string, ...any) {})
	if !slices.Equal(out.Skills, []string{recs[1].ID}) || !slices.Equal(out.Omitted, []string{recs[0].ID}) || out.Truncated {
		t.Errorf("skills %q, omitted %q, truncated %v; want the small one sent and the huge one left out",
			out.Skills, out.Omitted, out.Truncated)
	}
	if len(text) > 1<<20 {
		t.Errorf("the context is %d bytes", len(text))
	}
	text, out = askContext(nil, recs[:1], 0, func(string, ...any) {})
	if !out.Truncated || len(out.Skills) != 1 || len(text) > skillmd.MaxSkillFile+1024 ||
		!strings.Contains(text, "[… cut here") {
		t.Errorf("alone: %d bytes, %+v; want its first %d bytes, marked as cut", len(text), out, skillmd.MaxSkillFile)
	}
}

// TestAskSamplingDeadline: a 2025-era client that never answers the
// sampling request does not keep its ask call, and with it a session and
// a connection, in flight forever: the call ends with a tool error
// naming the deadline once AskTimeout passes.
func TestAskSamplingDeadline(t *testing.T) {
	_, snap := askSkills(t)
	srv := New(snap, Options{Logger: discard(), Tools: []string{ToolAsk}, AskTimeout: 200 * time.Millisecond})
	co := &sdk.ClientOptions{CreateMessageHandler: func(ctx context.Context, _ *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		<-ctx.Done() // never answers
		return nil, ctx.Err()
	}}
	cs := connect(t, srv, "2025-11-25", co)
	res, err := cs.CallTool(testCtx(t, 20*time.Second), &sdk.CallToolParams{Name: ToolAsk,
		Arguments: map[string]any{"sources": []string{"claude"}, "question": "q"}})
	if err != nil {
		t.Fatalf("the ask call ended with %v, want a tool error", err)
	}
	if text := resultText(t, res); !res.IsError || !strings.Contains(text, "did not answer") || !strings.Contains(text, "200ms") {
		t.Errorf("result %q (error %v), want a tool error naming the deadline", text, res.IsError)
	}
}
