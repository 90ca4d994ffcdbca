package mcp

// The optional tools (Options.Tools): skills_list and skills_search return
// structured results described by an output schema, with a one-line text
// summary beside them; sources (sources.go) and ask (ask.go) are the MCP
// faces of `ccski sources` and of a question put to the client's model.
// skills_search is also served, whatever Options.Tools says, while the
// catalogue budget cuts the skill tool's list (catalog.go).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/search"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/mcp/tools"
	"github.com/ccski/ccski/pipeline"
)

// The names of the optional tools, from the tool list (package
// mcp/tools). Tool names use only letters, digits, '_' and '-', which
// every major client accepts.
const (
	ToolSkillsList   = tools.SkillsList
	ToolSkillsSearch = tools.SkillsSearch
	ToolSources      = tools.Sources
	ToolAsk          = tools.Ask
)

// OptionalTools lists the tools Options.Tools may name: the opt-in tools
// of the tool list.
var OptionalTools = tools.OptIn()

// newTool describes the tool name of the tool list (package mcp/tools)
// to clients: its title and behaviour hints come from the list, its
// description and schemas from the caller (output nil: the tool returns
// no structured result). No tool reaches past this machine and the
// client, so none is open-world.
func newTool(name, description string, input, output any) *sdk.Tool {
	t, _ := tools.Lookup(name)
	return &sdk.Tool{
		Name:         name,
		Title:        t.Title,
		Description:  description,
		InputSchema:  input,
		OutputSchema: output,
		Annotations:  &sdk.ToolAnnotations{ReadOnlyHint: t.ReadOnly, IdempotentHint: t.Idempotent, OpenWorldHint: ptr(false)},
	}
}

// optInTools registers each opt-in tool of the tool list when
// Options.Tools names it; nil for skills_search, which syncSearch
// registers whenever it is wanted. Every opt-in tool of the list has an
// entry (a test checks it).
func (s *Server) optInTools() map[string]func() {
	return map[string]func(){
		ToolSkillsList:   func() { addTool(s, listTool(), s.callList) },
		ToolSkillsSearch: nil,
		ToolSources:      func() { addTool(s, sourcesTool(), s.callSources) },
		ToolAsk: func() {
			addTool(s, s.askTool(), s.callAsk)
			s.sdk.AddReceivingMiddleware(s.askDeadline)
		},
	}
}

// Search limits: skills_search returns DefaultSearchLimit results unless
// asked for up to MaxSearchLimit.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 25
	// ExcerptLen is the width of a search excerpt in characters.
	ExcerptLen = 160
)

// MaxListBodies caps the SKILL.md bodies one skills_list call returns
// with includeBody, in bytes: bodies are included in priority order until
// the next one would pass it, and the rest are counted in omittedBodies.
// A stdio client reads one message per line and many cap a line at 16 MiB.
const MaxListBodies = 1 << 20

// toolRegistry is the state of the optional tools. Update changes it
// under Server.mu.
type toolRegistry struct {
	enabled map[string]bool // named in Options.Tools
	catalog int             // Options.Catalog
	// askContext caps the SKILL.md text ask sends, in characters
	// (Options.AskContext; 0: no cap).
	askContext int
	// askTimeout bounds ask's wait for the client's model
	// (Options.AskTimeout, DefaultAskTimeout when 0).
	askTimeout time.Duration
	search     bool // skills_search is registered now
}

// errDraining is the answer to a call that arrives during shutdown.
var errDraining = errors.New("The skill server is shutting down; try again when it is back.")

// initTools registers the optional tools Options.Tools names, except
// skills_search, which Update registers when it is wanted.
func (s *Server) initTools(o Options) {
	s.tools.enabled = map[string]bool{}
	s.tools.catalog = max(o.Catalog, 0)
	s.tools.askContext = max(o.AskContext, 0)
	s.tools.askTimeout = o.AskTimeout
	if s.tools.askTimeout <= 0 {
		s.tools.askTimeout = DefaultAskTimeout
	}
	for _, name := range o.Tools {
		if !slices.Contains(OptionalTools, name) {
			s.log.Warn("unknown tool in mcp.tools; ignoring it", "tool", name, "valid", strings.Join(OptionalTools, ", "))
			continue
		}
		s.tools.enabled[name] = true
	}
	register := s.optInTools()
	for _, name := range OptionalTools { // in the list's order
		if add := register[name]; add != nil && s.tools.enabled[name] {
			add()
		}
	}
}

