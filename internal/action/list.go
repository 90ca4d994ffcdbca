package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/search"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// This file holds the actions that show skills: list, info, search and
// sources.

// ListRequest is ccski list.
type ListRequest struct {
	// Kind is skill or command, or "" for both.
	Kind pipeline.Type
	// Installed also looks up where ccski installed each skill from (the
	// project's and the user's locks).
	Installed bool
}

// ListResult is what ccski list shows.
type ListResult struct {
	// Snapshot is the discovery, with the trust check's integrity of each
	// project and plugin skill.
	Snapshot *pipeline.Snapshot
	// Records are the visible records of the kind asked for.
	Records []*pipeline.Record
	// Installed maps a skill's folder to where ccski installed it from
	// (with ListRequest.Installed).
	Installed map[string]*install.Installed
	// State is the filter state the records were chosen in (auto, all or
	// disabled).
	State string
	// Priority is the ranking the filters used: the copy of a duplicate
	// they preferred is the one the default list shows.
	Priority *filters.Priority
	// Linked are, in state all, the records of the kind asked for that
	// the path dedupe hid: copies of a listed skill's folder reached
	// through another root (a .claude/skills link to .agents/skills),
	// each with the drop that names the listed one.
	Linked []pipeline.Drop
	// PluginOff are, in state all or disabled, the skills and commands of
	// the kind asked for of the plugins the settings disable, which have
	// no records.
	PluginOff []pipeline.PluginOffSkill
	// RequireSigned is mcp.require_signed: ccski mcp serves only the
	// records whose signature verified (NotServed says why not).
	RequireSigned bool
}

// NotServed says why ccski mcp, under mcp.require_signed, does not serve
// r (its signature in snap did not verify, or it carries none); "" when
// it does, or the setting is off.
func NotServed(snap *pipeline.Snapshot, r *pipeline.Record, requireSigned bool) string {
	if !requireSigned {
		return ""
	}
	sig := snap.SignatureOf(r)
	if sig.Signed() {
		return ""
	}
	return pipeline.UnsignedReason(r, sig)
}

// List discovers the skills and commands, with the trust check on (first
// sights are recorded) and the signatures verified, and returns the
// visible ones of the kind asked for.
func List(ctx context.Context, c *Config, req ListRequest) (*ListResult, error) {
	d, err := c.Discover(ctx, Checks{Trust: true, Policy: true, Signatures: true})
	if err != nil {
		return nil, err
	}
	res := &ListResult{Snapshot: d.Snapshot, Records: OfKind(d.Snapshot.Visible, req.Kind),
		State: c.Loaded.Config.State, Priority: d.Engine.Priority()}
	if res.RequireSigned, err = c.RequireSigned(); err != nil {
		return nil, err
	}
	if req.Installed {
		res.Installed = InstalledIndex(d.Engine.Env())
	}
	switch strings.ToLower(res.State) {
	case filters.StateAll:
		for _, dr := range d.Snapshot.Drops {
			if dr.Stage == filters.PathDedupe().Name() && len(OfKind([]*pipeline.Record{dr.Record}, req.Kind)) == 1 {
				res.Linked = append(res.Linked, dr)
			}
		}
		res.PluginOff = d.Snapshot.PluginOffSkills(req.Kind)
	case filters.StateDisabled:
		res.PluginOff = d.Snapshot.PluginOffSkills(req.Kind)
	}
	return res, nil
}

// OfKind returns the records of one type, or all of them for "".
func OfKind(recs []*pipeline.Record, kind pipeline.Type) []*pipeline.Record {
	if kind == "" {
		return recs
	}
	out := make([]*pipeline.Record, 0, len(recs))
	for _, r := range recs {
		if r.IsCommand() == (kind == pipeline.TypeCommand) {
			out = append(out, r)
		}
	}
	return out
}

// InfoRequest is ccski info.
type InfoRequest struct {
	// Name designates the record: an id, a provider-qualified or plugin
	// name, or a short name that is not ambiguous (see Resolve).
	Name string
	// Full reads the whole SKILL.md, not its first lines.
	Full bool
}

