package mcp

// The ask tool answers a question with the SKILL.md files of the named
// sources as context, by asking the client's own model through MCP
// sampling: ccski needs no API key and makes no network call.
//
// The sampling request travels as a multi-round-trip input request
// (SEP-2322): the first call returns it, the client's model answers it,
// and the call is made again with the answer. The go-sdk carries this out
// for both protocol eras: on 2026-07-28 the client fulfils the request and
// retries; on earlier versions the server sends sampling/createMessage
// itself (ServerSession.CreateMessage cannot be used inside a call on
// 2026-07-28) and calls the handler again.
//
// Sampling is deprecated from protocol 2026-07-28 (SEP-2577): it still
// works with clients that declare it, and the tool's description says
// ask relies on it. A client without it gets errNoSampling at once.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
)

// askRequestID names the sampling request in the input-request map.
const askRequestID = "answer"

// DefaultAskTimeout bounds ask's wait for the client's model to answer
// its sampling request: a person may have to approve the request, and a
// model write a long answer, but a client that never answers must not
// hold its call, its session and its connection in flight forever.
const DefaultAskTimeout = 5 * time.Minute

// AskMaxTokens is the answer length ask requests from the client's model.
const AskMaxTokens = 4096

// askSystemPrompt tells the client's model what to do with the context.
const askSystemPrompt = "You answer one question using the Agent Skills in the user's message as your reference. " +
	"Base the answer on them and name the skill (by id) each part comes from. When they do not cover the question, say so plainly " +
	"instead of guessing."

// errNoSampling is the answer to a client without the sampling capability.
// A stateless HTTP server sees no capabilities of a client before
// 2026-07-28 (there is no session), and could not send it a request.
var errNoSampling = errors.New("This client does not support sampling (the MCP sampling capability, sampling/createMessage; " +
	"deprecated since protocol 2026-07-28), which the ask tool needs to put the question to the client's model; " +
	"a stateless HTTP server (--stateless) cannot use it with clients before 2026-07-28. " +
	"Load the relevant skills with the skill tool (skills_search finds them) and answer from them instead.")

// AskInput is the input of the ask tool.
type AskInput struct {
	Sources  []string `json:"sources"`
	Question string   `json:"question"`
}

// AskOutput is the structured result of the ask tool.
type AskOutput struct {
	Answer string `json:"answer"`
	// Model is the model the client says answered.
	Model string `json:"model,omitempty"`
	// Skills are the ids whose SKILL.md went into the context, Omitted
	// those of the named sources that did not fit under the cap.
	Skills  []string `json:"skills"`
	Omitted []string `json:"omitted"`
	// Truncated is set when the first skill alone was over the cap and
	// only its beginning was sent.
	Truncated bool `json:"truncated,omitempty"`
}

func (s *Server) askTool() *sdk.Tool {
	limitText := "no size cap"
	if s.tools.askContext > 0 {
		limitText = fmt.Sprintf("at most %d characters of SKILL.md text in all, whole files in priority order, the rest named as omitted", s.tools.askContext)
	}
	strs := func(desc string) map[string]any {
		return map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": desc}
	}
	return newTool(ToolAsk,
		"Answer a question from the skills of the named sources: their SKILL.md files ("+limitText+") and the question "+
			"go to this client's own model through MCP sampling, and its answer comes back. Sources are provider names "+
			"(claude, codex, agents, custom, ...), absolute folders (a root listed by the sources tool, or any folder holding skills), "+
			"or skill names; several sources combine. Relies on MCP sampling, which protocol 2026-07-28 deprecates: "+
			"it needs a client that still supports sampling, and without one the call returns an error at once.",
		objectSchema([]any{"sources", "question"}, map[string]any{
			"sources": map[string]any{"type": "array", "minItems": 1,
				"items":       map[string]any{"type": "string", "minLength": 1},
				"description": "Provider names, absolute folders or skill names whose skills answer the question."},
			"question": map[string]any{"type": "string", "minLength": 1, "description": "The question to answer."},
		}),
		objectSchema([]any{"answer", "skills", "omitted"}, map[string]any{
			"answer":    map[string]any{"type": "string", "description": "The client's model's answer."},
			"model":     map[string]any{"type": "string", "description": "The model that answered, as the client names it."},
			"skills":    strs("Ids of the skills sent as context."),
			"omitted":   strs("Ids of the sources' skills left out by the size cap."),
			"truncated": map[string]any{"type": "boolean", "description": "Only the beginning of the one skill sent fitted."},
		}))
}

