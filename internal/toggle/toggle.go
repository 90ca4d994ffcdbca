// Package toggle turns skills on and off where each agent reads its
// switches: it resolves skill names against a snapshot, asks the
// switcher of each host that reads a skill (providers.Host) to write that
// host's own setting, switches a plugin skill's whole plugin, and falls
// back to the host-neutral .SKILL.md rename for a skill no host with a
// switch reads. Nothing is written until Commit writes the plan, under a
// lock, on the settings files as they are then; a dry run holds the
// edited files in memory, so that --dry-run can show their diffs.
//
// A plugin's files are never renamed or edited: a plugin skill is
// switched through its plugin's setting (Claude Code's enabledPlugins,
// Codex's [plugins."p@m"]), which turns the whole plugin on or off, and
// the result says so.
package toggle

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Request says how to switch.
type Request struct {
	// On turns skills on; else they are turned off (or limited, see Mode).
	On bool
	// Agents are the hosts to switch; empty or "all" means every host
	// that reads the skill.
	Agents []string
	// Scope is where to write (user, project, local); "" lets each host
	// pick (see providers.SkillRequest).
	Scope string
	// Mode is the mode to switch off to: off (the default) or a mode one
	// host has (name-only, user-invocable-only). Ignored when On.
	Mode string
	// KeepFile leaves the host-neutral switch alone: a skill whose file
	// is .SKILL.md stays so when it is turned on for a host. Profile use
	// sets that switch on its own, as the profile says.
	KeepFile bool
}

// loadable reports whether req leaves a skill loadable in some way: on,
// or limited to a mode a host still loads (name-only,
// user-invocable-only). Admit is asked about every such request.
func (req Request) loadable() bool {
	return req.On || req.Mode != "" && req.Mode != pipeline.ModeOff
}

// admitPlugin asks Admit about every skill of the plugin key that host h
// reads, before the plugin is turned on: turning it on makes each of them
// loadable, not only the one asked for. The skills of a plugin that is
// off were never discovered (names are its skill names, from its folder
// listing): each is asked about by name alone, so that a rule needing
// more of it than its name refuses it (the policy fails closed). It
// returns the first refusal, naming the skill.
func (t *Toggler) admitPlugin(h, key string, names []string) error {
	if t.Admit == nil {
		return nil
	}
	found := false
	for _, o := range t.snap.All {
		if o.Plugin == nil || o.IsCommand() || o.Plugin.Key() != key || o.Agent != h && !slices.Contains(o.Hosts, h) {
			continue
		}
		found = true
		if err := t.Admit(o); err != nil {
			return fmt.Errorf("the plugin %s holds the skill %s: %w", key, o.ID, err)
		}
	}
	if found {
		return nil
	}
	for _, n := range names {
		if err := t.Admit(&pipeline.Record{ID: h + ":" + n, Name: n, Agent: h}); err != nil {
			return fmt.Errorf("the plugin %s holds the skill %s: %w", key, n, err)
		}
	}
	return nil
}

// Status is the outcome of one switch.
type Status string

// The statuses of a Result.
const (
	Changed   Status = "changed"   // a setting was written (or will be, in a dry run)
	Unchanged Status = "unchanged" // the setting already said so
	Skipped   Status = "skipped"   // nothing to do for this host
	Failed    Status = "failed"    // the setting could not be written; nothing was
)