// InfoResult is what ccski info shows of one record.
type InfoResult struct {
	Record *pipeline.Record
	// Hidden says why the record is hidden; "" when it is visible.
	Hidden string
	// Size is the size of the record's file.
	Size int64
	// Content is the start of the file (its first 20 lines), or all of it
	// with Full.
	Content string
	// More is how many lines Content leaves out, or -1 when the file was
	// not read to its end (its lines are not counted).
	More int
	// Integrity is what the trust store says of the files of a project
	// or plugin skill, as ccski list gets it; nil for other records.
	Integrity *pipeline.Integrity
	// Signature is what the signature a skill carries says of its files;
	// nil for a command.
	Signature *pipeline.Signature
	// NotServed says why ccski mcp does not serve the record under
	// mcp.require_signed; "" when it does, or the setting is off.
	NotServed string
}

// previewLines is how many lines of a SKILL.md info shows without Full.
const previewLines = 20

// previewBytes is how much of a SKILL.md info reads without Full: a
// whole ordinary SKILL.md (the spec asks for under 500 lines), so that the
// lines left out are counted, but never all of a runaway file to show 20
// lines of it.
const previewBytes = 256 << 10

// Info discovers and returns the record req names, hidden ones included,
// with the start of its file (all of it with Full) and, as List, its
// integrity and signature, with the trust check on (first sights are
// recorded).
func Info(ctx context.Context, c *Config, req InfoRequest) (*InfoResult, error) {
	d, err := c.Discover(ctx, Checks{Trust: true, Policy: true, Signatures: true})
	if err != nil {
		return nil, err
	}
	r, hidden, err := Resolve(d.Snapshot, req.Name)
	if err != nil {
		return nil, err
	}
	data, size, cut, err := readForInfo(r.File, req.Full)
	if err != nil {
		return nil, err
	}
	content, more := preview(string(data), req.Full)
	if cut {
		more = -1 // the rest was not read, so its lines are not counted
	}
	res := &InfoResult{Record: r, Hidden: hidden, Size: size, Content: content, More: more}
	if in, ok := d.Snapshot.Integrity[r]; ok {
		res.Integrity = &in
	}
	if !r.IsCommand() {
		sig := d.Snapshot.SignatureOf(r)
		res.Signature = &sig
	}
	require, err := c.RequireSigned()
	if err != nil {
		return nil, err
	}
	res.NotServed = NotServed(d.Snapshot, r, require)
	return res, nil
}

// Resolve finds the record name designates with the rule the skill tool
// and prompts/get use (pipeline.Snapshot.LookupAny: an id designates
// exactly its own record, a skill wins over a same-named command, and a
// name only hidden records answer to finds them). It also returns why the
// record is hidden, or "" when it is visible: info explains every record,
// including those the MCP server would refuse to serve.
func Resolve(s *pipeline.Snapshot, name string) (*pipeline.Record, string, error) {
	f, err := s.LookupAny(name)
	if err != nil {
		return nil, "", err
	}
	return f.Record, f.Hidden(), nil
}

// readForInfo reads what info shows of file: all of it with full (up to
// skillmd.MaxSkillFile), else its first previewBytes. size is the file's
// size; cut reports that the file holds more than was read. The file is
// read through safefile: a FIFO or a device is refused, never waited on.
func readForInfo(file string, full bool) (data []byte, size int64, cut bool, err error) {
	f, st, err := safefile.Open(file)
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	if full {
		data, err = safefile.ReadAll(f, st, skillmd.MaxSkillFile)
		if errors.Is(err, safefile.ErrTooLarge) {
			err = fmt.Errorf("%w: page it instead (less %s)", err, file)
		}
		return data, st.Size(), false, err
	}
	data, cut, err = safefile.Prefix(f, st, previewBytes)
	if cut {
		data = skillmd.TrimPartialRune(data)
	}
	return data, st.Size(), cut, err
}