// syncSearch registers skills_search when it is configured or the
// catalogue is cut, and removes it when neither holds any more; the SDK
// then sends notifications/tools/list_changed. It runs with s.mu held.
func (s *Server) syncSearch(cut bool) {
	want := cut || s.tools.enabled[ToolSkillsSearch]
	switch {
	case want && !s.tools.search:
		s.changing(&s.news.tools)
		addTool(s, searchTool(), s.callSearch)
	case !want && s.tools.search:
		s.changing(&s.news.tools)
		s.sdk.RemoveTools(ToolSkillsSearch)
	}
	s.tools.search = want
}

// enter counts a tool call in flight, as callSkill does, so that Drain
// waits for it. It reports false when the server is shutting down.
func (s *Server) enter() (leave func(), ok bool) {
	s.inflight.Add(1)
	s.Touch()
	return func() { s.inflight.Add(-1) }, !s.draining.Load()
}

// addTool registers the optional tool t with the handler h. Each call is
// counted in flight (enter), so that Drain waits for it; one that
// arrives while the server shuts down gets errDraining instead of h.
func addTool[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	sdk.AddTool(s.sdk, t, func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		leave, ok := s.enter()
		defer leave()
		if !ok {
			var none Out
			return nil, none, errDraining
		}
		return h(ctx, req, in)
	})
}

// SkillInfo is one skill in a skills_list or skills_search result: the
// keys of `ccski list --json` that matter to a model.
type SkillInfo struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Provider    string `json:"provider"`
	Location    string `json:"location"`
	// Path is the skill's folder, File its SKILL.md.
	Path string `json:"path"`
	File string `json:"file"`
	// Body is the SKILL.md body without frontmatter (skills_list with
	// includeBody only).
	Body *string `json:"body,omitempty"`
}

func skillInfo(r *pipeline.Record) SkillInfo {
	return SkillInfo{ID: r.ID, Name: r.Name, Description: r.Description, Provider: r.Agent,
		Location: string(r.Location), Path: r.Dir, File: r.File}
}

// ListInput is the input of skills_list.
type ListInput struct {
	Query       string `json:"query,omitempty"`
	IncludeBody bool   `json:"includeBody,omitempty"`
}

// ListOutput is the structured result of skills_list.
type ListOutput struct {
	Skills []SkillInfo `json:"skills"`
	// OmittedBodies counts the skills whose body was left out because the
	// bodies already returned reached MaxListBodies.
	OmittedBodies int `json:"omittedBodies,omitempty"`
}

// SearchInput is the input of skills_search.
type SearchInput struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// SearchResult is one skills_search hit.
type SearchResult struct {
	SkillInfo
	// Score ranks the hit: higher is better (see package search).
	Score int `json:"score"`
	// Excerpt is about ExcerptLen characters around the first match.
	Excerpt string `json:"excerpt"`
}

// SearchOutput is the structured result of skills_search.
type SearchOutput struct {
	Query   string         `json:"query"`
	Limit   int            `json:"limit"`
	Total   int            `json:"total"`
	Results []SearchResult `json:"results"`
}

// The JSON Schemas of the two tools. They are written out, rather than
// inferred from the Go types, so that they can say minLength, minimum,
// maximum and default, and so that arrays are never null.
func skillProperties(extra map[string]any) map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	p := map[string]any{
		"id":          str("The skill's id: pass it to the skill tool to load the skill."),
		"name":        str("The skill's name (plugin skills: plugin:name)."),
		"description": str("What the skill is for and when to use it."),
		"provider":    str("The agent the skill belongs to: claude, codex, agents, gemini, custom, ..."),
		"location":    str("Where it is installed: project, user, plugin, custom or system."),
		"path":        str("The skill's folder."),
		"file":        str("The skill's SKILL.md file."),
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

var skillRequired = []any{"id", "name", "description", "provider", "location", "path", "file"}

// objectSchema is the schema of a JSON object with props and no other
// properties, of which those named in required must be given (nil: none).
func objectSchema(required []any, props map[string]any) map[string]any {
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		o["required"] = required
	}
	return o
}

