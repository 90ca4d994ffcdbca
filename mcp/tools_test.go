package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// toolNamePattern is what every major client accepts as a tool name.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// listToolsByName lists the tools and indexes them by name.
func listToolsByName(t *testing.T, ctx context.Context, cs *sdk.ClientSession) map[string]*sdk.Tool {
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

// callNamed calls the tool name with args and fails on a protocol error.
func callNamed(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// schemaOf resolves a schema as a client received it.
func schemaOf(t *testing.T, schema any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("schema does not decode: %v\n%s", err, raw)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema does not resolve: %v\n%s", err, raw)
	}
	return r
}

// structured checks a successful result of tool against the tool's output
// schema, checks that its text content is one line, and decodes the
// structured content into T, refusing unknown fields.
func structured[T any](t *testing.T, tool *sdk.Tool, res *sdk.CallToolResult) T {
	t.Helper()
	var zero T
	if res.IsError {
		t.Fatalf("%s: isError result: %s", tool.Name, resultText(t, res))
	}
	if tool.OutputSchema == nil {
		t.Fatalf("%s has no output schema", tool.Name)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || res.StructuredContent == nil {
		t.Fatalf("%s: no structured content (%v)", tool.Name, err)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := schemaOf(t, tool.OutputSchema).Validate(inst); err != nil {
		t.Fatalf("%s: structured content does not match the output schema: %v\n%s", tool.Name, err, raw)
	}
	text := resultText(t, res)
	if text == "" || strings.Contains(text, "\n") {
		t.Errorf("%s: text content %q is not one line", tool.Name, text)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&zero); err != nil {
		t.Fatalf("%s: structured content does not decode: %v\n%s", tool.Name, err, raw)
	}
	return zero
}

// toolError expects an isError result and returns its text.
func wantToolError(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError result, got %s", resultText(t, res))
	}
	return resultText(t, res)
}

// toolSkills is a set of skills for the tool tests: a body-only word,
// a description-only word, a plugin id and provider mixes.
func toolSkills(t *testing.T) []*pipeline.Record {
	t.Helper()
	return makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "Fill PDF forms and extract text.",
			body: "---\nname: pdf\ndescription: Fill PDF forms and extract text.\n---\n# PDF\n\nUse pdftk to fill the form fields; the xylophone trick flattens them.\n"},
		skillSpec{provider: "codex", name: "changelog", desc: "Write release notes from commits; handles PDF exports too."},
		skillSpec{provider: "codex", name: "review", desc: "Review a pull request.",
			body: "---\nname: review\ndescription: Review a pull request.\n---\n# Review\n\nRead every hunk. Mention the xylophone only when asked.\n"},
		skillSpec{provider: "claude", loc: pipeline.LocationPlugin, name: "tools:lint", desc: "Lint code with the house rules.",
			plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "market", Version: "1.0.0"}},
	)
}

func TestToolNamesAndSchemas(t *testing.T) {
	srv := New(snapOf(toolSkills(t)), Options{Logger: discard(), Tools: OptionalTools})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			tools := listToolsByName(t, ctx, cs)
			names := make([]string, 0, len(tools))
			for name := range tools {
				names = append(names, name)
				if !toolNamePattern.MatchString(name) {
					t.Errorf("tool name %q has characters some clients refuse", name)
				}
			}
			slices.Sort(names)
			if want := []string{"ask", "skill", "skills_list", "skills_search", "sources"}; !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}
			for _, name := range OptionalTools {
				if tools[name].OutputSchema == nil {
					t.Errorf("%s has no output schema", name)
				}
				// The validator the tests rely on is live: an empty object
				// lacks the required keys.
				if err := schemaOf(t, tools[name].OutputSchema).Validate(map[string]any{}); err == nil {
					t.Errorf("%s output schema accepts {}", name)
				}
				schemaOf(t, tools[name].InputSchema)
			}
			// The constraints the SDK cannot infer from Go types reach
			// the client.
			in := func(tool, prop string) map[string]any {
				props := tools[tool].InputSchema.(map[string]any)["properties"].(map[string]any)
				return props[prop].(map[string]any)
			}
			if q := in(ToolSkillsSearch, "query"); q["minLength"] != 1.0 || q["type"] != "string" {
				t.Errorf("skills_search query schema %v, want a string with minLength 1", q)
			}
			if l := in(ToolSkillsSearch, "limit"); l["minimum"] != 1.0 || l["maximum"] != 25.0 || l["default"] != 10.0 || l["type"] != "integer" {
				t.Errorf("skills_search limit schema %v, want an integer 1..25, default 10", l)
			}
			if req := tools[ToolSkillsSearch].InputSchema.(map[string]any)["required"]; fmt.Sprint(req) != "[query]" {
				t.Errorf("skills_search requires %v, want [query]", req)
			}
			if b := in(ToolSkillsList, "includeBody"); b["type"] != "boolean" {
				t.Errorf("skills_list includeBody schema %v", b)
			}
			if req, ok := tools[ToolSkillsList].InputSchema.(map[string]any)["required"]; ok && fmt.Sprint(req) != "[]" {
				t.Errorf("skills_list requires %v, want nothing", req)
			}
			if s := in(ToolAsk, "sources"); s["minItems"] != 1.0 || s["type"] != "array" {
				t.Errorf("ask sources schema %v", s)
			}
		})
	}
}

