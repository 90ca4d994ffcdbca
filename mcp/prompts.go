package mcp

// Prompts from slash commands: every visible command (and, with
// Options.SkillPrompts, every visible skill) is an MCP prompt whose text is
// the file's body with $ARGUMENTS and $1...$9 filled in.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
)

// PromptArgument is the name of the one argument every prompt takes: the
// text typed after the slash command.
const PromptArgument = "arguments"

// MaxPromptInput is the largest input prompts/get accepts, in bytes.
const MaxPromptInput = 102400

// errInputTooLarge is the message of the invalid-params error for an
// input over MaxPromptInput.
const errInputTooLarge = "Input exceeds maximum allowed size of 100KB"

// MaxPromptText caps the text prompts/get returns once the input is
// substituted: a command file (up to 1 MiB) that writes $ARGUMENTS a
// hundred thousand times would otherwise turn a 100 KB input into 10 GB.
const MaxPromptText = 4 << 20

// genericArgumentHint describes the argument of a prompt whose file has no
// argument-hint.
const genericArgumentHint = "Text passed to the prompt: it replaces $ARGUMENTS, and its words (quotes group them) replace $1 to $9."

// promptRegistry is the set of prompts registered with the SDK. Update
// changes it under Server.mu; prompts/get reads live without a lock.
type promptRegistry struct {
	skills     bool                   // skills are prompts too
	registered map[string]promptEntry // what the SDK holds, by prompt name
	live       atomic.Pointer[map[string]promptEntry]
}

// promptEntry is one registered prompt.
type promptEntry struct {
	rec  *pipeline.Record
	snap *pipeline.Snapshot // the snapshot rec is of: what its gates judged
	// sig changes whenever prompts/list or prompts/get would change.
	sig uint64
}

// initPrompts sets the registry up before the first Update.
func (s *Server) initPrompts(o Options) {
	s.prompts.skills = o.SkillPrompts
	s.prompts.registered = map[string]promptEntry{}
	s.prompts.live.Store(&map[string]promptEntry{})
	s.sdk.AddReceivingMiddleware(s.unknownPromptMiddleware)
}

