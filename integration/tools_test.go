package integration

// End-to-end tests of the optional tools (skills_list, skills_search,
// sources, ask), the catalogue budget and skill files as resources: the
// go-sdk client drives the built binary over stdio on both protocol
// versions, against a copy of the synthetic machine.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

// allTools turns every optional tool on.
const allTools = "skills_list,skills_search,sources,ask"

// samplingStub is the client's model: it records the sampling requests
// and answers with a fixed text.
type samplingStub struct {
	mu    sync.Mutex
	texts []string
}

const stubAnswer = "Write it in the conventional commit style (from claude:commit-helper)."

func (s *samplingStub) handler(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range req.Params.Messages {
		if tc, ok := m.Content.(*sdk.TextContent); ok {
			s.texts = append(s.texts, tc.Text)
		}
	}
	return &sdk.CreateMessageResult{Role: "assistant", Model: "stub", Content: &sdk.TextContent{Text: stubAnswer}}, nil
}

func (s *samplingStub) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.texts)
}

// startToolServer starts `ccski mcp` with args over stdio and connects a
// client with the given options.
func startToolServer(t *testing.T, ctx context.Context, m *machine.Machine, pv string, co *sdk.ClientOptions, args ...string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, mcpArgs(m, append([]string{"--refresh-interval", "1h"}, args...)...)...)
	cmd.Dir = m.Workspace
	cmd.Env = env(m, nil)
	cmd.Stderr = stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "tools-test", Version: "0"}, co).Connect(ctx,
		&sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, &sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("connect (protocol %q): %v\nstderr:\n%s", pv, err, stderr)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		if cmd.ProcessState != nil && cmd.ProcessState.ExitCode() != 0 {
			t.Errorf("ccski mcp exited %d\nstderr:\n%s", cmd.ProcessState.ExitCode(), stderr)
		}
	})
	return cs, stderr
}

func toolsByName(t *testing.T, ctx context.Context, cs *sdk.ClientSession) map[string]*sdk.Tool {
	t.Helper()
	out := map[string]*sdk.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		out[tool.Name] = tool
	}
	return out
}

// callStructured calls a tool, checks its structured content against the
// tool's output schema and decodes it into v.
func callStructured(t *testing.T, ctx context.Context, cs *sdk.ClientSession, tool *sdk.Tool, args any, v any) string {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool.Name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool.Name, err)
	}
	text, err := resultText(res)
	if err != nil || res.IsError {
		t.Fatalf("%s %v: error result %q (%v)", tool.Name, args, text, err)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("%s: no structured content", tool.Name)
	}
	rawSchema, _ := json.Marshal(tool.OutputSchema)
	var schema jsonschema.Schema
	if err := json.Unmarshal(rawSchema, &schema); err != nil {
		t.Fatalf("%s: output schema: %v", tool.Name, err)
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: output schema does not resolve: %v", tool.Name, err)
	}
	var inst any
	_ = json.Unmarshal(raw, &inst)
	if err := resolved.Validate(inst); err != nil {
		t.Fatalf("%s: result does not match the output schema: %v\n%s", tool.Name, err, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
	return text
}

type skillOut struct {
	ID, Name, Description, Provider, Location, Path, File string
	Body                                                  *string
}

// escapeID mirrors the id escaping of skill resource URIs.
func escapeID(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "~%02X", c)
	}
	return b.String()
}