// callAsk answers the ask tool: the first round returns the sampling
// request, the second (with the client's answer) the result.
func (s *Server) callAsk(_ context.Context, req *sdk.CallToolRequest, in AskInput) (*sdk.CallToolResult, AskOutput, error) {
	if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
		return nil, AskOutput{}, errNoSampling
	}
	question := strings.TrimSpace(in.Question)
	if question == "" {
		return nil, AskOutput{}, errors.New("question must not be blank")
	}
	snap := s.snap.Load()
	recs, err := resolveSources(snap, in.Sources)
	if err != nil {
		return nil, AskOutput{}, err
	}
	ctxText, out := askContext(snap, recs, s.tools.askContext, s.log.Warn)
	if len(out.Skills) == 0 {
		return nil, AskOutput{}, fmt.Errorf("no SKILL.md of %s could be read", strings.Join(in.Sources, ", "))
	}
	if resp, ok := req.Params.InputResponses[askRequestID]; ok {
		answer, model, err := samplingText(resp)
		if err != nil {
			return nil, AskOutput{}, err
		}
		out.Answer, out.Model = answer, model
		return summary(answer), out, nil
	}
	msg := ctxText + "\n\nQuestion: " + question
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{askRequestID: &sdk.CreateMessageParams{
		SystemPrompt: askSystemPrompt,
		Messages:     []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: msg}}},
		MaxTokens:    AskMaxTokens,
	}}}, AskOutput{}, nil
}

// errAskTimeout is the cause of the deadline askDeadline sets.
var errAskTimeout = errors.New("ask: the client's model did not answer in time")

// askDeadline is a receiving middleware: a call of ask ends once
// s.tools.askTimeout passes, with a tool error saying why. It runs
// outside the SDK's multi-round-trip middleware, which, for a client
// before 2026-07-28, sends the sampling request and waits for its answer
// within the call (a 2026-07-28 client fulfils the request itself and
// calls again, so the wait is not the server's).
func (s *Server) askDeadline(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		r, ok := req.(*sdk.CallToolRequest)
		if !ok || r.Params == nil || r.Params.Name != ToolAsk {
			return next(ctx, method, req)
		}
		limit := s.tools.askTimeout
		dctx, cancel := context.WithTimeoutCause(ctx, limit, errAskTimeout)
		defer cancel()
		dctx, stop := context.WithCancelCause(dctx)
		defer s.asking.add(r.Session, stop)()
		res, err := next(dctx, method, req)
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(dctx), errAskTimeout) {
			s.log.Warn("ask: the client's model did not answer the sampling request in time", "timeout", limit)
			return toolError(fmt.Sprintf("The client's model did not answer the sampling request within %v, so ask gave up. "+
				"Try again, or load the relevant skills with the skill tool and answer from them.", limit)), nil
		}
		return res, err
	}
}

// askWaits are the ask calls in flight, by session: closing a session
// waits for its calls to return, and an ask call waits for its client,
// which may never answer (the session cap closes such a session).
type askWaits struct {
	mu sync.Mutex
	by map[*sdk.ServerSession]map[*context.CancelCauseFunc]bool
}