func TestToolsAreOptIn(t *testing.T) {
	srv := New(snapOf(toolSkills(t)), Options{Logger: discard(), Tools: []string{ToolSources, "nonsense"}})
	ctx := testCtx(t, 10*time.Second)
	tools := listToolsByName(t, ctx, connect(t, srv, "", nil))
	if len(tools) != 2 || tools[ToolName] == nil || tools[ToolSources] == nil {
		t.Fatalf("tools %v, want skill and sources only", keysOf(tools))
	}
}

func keysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestSkillsList(t *testing.T) {
	recs := toolSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard(), Tools: []string{ToolSkillsList}})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			tool := listToolsByName(t, ctx, cs)[ToolSkillsList]

			all := structured[ListOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsList, map[string]any{}))
			if len(all.Skills) != len(recs) {
				t.Fatalf("%d skills, want %d", len(all.Skills), len(recs))
			}
			for i, r := range recs { // priority order, every field
				want := SkillInfo{ID: r.ID, Name: r.Name, Description: r.Description, Provider: r.Agent,
					Location: string(r.Location), Path: r.Dir, File: r.File}
				if got := all.Skills[i]; got != want {
					t.Errorf("skill %d = %+v, want %+v", i, got, want)
				}
			}
			if id := all.Skills[3].ID; id != "claude:@tools:lint" {
				t.Errorf("plugin skill id %q", id)
			}

			// query: case-insensitive substring of id, name or description.
			res := callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"query": "pdf"})
			got := structured[ListOutput](t, tool, res)
			if ids := infoIDs(got.Skills); !slices.Equal(ids, []string{"claude:pdf", "codex:changelog"}) {
				t.Errorf("query pdf gave %v, want claude:pdf (name) and codex:changelog (description)", ids)
			}
			if text := resultText(t, res); !strings.Contains(text, "2 skills") || !strings.Contains(text, "claude:pdf") {
				t.Errorf("summary %q does not count and name the skills", text)
			}
			got = structured[ListOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"query": "@TOOLS"}))
			if ids := infoIDs(got.Skills); !slices.Equal(ids, []string{"claude:@tools:lint"}) {
				t.Errorf("query @TOOLS (id only) gave %v", ids)
			}
			res = callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"query": "xylophone"}) // in bodies only
			if got = structured[ListOutput](t, tool, res); len(got.Skills) != 0 {
				t.Errorf("query matched bodies: %v", infoIDs(got.Skills))
			}
			if text := resultText(t, res); !strings.Contains(text, "No skill") {
				t.Errorf("empty summary %q", text)
			}

			// includeBody: the body without frontmatter.
			got = structured[ListOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsList,
				map[string]any{"query": "fill pdf", "includeBody": true}))
			if len(got.Skills) != 1 || got.Skills[0].Body == nil {
				t.Fatalf("includeBody gave %+v", got.Skills)
			}
			if want := "# PDF\n\nUse pdftk to fill the form fields; the xylophone trick flattens them.\n"; *got.Skills[0].Body != want {
				t.Errorf("body %q, want %q", *got.Skills[0].Body, want)
			}
			if all.Skills[0].Body != nil {
				t.Error("body returned without includeBody")
			}

			// Unknown arguments are refused by the schema.
			if msg := wantToolError(t, callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"filter": "x"})); !strings.Contains(msg, "filter") {
				t.Errorf("unknown argument error %q", msg)
			}
		})
	}
}

func infoIDs(skills []SkillInfo) []string {
	out := make([]string, len(skills))
	for i, s := range skills {
		out[i] = s.ID
	}
	return out
}

func resultIDs(results []SearchResult) []string {
	out := make([]string, len(results))
	for i, s := range results {
		out[i] = s.ID
	}
	return out
}