// preview returns the first lines of content, or all of it, and how many
// lines were left out.
func preview(content string, full bool) (string, int) {
	if full {
		return content, 0
	}
	lines := strings.SplitAfter(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= previewLines {
		return content, 0
	}
	return strings.Join(lines[:previewLines], ""), len(lines) - previewLines
}

// SearchRequest is ccski search.
type SearchRequest struct {
	// Query is the words every match holds.
	Query string
	// Content also searches the SKILL.md bodies, with a snippet.
	Content bool
	// Limit is the most hits returned; 0: all.
	Limit int
	// Notices, when not nil, receives what the run says about the body
	// index it searches with: a file that could not be read (other than
	// a missing one) or saved, which costs reading the bodies again.
	Notices io.Writer
}

// SearchResult is the best hits first, and how many records matched.
type SearchResult struct {
	Hits  []search.Hit
	Total int
	// PluginOff are the skills and commands of disabled plugins whose id
	// or name holds every word of the query: no record has them, so no
	// hit, but the user looking for one is told how to turn it on.
	PluginOff []pipeline.PluginOffSkill
}

// Search discovers and ranks the visible records against the query.
func Search(ctx context.Context, c *Config, req SearchRequest) (*SearchResult, error) {
	d, err := c.Discover(ctx, Checks{})
	if err != nil {
		return nil, err
	}
	if req.Limit < 0 {
		return nil, usage(fmt.Errorf("--limit must be 0 (no limit) or more, not %d", req.Limit))
	}
	opt := search.Options{Content: req.Content, Limit: req.Limit}
	if req.Content && len(search.Tokens(req.Query)) > 0 {
		opt.Index = c.searchIndex(ctx, d.Snapshot.Visible, req.Notices)
	}
	hits, total := search.Rank(d.Snapshot.Visible, req.Query, opt)
	res := &SearchResult{Hits: hits, Total: total}
	for _, p := range d.Snapshot.PluginOffSkills("") {
		if p.Matches(req.Query) {
			res.PluginOff = append(res.PluginOff, p)
		}
	}
	return res, nil
}

// searchIndex returns the body index of records: the one the last run
// saved (SearchIndexFile, shared with ccski mcp and merged with what other
// runs saved, see search.Index.SaveFile), with the files whose stamp
// changed since read again, and saved when it changed. A file that cannot
// be read (but for a missing one) or saved is told to notices: it costs
// reading the bodies, next time too. It returns nil (the search reads the
// bodies) when ctx ends first.
func (p Process) searchIndex(ctx context.Context, records []*pipeline.Record, notices io.Writer) *search.Index {
	file := p.SearchIndexFile()
	warn := func(format string, args ...any) {
		if notices != nil {
			fmt.Fprintf(notices, "ccski: warning: "+format+"\n", args...)
		}
	}
	var ix *search.Index
	if file != "" {
		var err error
		if ix, err = search.LoadIndex(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			warn("body index %s not read, every body is read again: %v", file, err)
		}
	}
	ix, err := ix.Update(ctx, records, search.Source{})
	if err != nil {
		return nil
	}
	if ix.Changed() && file != "" {
		if err := ix.SaveFile(file); err != nil {
			warn("body index not saved, the next search reads every body again: %v", err)
		}
	}
	return ix
}

// SourcesRequest is ccski sources.
type SourcesRequest struct {
	// Kind is skill or command, or "" for both.
	Kind pipeline.Type
}

// SourcesResult is what ccski sources shows: the report, and the records
// discovered and visible of each type.
type SourcesResult struct {
	Report           pipeline.SourcesReport
	Skills, Commands pipeline.Counts
	// ShowSkills and ShowCommands say which counts to show: commands when
	// asked for or when there are any, skills unless only commands are
	// asked for.
	ShowSkills, ShowCommands bool
}

// Sources discovers with the security scan (as mcp.scan asks; off leaves
// it off) and the trust check on, so that the report holds the flagged and
// the changed skills. Nothing is blocked: people see every skill.
func Sources(ctx context.Context, c *Config, req SourcesRequest) (*SourcesResult, error) {
	d, err := c.Discover(ctx, Checks{Scan: true, Trust: true, Policy: true})
	if err != nil {
		return nil, err
	}
	res := &SourcesResult{Report: d.Snapshot.Sources(req.Kind)}
	if req.Kind != pipeline.TypeCommand {
		env := d.Engine.Env()
		res.Report.NotLoaded = notLoaded(ctx, d.Snapshot, hostview.Options{Env: env, Managed: managedTrees(env)})
	}
	res.Skills, res.Commands = d.Snapshot.Tally()
	res.ShowSkills = req.Kind != pipeline.TypeCommand
	res.ShowCommands = req.Kind == pipeline.TypeCommand || (req.Kind == "" && res.Commands.Discovered > 0)
	return res, nil
}