// arraySchema is the schema of a JSON array of items.
func arraySchema(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

func listTool() *sdk.Tool {
	return newTool(ToolSkillsList,
		"List the installed skills, in priority order, with their id, name, description, provider, location, folder and SKILL.md path. "+
			"query keeps the skills whose id, name or description contains it (case-insensitive). includeBody adds each SKILL.md body without frontmatter "+
			fmt.Sprintf("(up to %d KiB of bodies in all; omittedBodies counts the rest). Load a skill with the skill tool and its id.", MaxListBodies>>10),
		objectSchema(nil, map[string]any{
			"query": map[string]any{"type": "string",
				"description": "Keep only skills whose id, name or description contains this text (case-insensitive). Omit to list every skill."},
			"includeBody": map[string]any{"type": "boolean", "default": false,
				"description": "Also return each skill's SKILL.md body (without frontmatter)."},
		}),
		objectSchema([]any{"skills"}, map[string]any{
			"skills": arraySchema(objectSchema(skillRequired, skillProperties(map[string]any{
				"body": map[string]any{"type": "string", "description": "The SKILL.md body without frontmatter (includeBody only)."},
			}))),
			"omittedBodies": map[string]any{"type": "integer", "minimum": 0,
				"description": "Skills whose body was left out because the bodies returned reached the size cap."},
		}))
}

func searchTool() *sdk.Tool {
	return newTool(ToolSkillsSearch,
		"Search every installed skill, including those the skill tool's list leaves out. Every word of query must occur "+
			"(case-insensitive) in a skill's id, name, description or SKILL.md body (a small typo in a name word still matches). "+
			"Results are ranked by how many words matched and where (name first, then id, description, body), with an excerpt around the first match. "+
			"Load a result with the skill tool and its id.",
		objectSchema([]any{"query"}, map[string]any{
			"query": map[string]any{"type": "string", "minLength": 1,
				"description": "Words describing the task, e.g. \"pdf form fill\"."},
			"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": MaxSearchLimit, "default": DefaultSearchLimit,
				"description": "How many results to return, best first."},
		}),
		objectSchema([]any{"query", "limit", "total", "results"}, map[string]any{
			"query": map[string]any{"type": "string", "description": "The query searched."},
			"limit": map[string]any{"type": "integer", "description": "The most results returned."},
			"total": map[string]any{"type": "integer", "minimum": 0, "description": "How many skills matched in all."},
			"results": arraySchema(objectSchema(append(slices.Clone(skillRequired), "score", "excerpt"), skillProperties(map[string]any{
				"score":   map[string]any{"type": "integer", "description": "Higher is a better match."},
				"excerpt": map[string]any{"type": "string", "description": "About 160 characters around the first match."},
			}))),
		}))
}

// callList answers skills_list.
func (s *Server) callList(_ context.Context, _ *sdk.CallToolRequest, in ListInput) (*sdk.CallToolResult, ListOutput, error) {
	snap := s.snap.Load()
	q := strings.ToLower(strings.TrimSpace(in.Query))
	out := ListOutput{Skills: []SkillInfo{}}
	used := 0
	for _, r := range snap.Skills() {
		if q != "" && !strings.Contains(strings.ToLower(r.ID), q) && !strings.Contains(strings.ToLower(r.Name), q) &&
			!strings.Contains(strings.ToLower(r.Description), q) {
			continue
		}
		info := skillInfo(r)
		if in.IncludeBody {
			body, err := skillBody(snap, r)
			switch {
			case errors.Is(err, skillmd.ErrTruncated): // too large to fit
				out.OmittedBodies++
			case err != nil: // listed without a body
				s.log.Warn("skill body unreadable", "id", r.ID, "file", r.File, "err", err)
			case used+len(body) > MaxListBodies:
				out.OmittedBodies++
			default:
				used += len(body)
				info.Body = &body
			}
		}
		out.Skills = append(out.Skills, info)
	}
	return summary(listSummary(in, out)), out, nil
}

func listSummary(in ListInput, out ListOutput) string {
	n := len(out.Skills)
	q := strings.TrimSpace(in.Query)
	var line string
	switch {
	case n == 0 && q == "":
		return "No skills are installed."
	case n == 0:
		return fmt.Sprintf("No skill's id, name or description contains %q.", q)
	case q == "":
		line = plural(n, "skill", "skills") + " installed, in priority order"
	default:
		line = fmt.Sprintf("%s whose id, name or description contains %q", plural(n, "skill", "skills"), q)
	}
	line += ": " + idList(out.Skills, func(i SkillInfo) string { return i.ID }) + "."
	if out.OmittedBodies > 0 {
		line += fmt.Sprintf(" Bodies of %s left out (over %d KiB); narrow the query.",
			plural(out.OmittedBodies, "skill", "skills"), MaxListBodies>>10)
	}
	return line
}