func TestSkillsListBodyCap(t *testing.T) {
	big := strings.Repeat("x", MaxListBodies/2+10) + "\n"
	var specs []skillSpec
	for i := range 3 {
		name := fmt.Sprintf("big%d", i)
		specs = append(specs, skillSpec{provider: "codex", name: name, desc: "Big.",
			body: "---\nname: " + name + "\ndescription: Big.\n---\n" + big})
	}
	srv := New(snapOf(makeRecords(t, t.TempDir(), specs...)), Options{Logger: discard(), Tools: []string{ToolSkillsList}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	tool := listToolsByName(t, ctx, cs)[ToolSkillsList]
	res := callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"includeBody": true})
	got := structured[ListOutput](t, tool, res)
	if got.OmittedBodies != 2 || got.Skills[0].Body == nil || got.Skills[1].Body != nil || got.Skills[2].Body != nil {
		t.Errorf("omitted %d; bodies present %v %v %v, want only the first", got.OmittedBodies,
			got.Skills[0].Body != nil, got.Skills[1].Body != nil, got.Skills[2].Body != nil)
	}
	if text := resultText(t, res); !strings.Contains(text, "Bodies of 2 skills left out") {
		t.Errorf("summary %q does not say bodies were left out", text)
	}
}

func TestSkillsSearch(t *testing.T) {
	recs := toolSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard(), Tools: []string{ToolSkillsSearch}})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			tool := listToolsByName(t, ctx, cs)[ToolSkillsSearch]
			search := func(args map[string]any) SearchOutput {
				t.Helper()
				return structured[SearchOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsSearch, args))
			}

			got := search(map[string]any{"query": "PDF"})
			if got.Query != "PDF" || got.Limit != DefaultSearchLimit || got.Total != 2 {
				t.Errorf("query %q limit %d total %d, want PDF, %d, 2", got.Query, got.Limit, got.Total, DefaultSearchLimit)
			}
			// The name match outranks the description match.
			if ids := resultIDs(got.Results); !slices.Equal(ids, []string{"claude:pdf", "codex:changelog"}) {
				t.Fatalf("results %v", ids)
			}
			if got.Results[0].Score <= got.Results[1].Score {
				t.Errorf("scores %d, %d: the name match should score higher", got.Results[0].Score, got.Results[1].Score)
			}
			if r := got.Results[0]; r.Path != recs[0].Dir || r.File != recs[0].File || r.Provider != "claude" || r.Description != recs[0].Description {
				t.Errorf("result fields %+v", r)
			}
			// The description-only match gets an excerpt of the description.
			if ex := got.Results[1].Excerpt; !strings.Contains(ex, "PDF exports") {
				t.Errorf("description excerpt %q", ex)
			}

			// Every token must occur; bodies count.
			got = search(map[string]any{"query": "xylophone"})
			if ids := resultIDs(got.Results); !slices.Equal(ids, []string{"claude:pdf", "codex:review"}) {
				t.Errorf("body word found %v", ids)
			}
			for _, r := range got.Results {
				if !strings.Contains(r.Excerpt, "xylophone") || utf8.RuneCountInString(r.Excerpt) > ExcerptLen+2 {
					t.Errorf("excerpt %q should hold the match and be about %d characters", r.Excerpt, ExcerptLen)
				}
			}
			got = search(map[string]any{"query": "xylophone hunk"})
			if ids := resultIDs(got.Results); !slices.Equal(ids, []string{"codex:review"}) || got.Total != 1 {
				t.Errorf("two tokens found %v (total %d), want only codex:review", ids, got.Total)
			}
			res := callNamed(t, ctx, cs, ToolSkillsSearch, map[string]any{"query": "xylophone zebra"})
			if got = structured[SearchOutput](t, tool, res); got.Total != 0 || len(got.Results) != 0 {
				t.Errorf("a token that matches nothing still found %v", resultIDs(got.Results))
			}
			if text := resultText(t, res); !strings.Contains(text, "No skill matches") {
				t.Errorf("no-match summary %q", text)
			}

			// Bad input is a tool error the model can read.
			for _, args := range []map[string]any{{"query": ""}, {"query": "   "}, {"query": "pdf", "limit": 0},
				{"query": "pdf", "limit": 26}, {}, {"query": "pdf", "limit": "3"}} {
				if res := callNamed(t, ctx, cs, ToolSkillsSearch, args); !res.IsError {
					t.Errorf("%v: want an error, got %s", args, resultText(t, res))
				}
			}
		})
	}
}