// syncPrompts makes the registered prompts match snap. Only prompts that
// are new, changed or gone are added or removed, so a snapshot with the
// same prompts sends no notifications/prompts/list_changed. It must run
// with s.mu held. It reports whether anything changed.
func (s *Server) syncPrompts(snap *pipeline.Snapshot) bool {
	reg := &s.prompts
	// Sized for the prompts served, not every visible record: with skill
	// prompts off (the default) a large tree has few commands, and a
	// map sized for every skill would hold their room for as long as the
	// snapshot is served.
	size := len(snap.Commands())
	if reg.skills {
		size += len(snap.Skills())
	}
	next := make(map[string]promptEntry, size)
	var add []*sdk.Prompt
	renamed := map[string]string{} // prompt name -> the name it wanted
	want := func(r *pipeline.Record) {
		name := r.Name
		if _, taken := next[name]; taken || name == "" {
			if _, taken := next[r.ID]; taken {
				s.log.Warn("prompt not served: its name and id are both taken", "name", r.Name, "id", r.ID)
				return
			}
			renamed[r.ID] = name
			name = r.ID
		}
		e := promptEntry{rec: r, snap: snap, sig: promptSignature(r)}
		next[name] = e
		if old, ok := reg.registered[name]; !ok || old.sig != e.sig {
			add = append(add, promptOf(snap, name, r))
		}
	}
	for _, r := range snap.Commands() {
		want(r)
	}
	if reg.skills {
		for _, r := range snap.Skills() {
			want(r)
		}
	}
	var stale []string
	for name := range reg.registered {
		if _, ok := next[name]; !ok {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	// Publish first: a client told of a new prompt must find it.
	reg.live.Store(&next)
	if len(add) > 0 || len(stale) > 0 {
		s.changing(&s.news.prompts)
	}
	for _, p := range add {
		if wanted, ok := renamed[p.Name]; ok {
			s.log.Info("prompt name already taken by a higher-priority prompt; serving this one under its id",
				"name", wanted, "prompt", p.Name)
		}
		s.sdk.AddPrompt(p, s.getPrompt)
	}
	if len(stale) > 0 {
		s.sdk.RemovePrompts(stale...)
	}
	reg.registered = next
	return len(add) > 0 || len(stale) > 0
}

// promptSignature sums up everything a prompt shows and reads.
func promptSignature(r *pipeline.Record) uint64 {
	handoffs, _ := json.Marshal(r.Handoffs)
	return signature(r.ID, string(r.Type), r.File, r.Agent, r.Description, r.ArgumentHint,
		string(handoffs), strconv.FormatInt(r.Size, 10), strconv.FormatInt(r.ModTime.UnixNano(), 10), iconKey(r))
}

// promptOf is the prompts/list entry of a record.
func promptOf(snap *pipeline.Snapshot, name string, r *pipeline.Record) *sdk.Prompt {
	hint := r.ArgumentHint
	if hint == "" {
		hint = genericArgumentHint
	}
	typ := r.Type
	if typ == "" {
		typ = pipeline.TypeSkill
	}
	meta := sdk.Meta{"file": r.File, "provider": r.Agent, "id": r.ID, "type": string(typ)}
	if r.Handoffs != nil {
		meta["handoffs"] = r.Handoffs
	}
	return &sdk.Prompt{
		Name:        name,
		Description: r.Description,
		Arguments:   []*sdk.PromptArgument{{Name: PromptArgument, Description: hint}},
		Meta:        meta,
		Icons:       iconsOf(snap, r),
	}
}

// unknownPromptMiddleware answers prompts/get for a name that is not a
// registered prompt. A name that designates one command exactly (an id,
// or the name of a copy dedupe hid) gets that command, found by the rule
// the skill tool and `ccski info` use (pipeline.Snapshot.Load); with
// Options.SkillPrompts, a skill when no command answers. Any other name
// is an invalid-params error that says why: the command is hidden by the
// filters, its plugin is disabled, or it is unknown, with close prompt
// names (the SDK's own answer has no suggestions).
func (s *Server) unknownPromptMiddleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "prompts/get" {
			if gr, ok := req.(*sdk.GetPromptRequest); ok && gr.Params != nil {
				live := *s.prompts.live.Load()
				if _, ok := live[gr.Params.Name]; !ok {
					snap := s.snap.Load()
					r, err := s.promptByName(snap, gr.Params.Name)
					if err != nil {
						return nil, unknownPrompt(gr.Params.Name, live, err)
					}
					return s.renderPrompt(snap, gr.Params.Name, r, gr.Params.Arguments)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// promptByName finds the record a name that is no registered prompt
// designates: a command, else (with skill prompts) a skill. A skill also
// wins over a disabled plugin's command of that name, as a visible record
// always does; when no skill answers either, the command's answer stands.
func (s *Server) promptByName(snap *pipeline.Snapshot, name string) (*pipeline.Record, error) {
	if snap == nil || strings.TrimSpace(name) == "" {
		return nil, &pipeline.NotFoundError{Name: name}
	}
	r, err := snap.Load(name, pipeline.TypeCommand)
	var nf *pipeline.NotFoundError
	if s.prompts.skills && (errors.As(err, &nf) || errors.As(err, new(*pipeline.PluginDisabledError))) {
		sr, serr := snap.Load(name, pipeline.TypeSkill)
		if serr == nil || !errors.As(serr, &nf) {
			return sr, serr
		}
	}
	return r, err
}

// unknownPrompt is the error for a name no prompt has; why is the lookup
// error. A name that is only not found gets close prompt names.
func unknownPrompt(name string, live map[string]promptEntry, why error) error {
	var nf *pipeline.NotFoundError
	if why != nil && !errors.As(why, &nf) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("prompt %q: %v", name, why)}
	}
	names := make([]string, 0, len(live))
	for n := range live {
		names = append(names, n)
	}
	msg := fmt.Sprintf("unknown prompt %q", name)
	if sug := suggest.Names(name, names, 3); len(sug) > 0 {
		msg += "; did you mean " + strings.Join(sug, ", ") + "?"
	} else if len(names) == 0 {
		msg += "; this server has no prompts"
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// getPrompt answers prompts/get for a registered prompt.
func (s *Server) getPrompt(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	name := req.Params.Name
	live := *s.prompts.live.Load()
	e, ok := live[name]
	if !ok {
		return nil, unknownPrompt(name, live, nil)
	}
	return s.renderPrompt(e.snap, name, e.rec, req.Params.Arguments)
}

// renderPrompt is the prompts/get answer for the record r of snap asked
// for as name: the file's body, without frontmatter, with the input
// substituted once; under a gate, only when the file is what was judged.
func (s *Server) renderPrompt(snap *pipeline.Snapshot, name string, r *pipeline.Record, args map[string]string) (*sdk.GetPromptResult, error) {
	size := 0
	for _, v := range args {
		size += len(v)
	}
	if size > MaxPromptInput {
		return nil, invalidParams(errInputTooLarge)
	}
	input := args[PromptArgument]
	limit := int64(skillmd.MaxSkillFile)
	if r.Type == pipeline.TypeCommand {
		limit = skillmd.MaxCommandSize // what discovery reads of a command
	}
	data, err := safefile.Read(r.File, limit)
	if err != nil {
		s.log.Error("prompt read failed", "prompt", name, "file", r.File, "err", err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("prompt %s could not be read: %v", name, safefile.Cause(err))}
	}
	if err := judgedOwn(snap, r).check(data); err != nil {
		s.log.Warn("prompt not served: not what the gate judged", "prompt", name, "file", r.File, "err", err)
		return nil, invalidParams(fmt.Sprintf("prompt %s: %v", name, err))
	}
	body, err := skillmd.CommandBody(data)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("prompt %s: %s changed and its frontmatter cannot be read: %v", name, r.File, err)}
	}
	text, ok := expand(string(body), input, MaxPromptText)
	if !ok {
		return nil, invalidParams(fmt.Sprintf("prompt %s would be over %d MiB with this input of %d bytes, which "+
			"its file substitutes ($ARGUMENTS, $1..$9) too many times: give a shorter input", name, MaxPromptText>>20, len(input)))
	}
	return &sdk.GetPromptResult{
		Description: r.Description,
		Messages: []*sdk.PromptMessage{{Role: "user",
			Content: &sdk.TextContent{Text: text}}},
	}, nil
}

// Expand fills a prompt template in one left-to-right pass, so text that
// comes from the input is never substituted again:
//
//   - $ARGUMENTS becomes the whole input;
//   - $ARGUMENTS[N] becomes argument N counting from 0 (Claude Code's form);
//   - $1 to $9 become arguments 1 to 9 (a missing one becomes "").
//
// The arguments are the input split at white space, where a word that
// starts with a double or single quote runs to the matching quote that
// ends a word, quotes removed ("a b" 'c d' gives two arguments); a quote
// inside a word, as in don't, is kept. Anything else, including $0, $10
// (which is $1 then "0") and ${...}, is left as written.
func Expand(template, input string) string {
	s, _ := expand(template, input, -1)
	return s
}

// expand is Expand, stopping with ok false as soon as the text grows past
// limit bytes (no limit when negative).
func expand(template, input string, limit int) (text string, ok bool) {
	if !strings.Contains(template, "$") {
		if limit >= 0 && len(template) > limit {
			return "", false
		}
		return template, true
	}
	var args []string
	parsed := false
	arg := func(i int) string {
		if !parsed {
			args, parsed = SplitArguments(input), true
		}
		if i >= 0 && i < len(args) {
			return args[i]
		}
		return ""
	}
	const whole = "$ARGUMENTS"
	var b strings.Builder
	size := len(template) + len(input)
	if limit >= 0 {
		size = min(size, max(limit, len(template)))
	}
	b.Grow(size)
	for i := 0; i < len(template); {
		if limit >= 0 && b.Len() > limit {
			return "", false
		}
		j := strings.IndexByte(template[i:], '$')
		if j < 0 {
			b.WriteString(template[i:])
			break
		}
		b.WriteString(template[i : i+j])
		i += j
		rest := template[i:]
		switch {
		case strings.HasPrefix(rest, whole):
			if n, width, ok := bracketIndex(rest[len(whole):]); ok {
				b.WriteString(arg(n))
				i += len(whole) + width
				continue
			}
			b.WriteString(input)
			i += len(whole)
		case len(rest) > 1 && rest[1] >= '1' && rest[1] <= '9':
			b.WriteString(arg(int(rest[1] - '1')))
			i += 2
		default:
			b.WriteByte('$')
			i++
		}
	}
	if limit >= 0 && b.Len() > limit {
		return "", false
	}
	return b.String(), true
}

// bracketIndex reads "[N]" at the start of s: the index and the bytes it
// takes.
func bracketIndex(s string) (n, width int, ok bool) {
	if len(s) < 3 || s[0] != '[' {
		return 0, 0, false
	}
	end := strings.IndexByte(s, ']')
	if end < 2 || end > 4 { // one to three digits
		return 0, 0, false
	}
	n, err := strconv.Atoi(s[1:end])
	if err != nil || n < 0 || strings.ContainsAny(s[1:end], "+-") {
		return 0, 0, false
	}
	return n, end + 1, true
}

// SplitArguments splits a prompt input into positional arguments: see
// Expand.
func SplitArguments(input string) []string {
	var args []string
	i := 0
	for i < len(input) {
		r, w := utf8.DecodeRuneInString(input[i:])
		if unicode.IsSpace(r) {
			i += w
			continue
		}
		if r == '"' || r == '\'' {
			if end := closingQuote(input, i+1, byte(r)); end >= 0 {
				args = append(args, input[i+1:end])
				i = end + 1
				continue
			}
		}
		start := i
		for i < len(input) {
			r, w := utf8.DecodeRuneInString(input[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += w
		}
		args = append(args, input[start:i])
	}
	return args
}

// closingQuote returns the index of the first quote q at or after from
// that ends a word (white space or the end follows it), or -1.
func closingQuote(s string, from int, q byte) int {
	for i := from; i < len(s); i++ {
		if s[i] != q {
			continue
		}
		if i+1 == len(s) {
			return i
		}
		if r, _ := utf8.DecodeRuneInString(s[i+1:]); unicode.IsSpace(r) {
			return i
		}
	}
	return -1
}