// callSearch answers skills_search with search.Rank over the visible
// skills, bodies included: from the body index of the snapshot
// (searchindex.go), so that a body is read only for the excerpt of a
// result returned.
func (s *Server) callSearch(ctx context.Context, _ *sdk.CallToolRequest, in SearchInput) (*sdk.CallToolResult, SearchOutput, error) {
	if len(search.Tokens(in.Query)) == 0 {
		return nil, SearchOutput{}, errors.New("query must hold at least one word: describe the task, e.g. \"pdf form\"")
	}
	limit := in.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	hits, total := s.rank(ctx, s.snap.Load(), in.Query, limit, ExcerptLen)
	out := SearchOutput{Query: in.Query, Limit: limit, Total: total, Results: []SearchResult{}}
	for _, h := range hits {
		out.Results = append(out.Results, SearchResult{SkillInfo: skillInfo(h.Record), Score: h.Score,
			Excerpt: excerpt(h, search.Tokens(in.Query))})
	}
	return summary(searchSummary(out)), out, nil
}

// rank is the search of skills_search (and of the web page's list): the
// visible skills of snap that match query, best first, at most limit, from
// the body index of the snapshot, with body snippets of snippetLen
// characters (none when 0).
func (s *Server) rank(ctx context.Context, snap *pipeline.Snapshot, query string, limit, snippetLen int) ([]search.Hit, int) {
	opt := search.Options{Content: true, SnippetLen: snippetLen, Limit: limit, Body: searchBody(snap),
		// Under a gate, only the bytes judged are searched and quoted.
		Index: s.bodies.index(ctx, snap, s.log.Warn)}
	return search.Rank(snap.Skills(), query, opt)
}

// excerpt is the text shown around a hit's first match: the body snippet
// search.Rank made when a word matched the body, else the description
// around its first matching word, else the start of the description.
func excerpt(h search.Hit, toks []string) string {
	if h.Snippet != "" {
		return h.Snippet
	}
	desc := h.Record.Description
	lower := strings.ToLower(desc)
	for _, t := range toks {
		if i := strings.Index(lower, t); i >= 0 {
			return search.Snippet(desc, i, len(t), ExcerptLen)
		}
	}
	return search.Snippet(desc, 0, 0, ExcerptLen)
}

func searchSummary(out SearchOutput) string {
	if out.Total == 0 {
		return fmt.Sprintf("No skill matches every word of %q; try fewer or other words.", out.Query)
	}
	line := fmt.Sprintf("%s %s %q", plural(out.Total, "skill", "skills"), verb(out.Total, "matches", "match"), out.Query)
	if len(out.Results) < out.Total {
		line += fmt.Sprintf(" (best %d shown)", len(out.Results))
	}
	return line + ": " + idList(out.Results, func(r SearchResult) string { return r.ID }) +
		". Load one with the skill tool and its id."
}

// idList names up to five items, then says how many more there are.
func idList[T any](items []T, id func(T) string) string {
	const show = 5
	names := make([]string, 0, show)
	for _, it := range items[:min(show, len(items))] {
		names = append(names, id(it))
	}
	s := strings.Join(names, ", ")
	if len(items) > show {
		s += fmt.Sprintf(" and %d more", len(items)-show)
	}
	return s
}

// summary is a tool result whose text content is one line; the typed
// handler adds the structured content.
func summary(line string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: line}}}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// maxBodyFile caps the SKILL.md bytes skills_list reads for one body. A
// frontmatter is at most 64 KiB (skillmd.MaxFrontmatter), so a larger
// file holds a body over MaxListBodies, which could not be returned.
const maxBodyFile = MaxListBodies + 1<<20

// skillBody returns the Markdown body of r's SKILL.md: the file without a
// byte order mark and its frontmatter (skillmd.Body). A file over
// maxBodyFile is not read whole: the error is then skillmd.ErrTruncated.
// A FIFO or other non-regular file is an error, never a hang, and so,
// under a gate, is a file that is not what it judged.
func skillBody(snap *pipeline.Snapshot, r *pipeline.Record) (string, error) {
	data, more, err := readOwn(snap, r, maxBodyFile)
	if err != nil {
		return "", safefile.Cause(err)
	}
	if more {
		return "", skillmd.ErrTruncated
	}
	return string(skillmd.Body(data)), nil
}