// add records the call of ss that stop ends, until the function add
// returns is called.
func (a *askWaits) add(ss *sdk.ServerSession, stop context.CancelCauseFunc) (done func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.by == nil {
		a.by = map[*sdk.ServerSession]map[*context.CancelCauseFunc]bool{}
	}
	if a.by[ss] == nil {
		a.by[ss] = map[*context.CancelCauseFunc]bool{}
	}
	key := &stop
	a.by[ss][key] = true
	return func() {
		stop(nil)
		a.mu.Lock()
		defer a.mu.Unlock()
		delete(a.by[ss], key)
		if len(a.by[ss]) == 0 {
			delete(a.by, ss)
		}
	}
}

// errSessionClosing ends the ask calls of a session being closed.
var errSessionClosing = errors.New("ask: the session is being closed")

// endAsks ends the ask calls of ss waiting for its client, so that
// closing ss does not wait for them.
func (s *Server) endAsks(ss *sdk.ServerSession) {
	s.asking.mu.Lock()
	defer s.asking.mu.Unlock()
	for stop := range s.asking.by[ss] {
		(*stop)(errSessionClosing)
	}
}

// samplingText returns the text of the client's sampling answer.
func samplingText(resp sdk.InputResponse) (answer, model string, err error) {
	var content []sdk.Content
	switch r := resp.(type) {
	case *sdk.CreateMessageWithToolsResult:
		content, model = r.Content, r.Model
	case *sdk.CreateMessageResult:
		content, model = []sdk.Content{r.Content}, r.Model
	default:
		return "", "", fmt.Errorf("the client answered the sampling request with %T, not a message", resp)
	}
	var b strings.Builder
	for _, c := range content {
		if tc, ok := c.(*sdk.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(tc.Text)
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", model, errors.New("the client's model returned no text")
	}
	return b.String(), model, nil
}

// resolveSources returns the skills of the named sources, each once: the
// visible ones in priority order, then any a skill name designates that
// is hidden but may be served. A source is, in this order: a provider
// name (case-insensitive), which selects its visible skills; an absolute
// folder, which selects the visible skills whose folder is it or inside
// it; a skill name or id, resolved as the skill tool resolves it
// (pipeline.Snapshot.Load: the README's names). Unknown sources are one
// error naming each, with suggestions.
func resolveSources(snap *pipeline.Snapshot, sources []string) ([]*pipeline.Record, error) {
	skills := snap.Skills()
	providers := map[string]string{} // lower-cased -> as written
	var roots []string
	for _, r := range snap.Roots {
		providers[strings.ToLower(r.Agent)] = r.Agent
		if r.Type != pipeline.TypeCommand {
			roots = append(roots, r.Path)
		}
	}
	for _, r := range skills {
		providers[strings.ToLower(r.Agent)] = r.Agent
	}
	chosen := map[*pipeline.Record]bool{}
	var picked []*pipeline.Record // every record chosen, in the order chosen
	var problems []string
	for _, src := range sources {
		src = strings.TrimSpace(src)
		n := 0
		pick := func(r *pipeline.Record) {
			if !chosen[r] {
				chosen[r] = true
				picked = append(picked, r)
			}
			n++
		}
		var skillSuggestions []string
		switch {
		case src == "":
			problems = append(problems, "a source is blank")
			continue
		case providers[strings.ToLower(src)] != "":
			for _, r := range skills {
				if strings.EqualFold(r.Agent, src) {
					pick(r)
				}
			}
		case filepath.IsAbs(src):
			dir := filepath.Clean(src)
			for _, r := range skills {
				if safefile.Within(dir, r.Dir) || safefile.Within(dir, r.RealDir) {
					pick(r)
				}
			}
		default:
			r, err := snap.Load(src, pipeline.TypeSkill)
			var nf *pipeline.NotFoundError
			switch {
			case err == nil:
				pick(r)
			case errors.As(err, &nf):
				skillSuggestions = nf.Suggestions
			default: // ambiguous, hidden, or of a disabled plugin
				problems = append(problems, err.Error())
				continue
			}
		}
		if n > 0 {
			continue
		}
		if known := providers[strings.ToLower(src)]; known != "" {
			problems = append(problems, fmt.Sprintf("source %q has no visible skills", known))
			continue
		}
		if filepath.IsAbs(src) {
			if st, err := os.Stat(src); err == nil && st.IsDir() {
				problems = append(problems, fmt.Sprintf("source %q holds no visible skill", src))
				continue
			}
		}
		candidates := make([]string, 0, len(providers))
		if strings.ContainsRune(src, filepath.Separator) || strings.ContainsRune(src, '/') {
			candidates = append(candidates, roots...)
		} else {
			for _, p := range providers {
				candidates = append(candidates, p)
			}
		}
		msg := fmt.Sprintf("unknown source %q", src)
		sug := suggest.Names(src, candidates, 3)
		if len(sug) == 0 {
			sug = skillSuggestions
		}
		if len(sug) > 0 {
			msg += " (did you mean " + strings.Join(sug, ", ") + "?)"
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		names := make([]string, 0, len(providers))
		for _, p := range providers {
			names = append(names, p)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s. Sources are provider names (%s), absolute folders holding skills (the sources tool lists the roots) or skill names.",
			capitalise(strings.Join(problems, "; ")), strings.Join(names, ", "))
	}
	out := make([]*pipeline.Record, 0, len(chosen))
	for _, r := range skills {
		if chosen[r] {
			out = append(out, r)
			delete(chosen, r)
		}
	}
	for _, r := range picked {
		if chosen[r] { // hidden, and served by name
			out = append(out, r)
		}
	}
	return out, nil
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// askContext renders the SKILL.md files of recs for the model, whole and
// in priority order, while they fit in limit characters (no limit when
// limit <= 0): a file that does not fit is left out and the next ones are
// tried. When not even one fits whole, the beginning of the first is sent,
// marked as cut. Unreadable files, and under a gate files that are not
// what it judged, are logged and skipped.
func askContext(snap *pipeline.Snapshot, recs []*pipeline.Record, limit int, warn func(string, ...any)) (string, AskOutput) {
	out := AskOutput{Skills: []string{}, Omitted: []string{}}
	var b strings.Builder
	b.WriteString("The Agent Skills below are the reference for the question at the end. Each is a SKILL.md file; " +
		"paths in it are relative to its folder.\n\n")
	write := func(r *pipeline.Record, text string) {
		out.Skills = append(out.Skills, r.ID)
		fmt.Fprintf(&b, "<skill id=\"%s\" folder=\"%s\">\n%s\n</skill>\n\n", attr(r.ID), attr(r.Dir), strings.TrimRight(text, "\n"))
	}
	used := 0
	var first *pipeline.Record // the first file left out
	var firstText string
	for _, r := range recs {
		data, more, err := readOwn(snap, r, skillmd.MaxSkillFile)
		if err != nil {
			warn("ask: skill unreadable", "id", r.ID, "file", r.File, "err", err)
			continue
		}
		text := string(data)
		n := utf8.RuneCountInString(text)
		// A file over the cap is too large to send whole under any limit;
		// its beginning can still be the one cut.
		if more || limit > 0 && used+n > limit {
			if first == nil {
				first, firstText = r, text
			}
			out.Omitted = append(out.Omitted, r.ID)
			continue
		}
		used += n
		write(r, text)
	}
	if len(out.Skills) == 0 && first != nil {
		out.Omitted = out.Omitted[1:] // first is the first omitted
		out.Truncated = true
		cut := []rune(firstText)
		if limit > 0 && limit < len(cut) {
			cut = cut[:limit]
		}
		write(first, string(cut)+"\n[… cut here: the rest of this file is over the size cap]")
	}
	if len(out.Omitted) > 0 {
		fmt.Fprintf(&b, "Also in these sources but left out for size: %s.\n", strings.Join(out.Omitted, ", "))
	}
	return strings.TrimRight(b.String(), "\n"), out
}

var xmlAttr = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func attr(s string) string { return xmlAttr.Replace(s) }
