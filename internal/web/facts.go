package web

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"weak"

	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/skillindex"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/claude"
)

// FactsConfig is what NewFacts needs to know of the machine.
type FactsConfig struct {
	// Snapshot returns the snapshot served now: the hosts' verdicts are
	// about its records, and what is kept between calls is kept for one
	// snapshot (a new one, after an install or a switch, reads the locks
	// and looks for the hosts again).
	Snapshot func() *pipeline.Snapshot
	// Env is the environment of the snapshot's discovery: where the hosts
	// are looked for, as ccski doctor looks (hostview.Host.Detect).
	Env providers.Env
	// Locks are the scopes whose ccski.lock to read, the project's first
	// (the layouts of ccski install; their LockFile and Base are used).
	Locks []install.Layout
	// Managed are the trees the user does not own (validate.ManagedTrees),
	// as doctor is given them.
	Managed []validate.ManagedTree
}

// NewFacts returns the FactsFunc of the skill page: for one record, its
// Origin from the ccski.lock that names it (install.IndexInstalled, the
// reader of ccski list), which hosts ccski models load it and why not
// (hostview.Of, the verdict of ccski doctor), each host's switch of it
// (the record's, as the providers read them from the hosts' settings) and
// the command that installs it elsewhere (see installCommand).
//
// It never writes. Per call it judges the one record, validating its
// SKILL.md (and that of a copy that may shadow it) under each host's
// profile; the lock index, the roots and which hosts are installed are
// read once per snapshot.
func NewFacts(cfg FactsConfig) FactsFunc {
	f := &facts{cfg: cfg}
	return f.of
}

// facts keeps, for the snapshot last asked about, what every call shares.
type facts struct {
	cfg FactsConfig

	mu sync.Mutex
	// snap is the snapshot per was built for, held weakly: the page keeps
	// no snapshot alive after the server has moved on from it.
	snap weak.Pointer[pipeline.Snapshot]
	per  *perSnapshot
}

// perSnapshot is what one snapshot's calls share.
type perSnapshot struct {
	roots map[string]pipeline.Root
	// locked maps the folders the locks name to their entries.
	locked map[string]*install.Installed
	// hosts are the hosts ccski models, and installedHost says which of
	// them are set up on the machine.
	hosts         []hostview.Host
	installedHost []bool
	// served are the skills the snapshot serves and indexed the one the
	// well-known index publishes under each name, made by published on
	// the first page a remote reader opens.
	pubOnce sync.Once
	served  map[*pipeline.Record]bool
	indexed map[string]*pipeline.Record
}