func TestToolsOverStdio(t *testing.T) {
	m := newMachine(t)
	skills := listRecords(t, m, "--kind", "skill")
	home := filepath.Join(m.Home, ".claude", "skills", "commit-helper")
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			stub := &samplingStub{}
			cs, stderr := startToolServer(t, ctx, m, p.version, &sdk.ClientOptions{CreateMessageHandler: stub.handler}, "--tools", allTools)
			tools := toolsByName(t, ctx, cs)
			names := make([]string, 0, len(tools))
			for n := range tools {
				names = append(names, n)
				if !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(n) {
					t.Errorf("tool name %q", n)
				}
			}
			slices.Sort(names)
			if want := []string{"ask", "skill", "skills_list", "skills_search", "sources"}; !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v\nstderr:\n%s", names, want, stderr)
			}

			// skills_list: the skills `ccski list --json --kind skill` prints
			// (which sorts them by name; skills_list keeps priority order).
			var list struct{ Skills []skillOut }
			callStructured(t, ctx, cs, tools["skills_list"], map[string]any{}, &list)
			var got, want []string
			for _, s := range list.Skills {
				got = append(got, s.ID)
			}
			for _, s := range skills {
				want = append(want, s.ID)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("skills_list %v\nlist --json %v", got, want)
			}
			var one struct{ Skills []skillOut }
			callStructured(t, ctx, cs, tools["skills_list"], map[string]any{"query": "COMMIT-helper", "includeBody": true}, &one)
			if len(one.Skills) != 1 || one.Skills[0].ID != "claude:commit-helper" || one.Skills[0].Path != home ||
				one.Skills[0].Body == nil || !strings.HasPrefix(strings.TrimLeft(*one.Skills[0].Body, "\n"), "# Commit helper\n") {
				t.Errorf("skills_list query: %+v", one.Skills)
			}

			// skills_search ranks over bodies too.
			var found struct {
				Total   int
				Results []struct {
					ID      string
					Score   int
					Excerpt string
				}
			}
			text := callStructured(t, ctx, cs, tools["skills_search"], map[string]any{"query": "staged diff", "limit": 3}, &found)
			if found.Total < 1 || found.Results[0].ID != "claude:commit-helper" || !strings.Contains(found.Results[0].Excerpt, "staged diff") {
				t.Errorf("skills_search staged diff: %+v", found)
			}
			if !strings.Contains(text, "claude:commit-helper") || strings.Contains(text, "\n") {
				t.Errorf("skills_search summary %q", text)
			}

			// sources.
			var src struct {
				Roots []struct {
					Path, Provider, Status string
					Exists                 bool
					Skills                 int
				}
				Skills struct{ Visible int }
			}
			callStructured(t, ctx, cs, tools["sources"], map[string]any{}, &src)
			claudeUser := filepath.Join(m.Home, ".claude", "skills")
			ok := false
			for _, r := range src.Roots {
				if r.Path == claudeUser {
					ok = r.Exists && r.Status == "ok" && r.Skills > 0 && r.Provider == "claude"
				}
			}
			if !ok || src.Skills.Visible != len(skills) {
				t.Errorf("sources: claude user root not ok, or %d visible (want %d): %+v", src.Skills.Visible, len(skills), src.Roots)
			}

			// ask: the client's model answers with the skills as context.
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask",
				Arguments: map[string]any{"sources": []string{"claude"}, "question": "How should I word a commit message?"}})
			if err != nil {
				t.Fatalf("ask: %v", err)
			}
			if text, _ := resultText(res); res.IsError || text != stubAnswer {
				t.Fatalf("ask returned %q (isError %v)\nstderr:\n%s", text, res.IsError, stderr)
			}
			asked := stub.asked()
			skillMD, _ := os.ReadFile(filepath.Join(home, "SKILL.md"))
			if len(asked) != 1 || !strings.Contains(asked[0], string(skillMD)) || !strings.Contains(asked[0], "Question: How should I word a commit message?") {
				t.Errorf("the sampling request lacks the skill or the question: %d requests", len(asked))
			}
			res, _ = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{"sources": []string{"claud"}, "question": "q"}})
			if text, _ := resultText(res); !res.IsError || !strings.Contains(text, `Unknown source "claud" (did you mean claude`) {
				t.Errorf("unknown source: %q", text)
			}
		})
	}
}