func TestSkillsSearchLimit(t *testing.T) {
	var specs []skillSpec
	for i := range 30 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("common-%02d", i), desc: "A common skill."})
	}
	srv := New(snapOf(makeRecords(t, t.TempDir(), specs...)), Options{Logger: discard(), Tools: []string{ToolSkillsSearch}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	tool := listToolsByName(t, ctx, cs)[ToolSkillsSearch]
	for _, tc := range []struct {
		args      map[string]any
		wantLimit int
	}{
		{map[string]any{"query": "common"}, 10},
		{map[string]any{"query": "common", "limit": 1}, 1},
		{map[string]any{"query": "common", "limit": 25}, 25},
	} {
		res := callNamed(t, ctx, cs, ToolSkillsSearch, tc.args)
		got := structured[SearchOutput](t, tool, res)
		if got.Limit != tc.wantLimit || len(got.Results) != tc.wantLimit || got.Total != 30 {
			t.Errorf("%v: limit %d, %d results, total %d; want %d, %d, 30", tc.args, got.Limit, len(got.Results), got.Total,
				tc.wantLimit, tc.wantLimit)
		}
		if text := resultText(t, res); !strings.Contains(text, "30 skills match") || !strings.Contains(text, fmt.Sprintf("best %d shown", tc.wantLimit)) {
			t.Errorf("summary %q", text)
		}
	}
}

func TestToolsKeepTheirSnapshot(t *testing.T) {
	base := t.TempDir()
	first := makeRecords(t, filepath.Join(base, "a"), skillSpec{provider: "codex", name: "alpha", desc: "First."})
	srv := New(snapOf(first), Options{Logger: discard(), Tools: []string{ToolSkillsList}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	tool := listToolsByName(t, ctx, cs)[ToolSkillsList]
	second := makeRecords(t, filepath.Join(base, "b"), skillSpec{provider: "codex", name: "beta", desc: "Second."})
	srv.Update(snapOf(second))
	got := structured[ListOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsList, nil))
	if ids := infoIDs(got.Skills); !slices.Equal(ids, []string{"codex:beta"}) {
		t.Errorf("after Update skills_list shows %v, want the new snapshot", ids)
	}
}

// TestToolsRefuseWhileDraining checks that every optional tool, given
// valid arguments, answers a call that arrives during shutdown with the
// shutting-down error rather than running.
func TestToolsRefuseWhileDraining(t *testing.T) {
	srv := New(snapOf(toolSkills(t)), Options{Logger: discard(), Tools: OptionalTools})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "2025-11-25", nil)
	srv.Drain(0)
	args := map[string]map[string]any{
		ToolSkillsList:   {},
		ToolSkillsSearch: {"query": "pdf"},
		ToolSources:      {},
		ToolAsk:          {"sources": []any{"claude"}, "question": "What is it?"},
	}
	for _, name := range OptionalTools {
		if msg := wantToolError(t, callNamed(t, ctx, cs, name, args[name])); msg != errDraining.Error() {
			t.Errorf("%s while draining: %q, want %q", name, msg, errDraining)
		}
	}
}

// TestSkillsListBodyEdges: a byte order mark without frontmatter is not
// part of the body, and a SKILL.md too large for any body to fit is not
// read whole but counted as omitted.
func TestSkillsListBodyEdges(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "bom", desc: "Marked.", body: "\ufeff# Marked\n"},
		skillSpec{provider: "codex", name: "huge", desc: "Huge.", body: "---\nname: huge\ndescription: Huge.\n---\n" + strings.Repeat("y", maxBodyFile)},
		skillSpec{provider: "codex", name: "small", desc: "Small."})
	srv := New(snapOf(recs), Options{Logger: discard(), Tools: []string{ToolSkillsList}})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	tool := listToolsByName(t, ctx, cs)[ToolSkillsList]
	got := structured[ListOutput](t, tool, callNamed(t, ctx, cs, ToolSkillsList, map[string]any{"includeBody": true}))
	if len(got.Skills) != 3 || got.OmittedBodies != 1 {
		t.Fatalf("%d skills, %d omitted; want 3 and 1", len(got.Skills), got.OmittedBodies)
	}
	if b := got.Skills[0].Body; b == nil || *b != "# Marked\n" {
		t.Errorf("BOM body %v, want %q", b, "# Marked\n")
	}
	if got.Skills[1].Body != nil {
		t.Error("the huge body was returned")
	}
	if b := got.Skills[2].Body; b == nil || *b != "# small\n" {
		t.Errorf("small body %v, want %q", b, "# small\n")
	}
}