// current returns the snapshot served now and what its calls share,
// building that once per snapshot.
func (f *facts) current() (*pipeline.Snapshot, *perSnapshot) {
	var snap *pipeline.Snapshot
	if f.cfg.Snapshot != nil {
		snap = f.cfg.Snapshot()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.per != nil && f.snap.Value() == snap {
		return snap, f.per
	}
	p := &perSnapshot{locked: install.IndexInstalled(f.cfg.Locks), hosts: hostview.Hosts()}
	if snap != nil {
		p.roots = hostview.RootsOf(snap)
	}
	p.installedHost = make([]bool, len(p.hosts))
	for i, h := range p.hosts {
		p.installedHost[i], _ = h.Detect(f.cfg.Env)
	}
	f.snap, f.per = weak.Make(snap), p
	return snap, p
}

// of is the FactsFunc.
func (f *facts) of(ctx context.Context, rec *pipeline.Record) Facts {
	if rec == nil {
		return Facts{}
	}
	snap, p := f.current()
	var out Facts
	in := p.locked[filepath.Clean(rec.Dir)]
	if in != nil && in.Entry != nil {
		out.Origin = origin(in)
	}
	if snap != nil && !rec.IsCommand() {
		out.Hosts = f.hosts(ctx, snap, p, rec)
	}
	if rd, ok := readerOf(ctx); ok && !rd.local {
		out.Install = p.remoteInstall(snap, rec, in, rd)
	} else {
		out.Install = installCommand(rec, in)
	}
	return out
}

// remoteInstall is the command that installs rec on the machine of a
// reader who is not on the server's (rd): the lock's source when it is
// not a folder of the server's machine (a git repository, or a clone's at
// the locked commit, an HTTP source, an MCP server, a marketplace by
// name); a Claude Code plugin's marketplace; else, for a skill the server
// serves, the server itself, at the origin the reader reaches it by (see
// Public): its MCP endpoint narrowed to the skill's path (ccski install
// mcp+ORIGIN/mcp#PATH, skills/list's copy of exactly this skill), or,
// without one, its well-known index and the name the index publishes the
// skill under, when the index publishes this skill under it. It is ""
// otherwise: never a path on the server's machine, nor an origin the
// reader was not known to use.
func (p *perSnapshot) remoteInstall(snap *pipeline.Snapshot, rec *pipeline.Record, in *install.Installed, rd reader) string {
	if rec.IsCommand() {
		return ""
	}
	if in != nil && in.Entry != nil {
		e := in.Entry
		if e.Source.Kind != install.KindDir || e.Source.Origin.URL != "" && e.Commit != "" {
			return installCommand(rec, in)
		}
	} else if pl := rec.Plugin; pl != nil && pl.Marketplace != "" && rec.Agent == claude.HostName {
		return installCommand(rec, in)
	}
	if rd.base == "" || snap == nil || rec.SkillPath == "" || rec.Unlistable() != "" {
		return ""
	}
	served, indexed := p.published(snap)
	switch {
	case !served[rec]:
		return "" // hidden or disabled: the server does not serve it
	case rd.mcp != "":
		return shellJoin([]string{"ccski", "install", install.MCPPrefix + rd.base + rd.mcp + "#" + rec.SkillPath})
	}
	name := indexName(rec)
	if indexed[name] != rec {
		return ""
	}
	return shellJoin([]string{"ccski", "install", rd.base + skillindex.DirV2 + "index.json", name})
}

// published returns the skills snap serves, and the record the server's
// well-known index publishes under each name: the first served one of
// that name, in the snapshot's order (mcp/wellknown.go, publishable).
func (p *perSnapshot) published(snap *pipeline.Snapshot) (map[*pipeline.Record]bool, map[string]*pipeline.Record) {
	p.pubOnce.Do(func() {
		p.served, p.indexed = map[*pipeline.Record]bool{}, map[string]*pipeline.Record{}
		for _, r := range snap.Skills() {
			p.served[r] = true
			name := indexName(r)
			if r.SkillPath != "" && r.Unlistable() == "" && skillindex.ValidName(name) && p.indexed[name] == nil {
				p.indexed[name] = r
			}
		}
	})
	return p.served, p.indexed
}

// indexName is the name the well-known index publishes r under: the name
// its SKILL.md states, without a plugin's prefix.
func indexName(r *pipeline.Record) string {
	name := r.FrontmatterName()
	return name[strings.LastIndexByte(name, ':')+1:]
}

// origin is the Origin of a skill the lock entry of in names.
func origin(in *install.Installed) *Origin {
	e := in.Entry
	o := &Origin{Lock: in.Lock, Source: in.Source, Ref: e.Source.Ref, Commit: e.Commit}
	if e.Signer != nil {
		o.Signer = e.Signer.String()
	}
	// The lock records no time: the installed copy's folder (the first
	// target) was written when the skill was installed or last updated,
	// and editing a file inside it does not change the folder's time.
	if len(e.Targets) > 0 {
		if fi, err := os.Stat(filepath.Join(e.Targets[0].Dir, e.Name)); err == nil {
			o.Installed = fi.ModTime().UTC()
		}
	}
	return o
}

// hosts says, for each host ccski models that is installed on the
// machine (as ccski doctor reports the hosts it finds), whether it loads
// rec and why not, with its switch: doctor's answer for this one skill.
// A host that does not read rec's folder at all does not load it. The
// Reason of a host that loads rec with a limit (a switch's name-only,
// Codex's explicit-only, a flaw it reads past) says what limits it.
func (f *facts) hosts(ctx context.Context, snap *pipeline.Snapshot, p *perSnapshot, rec *pipeline.Record) []HostLoad {
	opt := hostview.Options{Env: f.cfg.Env, Managed: f.cfg.Managed, Workers: 1}
	out := []HostLoad{}
	for i, h := range p.hosts {
		if !p.installedHost[i] {
			continue
		}
		v, reads := hostview.Of(ctx, h, snap, p.roots, rec, opt)
		if !reads {
			out = append(out, HostLoad{Host: h.Name, Reason: notRead(h, rec)})
			continue
		}
		hl := HostLoad{Host: h.Name, Loads: v.Loads, Reason: v.Detail}
		if !v.Loads && hl.Reason == "" {
			hl.Reason = string(v.Code)
		}
		hl.Switch, hl.SwitchFile = switchOf(rec, h.Name)
		out = append(out, hl)
	}
	return out
}

// notRead says why a host does not load a skill it never reads.
func notRead(h hostview.Host, rec *pipeline.Record) string {
	if rec.Plugin != nil {
		return h.Title + " does not read " + rec.Agent + " plugins"
	}
	return h.Title + " does not read " + rec.Root
}

// switchOf is the switch of host for rec and the settings file holding
// it: the mode its settings give the skill (off, or a limit such as
// name-only) when they name it, "on" for a plugin skill (its plugin is
// enabled, or its skills would not have been found; the plugin's switch
// is its enablement), and "" when the host's settings say nothing of the
// skill, which leaves it on. The records carry the switches the providers
// read from the hosts' files (pipeline.Record.Off); an explicit "on" in
// a settings file only cancels an earlier switch and is not kept.
func switchOf(rec *pipeline.Record, host string) (mode, file string) {
	if s, ok := rec.SwitchFor(host); ok {
		return s.Mode, s.File
	}
	if rec.Plugin != nil {
		return pipeline.ModeOn, ""
	}
	return "", ""
}

// installCommand is the command that installs rec elsewhere:
//
//   - a skill the lock names: ccski install with its source as the lock
//     records it (a folder or marketplace that is a git clone: the
//     repository it came from, at the locked commit, since the folder is
//     not elsewhere) and its name, with --scope user for the user's lock;
//   - a skill of a Claude Code plugin: ccski install from the plugin's
//     marketplace by name, which reads the marketplace Claude Code has
//     cloned on that machine (add it there first: /plugin marketplace add);
//   - any other skill: ccski install of its folder, which installs that
//     one skill (on this machine; copy the folder to take it elsewhere).
//
// It is "" for a command, which ccski install does not install. It is the
// command of a reader on the server's machine; remoteInstall is that of
// a reader elsewhere.
func installCommand(rec *pipeline.Record, in *install.Installed) string {
	if rec.IsCommand() {
		return ""
	}
	if in != nil && in.Entry != nil {
		e := in.Entry
		src := e.Source
		if o := src.Origin; o.URL != "" && e.Commit != "" {
			p := path.Join(o.Path, src.Path)
			if p == "." {
				p = ""
			}
			src = install.Source{Kind: install.KindGit, URL: o.URL, Ref: e.Commit, Path: p}
		}
		var flags []string
		if in.Scope == install.ScopeUser {
			flags = []string{"--scope", "user"}
		}
		return installLine(flags, src.String(), e.Name)
	}
	if p := rec.Plugin; p != nil && p.Marketplace != "" && rec.Agent == claude.HostName {
		return installLine(nil, p.Marketplace, rec.ShortName())
	}
	return installLine(nil, rec.Dir)
}

// installLine is `ccski install` of args with flags, as shellJoin writes
// it. When an argument starts with '-' (a skill or marketplace named like
// a flag), the flags come first and "--" ends them, so that ccski install
// reads every argument as a name: quoting alone would not, the shell
// takes the quotes off.
func installLine(flags []string, args ...string) string {
	line := []string{"ccski", "install"}
	if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") }) {
		line = append(append(append(line, flags...), "--"), args...)
	} else {
		line = append(append(line, args...), flags...)
	}
	return shellJoin(line)
}

// shellJoin joins args as a POSIX shell reads them back: an argument
// with anything but safe characters is single-quoted.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && a[0] != '#' && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+@#%") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}