func TestResourcesOverStdio(t *testing.T) {
	m := newMachine(t)
	skills := listRecords(t, m, "--kind", "skill")
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cs, _ := startToolServer(t, ctx, m, p.version, nil)
			listed := map[string]*sdk.Resource{}
			for r, err := range cs.Resources(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				listed[r.URI] = r
			}
			if len(listed) != len(skills) {
				t.Errorf("%d resources, %d skills", len(listed), len(skills))
			}
			for _, s := range skills {
				uri := s.URI // what ccski list --json says agents get
				short := s.Name[strings.LastIndexByte(s.Name, ':')+1:]
				if r := listed[uri]; r == nil || r.Name != short || r.Title != s.ID || r.MIMEType != "text/markdown" {
					t.Errorf("%s: listed as %+v", uri, r)
					continue
				}
				res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
				if err != nil {
					t.Errorf("reading %s: %v", uri, err)
					continue
				}
				want, _ := os.ReadFile(s.File)
				if len(res.Contents) != 1 || res.Contents[0].Text != string(want) {
					t.Errorf("%s does not read as %s", uri, s.File)
				}
				// The URI of earlier releases still reads, for one release.
				legacy := "skill://" + escapeID(s.ID) + "/SKILL.md"
				if old, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: legacy}); err != nil || old.Contents[0].Text != string(want) {
					t.Errorf("legacy %s: %v", legacy, err)
				}
			}
			base := "skill://claude/commit-helper/"
			dir := filepath.Join(m.Home, ".claude", "skills", "commit-helper")
			for rel, mime := range map[string]string{"references/conventional.md": "text/markdown", "assets/template.txt": "text/plain",
				"scripts/staged.sh": "text/x-shellscript"} {
				res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: base + rel})
				if err != nil {
					t.Fatalf("reading %s: %v", rel, err)
				}
				want, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
				if c := res.Contents[0]; c.Text != string(want) || c.MIMEType != mime {
					t.Errorf("%s read as %s %q", rel, c.MIMEType, c.Text)
				}
			}
			for _, rel := range []string{"../review/SKILL.md", "%2E%2E/%2E%2E/%2E%2E/.bashrc", "/etc/passwd", "references/missing.md"} {
				_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: base + rel})
				// A missing file is "Resource not found": -32002 in 2025-11-25.
				var we *jsonrpc.Error
				if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams && (p.version != "2025-11-25" || we.Code != -32002 || rel != "references/missing.md") {
					t.Errorf("reading %s: %v, want a -32602 error", rel, err)
				}
			}
		})
	}
}

func TestAskWithoutSamplingOverStdio(t *testing.T) {
	m := newMachine(t)
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cs, _ := startToolServer(t, ctx, m, p.version, nil, "--tools", "ask")
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask",
				Arguments: map[string]any{"sources": []string{"claude"}, "question": "q"}})
			if err != nil {
				t.Fatal(err)
			}
			if text, _ := resultText(res); !res.IsError || !strings.Contains(text, "does not support sampling") {
				t.Errorf("ask without sampling: %q (isError %v)", text, res.IsError)
			}
		})
	}
}

func TestCatalogueOverStdio(t *testing.T) {
	m := newMachine(t)
	skills := listRecords(t, m, "--kind", "skill")
	const budget = 1450 // too small to name every skill
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cs, stderr := startToolServer(t, ctx, m, p.version, nil, "--catalog", strconv.Itoa(budget))
			tools := toolsByName(t, ctx, cs)
			if len(tools) != 2 || tools["skills_search"] == nil {
				t.Fatalf("tools %v, want skill and skills_search\nstderr:\n%s", keys(tools), stderr)
			}
			desc := tools["skill"].Description
			if n := utf8.RuneCountInString(desc); n > budget {
				t.Errorf("description is %d characters, over %d", n, budget)
			}
			listed := len(catalogueNames(desc))
			if listed == 0 || listed >= len(skills) {
				t.Fatalf("%d of %d skills listed", listed, len(skills))
			}
			if !regexp.MustCompile(`\b` + strconv.Itoa(len(skills)-listed) + ` more skills? (is|are) installed`).MatchString(desc) {
				t.Errorf("the description does not state the %d left out", len(skills)-listed)
			}
			for _, s := range skills {
				text, err := loadSkill(ctx, cs, s.ID)
				if err != nil || !strings.HasPrefix(text, "Loading: "+s.ID+"\n") {
					t.Errorf("loading %s: %v %.40q", s.ID, err, text)
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