// Result is the outcome of one skill for one host, or for the .SKILL.md
// fallback (Host "").
type Result struct {
	// Skill is the skill's id, or the name asked for when it resolved
	// to none.
	Skill  string `json:"skill"`
	Host   string `json:"host,omitempty"`
	Status Status `json:"status"`
	// File, Scope and Setting say what was (or would be) written.
	File    string `json:"file,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Setting string `json:"setting,omitempty"`
	// Mode is the mode written: on, off, name-only, ...
	Mode string `json:"mode,omitempty"`
	// Note says what else the change means (a whole plugin switched, the
	// fallback used); Error why it failed.
	Note  string `json:"note,omitempty"`
	Error string `json:"error,omitempty"`
}

// Rename is a SKILL.md renamed to .SKILL.md or back.
type Rename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// FallbackSetting names the .SKILL.md switch in results.
const FallbackSetting = pipeline.DisabledSkillFile

// Toggler collects the switches of one command.
type Toggler struct {
	// Notices, when not nil, receives what Commit says while it waits for
	// another ccski run.
	Notices io.Writer
	// Admit, when set, is asked before a skill becomes loadable in any
	// way (enable, disable --mode name-only or user-invocable-only,
	// profile use, and every skill of a plugin turned on, a plugin that
	// is off giving a record with only a name and an id): an error
	// refuses it, a failed result saying why. The organisation's policy
	// is applied through it (internal/action).
	Admit func(r *pipeline.Record) error

	env     providers.Env
	created *created
	snap    *pipeline.Snapshot
	hosts   []providers.Host
	files   *providers.Files
	renames []Rename
	results []Result
}

// New returns a Toggler for the skills of snap, found in env, with the
// given hosts (all.Hosts()). Each settings file it edits is kept to the
// folder env says it belongs to (providers.Env.WriteRoot).
func New(env providers.Env, snap *pipeline.Snapshot, hosts []providers.Host) *Toggler {
	return &Toggler{env: env, snap: snap, hosts: hosts, files: providers.NewFilesIn(env), created: loadCreated(env)}
}

// Commit runs plan, the calls of Skill, Record or Use that make one
// command, and unless dry writes what they change: the settings files
// through providers.Files.Commit, which locks their folders, and the
// folders of the skills to rename, and runs plan again on what the files
// hold under the lock, so that a ccski run editing the same file at the
// same time loses nothing; then, under the same locks, the renames. plan
// runs on a Toggler emptied of earlier switches each time. A file or a
// rename that could not be written turns each result that needed it into
// a failure naming it and why, and Plan.Err is the first such error.
func (t *Toggler) Commit(plan func(), dry bool) *Plan {
	run := func() {
		t.results, t.renames = nil, nil
		plan()
	}
	if dry {
		t.files = providers.NewFilesIn(t.env)
		run()
		return t.Plan()
	}
	t.files.Notices = t.Notices
	failed := map[Rename]error{}
	err := t.files.Commit(run, func() error {
		var first error
		for _, rn := range t.renames {
			if err := rename(rn); err != nil {
				failed[rn] = err
				first = cmp.Or(first, err)
			}
		}
		return first
	})
	p := t.Plan()
	p.Err = err
	if err == nil {
		t.made(p)
	}
	for _, f := range p.files.Changed() {
		if f.Err != nil {
			p.failWrites(func(r Result) bool { return r.File == f.Path && r.Setting != FallbackSetting }, f.Err)
		}
	}
	switch {
	case len(failed) > 0:
		for rn, err := range failed {
			p.failWrites(func(r Result) bool { return r.Setting == FallbackSetting && r.File == rn.To }, err)
		}
	case err != nil:
		p.failWrites(func(r Result) bool { return r.Setting == FallbackSetting },
			fmt.Errorf("not renamed, because the settings files could not all be written: %w", err))
	}
	return p
}

// host returns the registered host of that name.
func (t *Toggler) host(name string) (providers.Host, bool) {
	for _, h := range t.hosts {
		if h.Name == name {
			return h, true
		}
	}
	return providers.Host{}, false
}

// HostNames lists the hosts' names.
func (t *Toggler) HostNames() []string {
	out := make([]string, len(t.hosts))
	for i, h := range t.hosts {
		out[i] = h.Name
	}
	return out
}

// CheckAgents returns an error for a value of Request.Agents that is
// neither "all" nor a host.
func (t *Toggler) CheckAgents(agents []string) error {
	for _, a := range agents {
		if _, ok := t.host(a); !ok && a != "all" {
			return fmt.Errorf("unknown agent %q: use %s or all", a, strings.Join(t.HostNames(), ", "))
		}
	}
	return nil
}

// Skill switches the skill name designates (resolved as `ccski info`
// resolves it, hidden skills included). A name of a skill of a disabled
// plugin turns that plugin on.
func (t *Toggler) Skill(name string, req Request) {
	f, err := t.snap.Lookup(name, pipeline.TypeSkill)
	if r := t.oneFolder(err); r != nil {
		t.Record(r, req)
		return
	}
	var pde *pipeline.PluginDisabledError
	switch {
	case errors.As(err, &pde):
		for _, dp := range pde.Plugins {
			t.disabledPlugin(name, dp, req)
		}
	case err != nil:
		t.results = append(t.results, Result{Skill: name, Status: Failed, Error: err.Error()})
	default:
		t.Record(f.Record, req)
	}
}

// oneFolder returns, when err says a name is ambiguous between records
// that are all of one folder (a skill of .agents/skills and its link in
// .claude/skills, both hidden), the first of them: they are one skill for
// switches. It returns nil otherwise.
func (t *Toggler) oneFolder(err error) *pipeline.Record {
	var ae *pipeline.AmbiguousError
	if !errors.As(err, &ae) || len(ae.Candidates) == 0 {
		return nil
	}
	var first *pipeline.Record
	for _, id := range ae.Candidates {
		f, err := t.snap.Lookup(id, pipeline.TypeSkill)
		if err != nil || f.Record.FolderKey() == "" {
			return nil
		}
		if first == nil {
			first = f.Record
		} else if f.Record.FolderKey() != first.FolderKey() {
			return nil
		}
	}
	return first
}

// disabledPlugin handles a skill of a plugin the settings turn off.
func (t *Toggler) disabledPlugin(name string, dp pipeline.DisabledPlugin, req Request) {
	res := Result{Skill: name, Host: dp.Provider, Setting: dp.Key()}
	if len(req.Agents) > 0 && !slices.Contains(req.Agents, "all") {
		state := "which is disabled"
		if dp.Refused != "" {
			state = "which is not loaded"
		}
		for _, a := range req.Agents {
			if a != dp.Provider {
				t.results = append(t.results, Result{Skill: name, Host: a, Status: Skipped,
					Note: fmt.Sprintf("%s does not read this skill (a skill of the %s plugin %s, %s)",
						providers.HostTitle(t.hosts, a), providers.HostTitle(t.hosts, dp.Provider), dp.Key(), state)})
			}
		}
		if !slices.Contains(req.Agents, dp.Provider) {
			return
		}
	}
	if dp.Refused != "" { // enabled, and not loaded all the same: no switch helps
		res.Status, res.File = Skipped, dp.Settings
		res.Note = fmt.Sprintf("its plugin %s is not loaded: %s", dp.Key(), dp.Refused)
		t.results = append(t.results, res)
		return
	}
	if !req.On {
		res.Status, res.File = Unchanged, dp.Settings
		res.Note = fmt.Sprintf("already off: its plugin %s is disabled (%s)", dp.Key(), dp.EnableHint())
		t.results = append(t.results, res)
		return
	}
	h, ok := t.host(dp.Provider)
	if !ok || !t.wants(req, h.Name) {
		res.Status, res.Note = Skipped, fmt.Sprintf("its plugin %s is disabled: %s", dp.Key(), dp.EnableHint())
		t.results = append(t.results, res)
		return
	}
	if err := t.admitPlugin(h.Name, dp.Key(), dp.Skills); err != nil {
		res.Status, res.Error = Failed, err.Error()
		t.results = append(t.results, res)
		return
	}
	note := pluginNote(dp.Key(), true, dp.Skills, dp.Commands)
	t.plugin(name, h, dp.Key(), true, req.Scope, dp.Settings, note)
}

// wants reports whether req asks for host h (or for every host).
func (t *Toggler) wants(req Request, h string) bool {
	return len(req.Agents) == 0 || slices.Contains(req.Agents, "all") || slices.Contains(req.Agents, h)
}

// reader is a host that reads a skill, and the record of that skill it
// reads: the records of one folder are one skill for switches
// (pipeline.JoinFolders), each host switched as it names the record it
// reads.
type reader struct {
	host   string
	record *pipeline.Record
}

// readers returns the hosts that read r, each with the record it reads:
// for a plugin skill, the host whose plugin it is (its agent label); else
// the hosts of r and of every other record of r's folder, r's own first.
func (t *Toggler) readers(r *pipeline.Record) []reader {
	if r.Plugin != nil {
		if _, ok := t.host(r.Agent); ok {
			return []reader{{r.Agent, r}}
		}
		return nil
	}
	var out []reader
	add := func(o *pipeline.Record) {
		for _, h := range o.Hosts {
			if !slices.ContainsFunc(out, func(rd reader) bool { return rd.host == h }) {
				out = append(out, reader{h, o})
			}
		}
	}
	add(r)
	if k := r.FolderKey(); k != "" {
		for _, o := range t.snap.All {
			if o != r && o.FolderKey() == k {
				add(o)
			}
		}
	}
	return out
}

// hostsOf returns the hosts that read the record r itself: its Hosts,
// or for a plugin skill the host whose plugin it is (its agent label).
func (t *Toggler) hostsOf(r *pipeline.Record) []string {
	if r.Plugin != nil {
		if _, ok := t.host(r.Agent); ok {
			return []string{r.Agent}
		}
		return nil
	}
	return r.Hosts
}

// hostNames lists the hosts of rs.
func hostNames(rs []reader) []string {
	out := make([]string, len(rs))
	for i, rd := range rs {
		out[i] = rd.host
	}
	return out
}

// Record switches the skill r, for every host that reads its folder (or
// those req names).
func (t *Toggler) Record(r *pipeline.Record, req Request) {
	if req.loadable() && t.Admit != nil {
		if err := t.Admit(r); err != nil {
			t.results = append(t.results, Result{Skill: r.ID, Status: Failed, Error: err.Error()})
			return
		}
	}
	readers := t.readers(r)
	hosts := hostNames(readers)
	explicit := len(req.Agents) > 0 && !slices.Contains(req.Agents, "all")
	type chosenHost struct {
		h      providers.Host
		record *pipeline.Record
	}
	var chosen []chosenHost
	for _, rd := range readers {
		if h, ok := t.host(rd.host); ok && t.wants(req, rd.host) {
			chosen = append(chosen, chosenHost{h, rd.record})
		}
	}
	if explicit {
		for _, a := range req.Agents {
			if !slices.Contains(hosts, a) {
				t.results = append(t.results, Result{Skill: r.ID, Host: a, Status: Skipped,
					Note: fmt.Sprintf("%s does not read this skill (a %s %s skill)", providers.HostTitle(t.hosts, a), r.Agent, r.Location)})
			}
		}
	}
	if req.On && r.Disabled && !req.KeepFile {
		t.rename(r, true, "")
	}
	if len(chosen) == 0 && !explicit {
		switch {
		case req.On && !r.Disabled:
			t.results = append(t.results, Result{Skill: r.ID, Status: Unchanged, Mode: pipeline.ModeOn,
				Note: "already on: no agent with a switch of its own reads it, and its file is SKILL.md"})
		case req.On:
		case r.Plugin != nil:
			why := "which no agent ccski can switch reads"
			if r.Plugin.NoSwitch != "" {
				why = r.Plugin.NoSwitch
			}
			t.results = append(t.results, Result{Skill: r.ID, Status: Failed,
				Error: fmt.Sprintf("%s is a skill of the plugin %s@%s, %s; "+
					"ccski never renames files inside a plugin", r.ID, r.Plugin.Plugin, r.Plugin.Marketplace, why)})
		default:
			t.rename(r, false, "no agent that reads it has a switch of its own, so its SKILL.md is renamed "+
				".SKILL.md, which hides it from every agent")
		}
		return
	}
	for _, c := range chosen {
		if r.Plugin != nil {
			t.pluginOf(r, c.h, req)
			continue
		}
		t.skill(r.ID, c.record, c.h, req, explicit)
	}
}

// skill writes host h's switch for r, the record of the skill label
// that h reads. A host req does not name (asked) that is not set up here
// (providers.Host.Home is missing) is left alone when its switch would
// make a file: turning a skill off there is for when it is set up.
func (t *Toggler) skill(label string, r *pipeline.Record, h providers.Host, req Request, asked bool) {
	mode := req.Mode
	if mode == "" {
		mode = pipeline.ModeOff
	}
	if req.On {
		mode = pipeline.ModeOn
	}
	base := Result{Skill: label, Host: h.Name, Mode: mode}
	if err := errors.Join(providers.CheckMode(h, mode), providers.CheckScope(h, req.Scope)); err != nil {
		t.fail(base, err)
		return
	}
	absent := ""
	edits, ok := t.edit(base, func() ([]providers.Edit, error) {
		edits, err := h.Switcher.SetSkill(providers.SkillRequest{Env: t.env, Files: t.files, Record: r, Mode: mode,
			Scope: req.Scope, All: t.snap.All})
		if err == nil && !asked && !req.On {
			if home := t.absent(h); home != "" && t.makesFile(edits) {
				absent = home
				return nil, errAbsent
			}
		}
		if err == nil && req.On {
			t.dropEmpty(edits)
		}
		return edits, err
	})
	if absent != "" {
		last := &t.results[len(t.results)-1]
		last.Status, last.Error = Skipped, ""
		last.Note = fmt.Sprintf("%s is not set up here (no %s): nothing written for it", h.Title, absent)
		return
	}
	if ok && len(edits) == 0 {
		base.Status = Unchanged
		base.Note = "already " + mode + " in " + h.Title
		t.results = append(t.results, base)
	}
}

// pluginOf switches the plugin of the plugin skill r.
func (t *Toggler) pluginOf(r *pipeline.Record, h providers.Host, req Request) {
	key := r.Plugin.Key()
	if !req.On && req.Mode != "" && req.Mode != pipeline.ModeOff {
		t.results = append(t.results, Result{Skill: r.ID, Host: h.Name, Status: Failed,
			Error: fmt.Sprintf("%s is a skill of the plugin %s, and plugins are only on or off: use --mode off", r.ID, key)})
		return
	}
	var skills, commands []string
	for _, o := range t.snap.All {
		if o.Plugin == nil || o.Agent != r.Agent || o.Plugin.Plugin != r.Plugin.Plugin || o.Plugin.Marketplace != r.Plugin.Marketplace {
			continue
		}
		if o.IsCommand() {
			commands = append(commands, o.Name)
		} else {
			skills = append(skills, o.Name)
		}
	}
	if req.On {
		if err := t.admitPlugin(h.Name, key, nil); err != nil {
			t.results = append(t.results, Result{Skill: r.ID, Host: h.Name, Status: Failed, Error: err.Error()})
			return
		}
	}
	t.plugin(r.ID, h, key, req.On, req.Scope, "", pluginNote(key, req.On, skills, commands))
}

// pluginNote says that the whole plugin changes.
func pluginNote(key string, on bool, skills, commands []string) string {
	state := "off"
	if on {
		state = "on"
	}
	sort.Strings(skills)
	sort.Strings(commands)
	skills, commands = slices.Compact(skills), slices.Compact(commands)
	var parts []string
	if len(skills) > 0 {
		parts = append(parts, fmt.Sprintf("%d skill(s): %s", len(skills), strings.Join(skills, ", ")))
	}
	if len(commands) > 0 {
		parts = append(parts, fmt.Sprintf("%d command(s): %s", len(commands), strings.Join(commands, ", ")))
	}
	note := fmt.Sprintf("plugins are switched whole: this turns the plugin %s %s", key, state)
	if len(parts) > 0 {
		note += ", with its " + strings.Join(parts, " and ")
	}
	return note
}

// plugin writes host h's switch for the plugin key.
func (t *Toggler) plugin(label string, h providers.Host, key string, on bool, scope, settings, note string) {
	mode := pipeline.ModeOff
	if on {
		mode = pipeline.ModeOn
	}
	base := Result{Skill: label, Host: h.Name, Mode: mode, Note: note}
	if err := providers.CheckScope(h, scope); err != nil {
		t.fail(base, err)
		return
	}
	t.edit(base, func() ([]providers.Edit, error) {
		edits, err := h.Switcher.SetPlugin(providers.PluginRequest{Env: t.env, Files: t.files, Key: key, On: on,
			Scope: scope, Settings: settings})
		if err == nil && on {
			t.dropEmpty(edits)
		}
		return edits, err
	})
}

// edit runs set, one host's edit of a switch in t.files, and adds its
// outcome under base (the skill, host, mode and note of each result): a
// failure, whose edits are rolled back, as one Failed result, else one
// result per setting edited, Changed or Unchanged. ok is false on failure.
func (t *Toggler) edit(base Result, set func() ([]providers.Edit, error)) (edits []providers.Edit, ok bool) {
	mark := t.files.Mark()
	edits, err := set()
	if err != nil {
		t.files.Rollback(mark)
		t.fail(base, err)
		return nil, false
	}
	for _, e := range edits {
		res := base
		res.File, res.Scope, res.Setting, res.Status = e.File, e.Scope, e.Setting, Unchanged
		if e.Changed {
			res.Status = Changed
		}
		t.results = append(t.results, res)
	}
	return edits, true
}

// fail adds base as a Failed result saying err.
func (t *Toggler) fail(base Result, err error) {
	base.Status, base.Error = Failed, err.Error()
	t.results = append(t.results, base)
}

// rename plans the .SKILL.md switch of r: back to SKILL.md when on. It
// is made in r's folder as it is on disk (under Commit's lock, a run that
// made it meanwhile leaves nothing to do), and never through a link that
// leads out of the folder r's folder belongs to (providers.Env.WriteRoot):
// a project's skill folder linked to a skill of the user's is not the
// project's to turn off.
func (t *Toggler) rename(r *pipeline.Record, on bool, note string) {
	from, to := filepath.Join(r.Dir, pipeline.SkillFile), filepath.Join(r.Dir, pipeline.DisabledSkillFile)
	mode := pipeline.ModeOff
	if on {
		from, to, mode = to, from, pipeline.ModeOn
	}
	res := Result{Skill: r.ID, Status: Changed, File: to, Setting: FallbackSetting, Mode: mode, Note: note}
	for _, rn := range t.renames {
		if rn.From == from {
			res.Status = Unchanged
			t.results = append(t.results, res)
			return
		}
	}
	_, toErr := os.Lstat(to)
	switch {
	case r.Plugin != nil:
		res.Status, res.Error = Failed, "ccski never renames files inside a plugin"
	case filepath.Base(r.File) != filepath.Base(from) && !on:
		res.Status = Unchanged // already .SKILL.md
	case toErr == nil:
		if _, err := os.Lstat(from); errors.Is(err, fs.ErrNotExist) {
			res.Status = Unchanged // renamed since the skills were read
			break
		}
		res.Status, res.Error = Failed, fmt.Sprintf("both %s and %s exist; remove the one you do not want, then run again",
			filepath.Base(from), filepath.Base(to))
	default:
		if err := safefile.CheckLinks(t.env.WriteRoot(r.Dir), from); err != nil {
			res.Status, res.Error = Failed, err.Error()
			break
		}
		t.renames = append(t.renames, Rename{From: from, To: to})
		t.files.Hold(r.Dir)
	}
	t.results = append(t.results, res)
}

// dropEmpty removes each file of edits that ccski made (see created) and
// that holds no setting any more: enable undoes the file disable made.
func (t *Toggler) dropEmpty(edits []providers.Edit) {
	for _, e := range edits {
		if !e.Changed || !t.created.has(e.File) {
			continue
		}
		if data, _, err := t.files.Read(e.File); err == nil && emptyDocument(e.File, data) {
			t.files.Remove(e.File)
		}
	}
}

// made runs after p was written: it remembers the settings files p made
// and forgets those it removed (see created), and runs the Created hook
// of the host of each file p made (Claude Code's settings.local.json is
// git-ignored, as Claude Code does). A failure of either is noted on the
// results of that file; the switches are written all the same.
func (t *Toggler) made(p *Plan) {
	files := p.files.Changed()
	note := func(file, msg string) {
		for i, r := range p.Results {
			if r.File == file && r.Status == Changed {
				p.Results[i].Note = strings.TrimPrefix(p.Results[i].Note+"; "+msg, "; ")
				return
			}
		}
	}
	for _, f := range files {
		if f.Existed || f.Removed || f.Err != nil {
			continue
		}
		for _, r := range p.Results {
			if r.File != f.Path || r.Host == "" {
				continue
			}
			if h, ok := t.host(r.Host); ok && h.Created != nil {
				if msg, err := h.Created(t.env, f.Path); err != nil {
					note(f.Path, err.Error())
				} else if msg != "" {
					note(f.Path, msg)
				}
			}
			break
		}
	}
	if err := t.created.update(files); err != nil {
		for _, f := range files {
			if !f.Existed && !f.Removed {
				note(f.Path, "ccski could not note that it made this file, so enable will leave it: "+err.Error())
			}
		}
	}
}

// errAbsent stops the switch of a host that is not set up here.
var errAbsent = errors.New("host not set up")

// absent returns the folder of host h (providers.Host.Home) when it is
// missing, else "".
func (t *Toggler) absent(h providers.Host) string {
	if h.Home == nil {
		return ""
	}
	home := h.Home(t.env)
	if home == "" {
		return ""
	}
	if _, err := os.Stat(home); err != nil && errors.Is(err, fs.ErrNotExist) {
		return home
	}
	return ""
}

// makesFile reports whether one of edits would make a file that is not
// there yet.
func (t *Toggler) makesFile(edits []providers.Edit) bool {
	for _, e := range edits {
		if !e.Changed {
			continue
		}
		if _, err := os.Lstat(e.File); errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// Plan returns what the switches change.
func (t *Toggler) Plan() *Plan {
	return &Plan{Results: t.results, Renames: t.renames, files: t.files}
}

// Plan is what a Toggler would change, or changed.
type Plan struct {
	Results []Result
	Renames []Rename
	// Err is why a file or a rename could not be written, or nil; the
	// results it concerns are failures.
	Err   error
	files *providers.Files
}

// failWrites turns each Changed result that match says needed a write
// into a failure saying err.
func (p *Plan) failWrites(match func(Result) bool, err error) {
	for i, r := range p.Results {
		if r.Status == Changed && match(r) {
			p.Results[i].Status, p.Results[i].Error = Failed, err.Error()
		}
	}
}

// Files lists the settings files the plan changes, with their old and
// new content.
func (p *Plan) Files() []*providers.FileState { return p.files.Changed() }

// Diffs returns a unified diff of each changed file, in order, naming
// the files for a person working in dir (see report.Diff).
func (p *Plan) Diffs(dir string) []FileDiff {
	var out []FileDiff
	for _, f := range p.Files() {
		d := report.Diff(dir, f.Path, f.Old, f.New, f.Existed)
		if f.Removed {
			// The file goes: the diff says so as git does.
			d = strings.Replace(d, "+++ b/"+report.DiffName(dir, f.Path)+"\n", "+++ /dev/null\n", 1)
		}
		out = append(out, FileDiff{Path: f.Path, Diff: d})
	}
	return out
}

// FileDiff is the diff of one file.
type FileDiff struct {
	Path string `json:"path"`
	Diff string `json:"diff"`
}

// Count returns how many results have status s.
func (p *Plan) Count(s Status) int {
	n := 0
	for _, r := range p.Results {
		if r.Status == s {
			n++
		}
	}
	return n
}

// rename makes the rename rn, unless its target exists.
func rename(rn Rename) error {
	if _, err := os.Lstat(rn.To); err == nil {
		return fmt.Errorf("cannot rename %s: %s exists", rn.From, rn.To)
	}
	if err := os.Rename(rn.From, rn.To); err != nil {
		return fmt.Errorf("cannot rename %s: %w", rn.From, safefile.Cause(err))
	}
	return nil
}
