package hostview

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Code says in one word why a host loads a skill or not.
type Code string

// The verdict codes. The first four load; the others do not.
const (
	// Loads: the host loads the skill and lists it to its model.
	Loads Code = "loads"
	// ExplicitOnly: the host loads the skill when the user names it but
	// leaves it out of its model's listing (agents/openai.yaml
	// policy.allow_implicit_invocation: false, in Codex).
	ExplicitOnly Code = "explicit-only"
	// Limited: a switch of the host limits the skill (name-only,
	// user-invocable-only) without turning it off.
	Limited Code = "limited"
	// Flawed: the host loads the skill, but it breaks the host's rules
	// (an error under its validate profile that the host does not
	// refuse): the host reads it as well as it can, a description cut or
	// taken from the wrong place.
	Flawed Code = "flawed"

	// Nested: the skill folder lies below another folder of the host's
	// skills folder, and the host loads only <skills>/<name>/SKILL.md.
	Nested Code = "nested"
	// HostRules: the skill breaks a rule of the host's for a skill's
	// name, frontmatter or framing that the host refuses to load (an
	// error under its validate profile, one Host.Loader refuses).
	HostRules Code = "host-rules"
	// SwitchedOff: the host's own settings turn the skill off.
	SwitchedOff Code = "switched-off"
	// DisabledFile: the skill file is .SKILL.md, which no host reads.
	DisabledFile Code = "disabled-file"
	// TooLarge: the SKILL.md is over the size the host loads.
	TooLarge Code = "too-large"
	// Shadowed: another copy of the same name wins in the host.
	Shadowed Code = "shadowed"
	// PluginDisabled: the host's settings turn the skill's plugin off.
	PluginDisabled Code = "plugin-disabled"
	// ManifestRejected: the host refuses the plugin's manifest and
	// loads none of its skills.
	ManifestRejected Code = "manifest-rejected"
	// PluginNotInstalled: the settings enable a plugin that is not
	// installed.
	PluginNotInstalled Code = "plugin-not-installed"
	// LinkBroken: a link in the host's skills folder leads nowhere.
	LinkBroken Code = "link-broken"
)

// Verdict is what one host does with one skill, or with one plugin or
// link that gives it none.
type Verdict struct {
	// ID is the record's id; "" for a plugin or a link, which have no
	// record.
	ID string `json:"id,omitempty"`
	// Name is the skill's name; for a plugin, its key
	// ("plugin@marketplace"); for a link, the link's name.
	Name string `json:"name"`
	// File is the SKILL.md, the link or the plugin's settings file.
	File string `json:"file,omitempty"`
	// Skills, for a plugin, are the skills it would give, by folder name.
	Skills []string `json:"skills,omitempty"`
	// Loads is true when the host loads the skill; Code and Detail say
	// how or why not.
	Loads  bool   `json:"loads"`
	Code   Code   `json:"code"`
	Detail string `json:"detail,omitempty"`
	// Setting is the file whose setting decides (a switch, a plugin's
	// enablement, a manifest), when one does.
	Setting string `json:"setting,omitempty"`
	// By is the id of the copy that wins, for Shadowed.
	By string `json:"by,omitempty"`
	// Managed names the managed tree that holds the skill (a plugin
	// cache, a marketplace clone, Codex's .system folder): the user does
	// not own it, and fixes it upstream. "" for the user's own.
	Managed string `json:"managed,omitempty"`
	// Problem is true when something is wrong, as opposed to a choice
	// the user made (a switch, a disabled plugin, a copy that shadows
	// another).
	Problem bool `json:"problem"`
}

// Owned reports whether the verdict is about something the user owns and
// can fix where it is: not in a managed tree.
func (v Verdict) Owned() bool { return v.Managed == "" }

// View is one host's view of the machine.
type View struct {
	Host  string `json:"host"`
	Title string `json:"title"`
	// Installed says whether the host was found on the machine, and
	// Detected how ("/home/u/.codex exists", "claude on PATH: ...").
	Installed bool   `json:"installed"`
	Detected  string `json:"detected,omitempty"`
	// Loads are the skills the host loads, NotLoaded the skills, plugins
	// and links it does not, each in discovery order.
	Loads     []Verdict `json:"loads"`
	NotLoaded []Verdict `json:"notLoaded"`
	// Listing are the loaded skills whose description the host's listing
	// budget cuts or drops; nil when no budget was applied.
	Listing []Verdict `json:"listing,omitempty"`
}

// Broken returns the verdicts of NotLoaded that are problems in what the
// user owns: what `ccski doctor` exits 1 for.
func (v View) Broken() []Verdict {
	var out []Verdict
	for _, x := range v.NotLoaded {
		if x.Problem && x.Owned() {
			out = append(out, x)
		}
	}
	return out
}

// Options say how to build the views.
type Options struct {
	// Env is the environment of the snapshot's discovery: where hosts
	// are looked for.
	Env providers.Env
	// Managed are the managed trees (validate.ManagedTrees).
	Managed []validate.ManagedTree
	// Workers bounds the files validated at once; 0 uses GOMAXPROCS.
	Workers int
}

// Build returns the view of every host in Hosts, in order.
func Build(ctx context.Context, snap *pipeline.Snapshot, opt Options) []View {
	hosts := Hosts()
	out := make([]View, len(hosts))
	for i, h := range hosts {
		out[i] = For(ctx, h, snap, opt)
	}
	return out
}

// For returns host h's view of the snapshot: a verdict for every skill
// record h reads, every plugin of h that gives it none, and every broken
// link in its skills folders.
func For(ctx context.Context, h Host, snap *pipeline.Snapshot, opt Options) View {
	v := View{Host: h.Name, Title: h.Title, Loads: []Verdict{}, NotLoaded: []Verdict{}}
	v.Installed, v.Detected = h.Detect(opt.Env)
	roots := RootsOf(snap)
	var read []*pipeline.Record
	for _, r := range snap.All {
		if root, ok := roots[r.Root]; !r.IsCommand() && ok && h.Reads(root) {
			read = append(read, r)
		}
	}
	broken := profileErrors(ctx, h, read, opt.Workers)
	verdicts := make(map[*pipeline.Record]Verdict, len(read))
	for _, r := range read {
		verdicts[r] = judge(h, r, roots[r.Root], broken[r.File], opt.Managed)
	}
	for _, r := range read {
		x := verdicts[r]
		if d, ok := snap.DropOf(r); ok && h.Dedupes && x.Loads && d.By != nil {
			if w, ok := verdicts[d.By]; ok && w.Loads {
				x = shadowed(x, r, d.By)
			}
		}
		v.add(x)
	}
	for _, p := range snap.Disabled {
		if p.Provider == h.Name {
			v.add(pluginVerdict(p, opt.Managed))
		}
	}
	for _, d := range snap.Diagnostics {
		if x, ok := diagnosticVerdict(h, d, roots, opt.Managed); ok {
			v.add(x)
		}
	}
	return v
}

// Of returns host h's verdict on the one record r of snap, the verdict
// For gives it, and false when h does not read r. It validates r's file
// and, when another copy may shadow it, that copy's, and nothing else:
// cheap for one skill of a large snapshot (the web page's facts). roots
// are RootsOf(snap), which a caller asking of many records builds once.
func Of(ctx context.Context, h Host, snap *pipeline.Snapshot, roots map[string]pipeline.Root, r *pipeline.Record, opt Options) (Verdict, bool) {
	root, ok := roots[r.Root]
	if r.IsCommand() || !ok || !h.Reads(root) {
		return Verdict{}, false
	}
	one := func(r *pipeline.Record, root pipeline.Root) Verdict {
		return judge(h, r, root, profileErrors(ctx, h, []*pipeline.Record{r}, opt.Workers)[r.File], opt.Managed)
	}
	x := one(r, root)
	if d, ok := snap.DropOf(r); ok && h.Dedupes && x.Loads && d.By != nil {
		if wr, ok := roots[d.By.Root]; ok && !d.By.IsCommand() && h.Reads(wr) {
			if w := one(d.By, wr); w.Loads {
				x = shadowed(x, r, d.By)
			}
		}
	}
	return x, true
}

// RootsOf maps the path of each root of snap to the root, the first of
// two with one path.
func RootsOf(snap *pipeline.Snapshot) map[string]pipeline.Root {
	roots := make(map[string]pipeline.Root, len(snap.Roots))
	for _, r := range snap.Roots {
		if _, seen := roots[r.Path]; !seen {
			roots[r.Path] = r.Root
		}
	}
	return roots
}

// shadowed is the verdict x on r turned into Shadowed by the copy by,
// which wins in the host.
func shadowed(x Verdict, r, by *pipeline.Record) Verdict {
	return Verdict{ID: r.ID, Name: r.Name, File: r.File, Code: Shadowed, By: by.ID,
		Managed: x.Managed, Detail: "another copy of " + r.Name + " wins: " + by.File}
}

func (v *View) add(x Verdict) {
	if x.Loads {
		v.Loads = append(v.Loads, x)
	} else {
		v.NotLoaded = append(v.NotLoaded, x)
	}
}

// judge is h's verdict on r, found under root, with the first error of
// h's profile in r's file (nil when none), before any other copy is
// considered.
func judge(h Host, r *pipeline.Record, root pipeline.Root, broken *report.Finding, managed []validate.ManagedTree) Verdict {
	x := Verdict{ID: r.ID, Name: r.Name, File: r.File}
	if t := validate.Managing(managed, r.File); t != nil {
		x.Managed = t.What
	}
	not := func(code Code, problem bool, detail string) Verdict {
		x.Code, x.Problem, x.Detail = code, problem, detail
		return x
	}
	if r.Disabled {
		return not(DisabledFile, false, "the skill file is .SKILL.md (switched off by renaming); rename it SKILL.md to load it")
	}
	if limit := h.Loader.MaxSkillFile; limit > 0 && r.Size > limit {
		return not(TooLarge, true, fmt.Sprintf("SKILL.md has %d bytes; %s skips a SKILL.md over %d bytes: move detail "+
			"into files under references/", r.Size, h.Title, limit))
	}
	if !h.Nested && isNested(r, root) {
		rel, _ := filepath.Rel(root.Path, r.Dir)
		return not(Nested, true, fmt.Sprintf("%s loads only %s/<name>/SKILL.md, not a folder nested in another (%s); "+
			"move it up to %s", h.Title, root.Path, filepath.ToSlash(rel), filepath.Join(root.Path, filepath.Base(r.Dir))))
	}
	if s, ok := r.SwitchFor(h.Name); ok && s.Hides() {
		x = not(SwitchedOff, false, s.String())
		x.Setting = s.File
		return x
	}
	if broken != nil && h.Loader.Refuses(*broken) {
		return not(HostRules, true, fmt.Sprintf("%s: %s (%s; ccski validate --profile %s)", h.Title, broken.Message,
			broken.Code, h.Profile))
	}
	x.Loads, x.Code = true, Loads
	if broken != nil {
		x.Code, x.Detail = Flawed, fmt.Sprintf("%s loads it, but: %s (%s; ccski validate --profile %s)", h.Title,
			broken.Message, broken.Code, h.Profile)
	}
	if s, ok := r.SwitchFor(h.Name); ok && s.Mode != pipeline.ModeOn {
		x.Code, x.Detail, x.Setting = Limited, s.String(), s.File
	}
	if h.ExplicitPolicy && r.ExplicitOnly() {
		x.Code = ExplicitOnly
		x.Detail = "left out of " + h.Title + "'s model listing (agents/openai.yaml policy.allow_implicit_invocation: false); " +
			"it loads when the user names it"
	}
	return x
}

// isNested reports whether r's folder lies below another folder of root,
// which a walked root allows and a host that does not nest never loads.
// A plugin's declared skill folders and a flat root's sub-folders are
// where their manifest says, never nested.
func isNested(r *pipeline.Record, root pipeline.Root) bool {
	if root.Flat || root.Skills != nil || r.Plugin != nil {
		return false
	}
	rel, err := filepath.Rel(root.Path, r.Dir)
	return err == nil && strings.ContainsRune(rel, filepath.Separator)
}

// profileErrors validates the files of recs under h's profile and
// returns the first error of each file that has one, one the host refuses
// first.
func profileErrors(ctx context.Context, h Host, recs []*pipeline.Record, workers int) map[string]*report.Finding {
	out := map[string]*report.Finding{}
	if h.Profile == "" || len(recs) == 0 {
		return out
	}
	targets := make([]validate.Target, 0, len(recs))
	for _, r := range recs {
		targets = append(targets, validate.Target{File: r.File, Key: r.Agent + ":" + r.DedupeKey()})
	}
	rep, _ := validate.Run(ctx, targets, nil, validate.Options{Profile: h.Profile, Workers: workers})
	for i, f := range rep.Findings {
		if f.Severity != report.SeverityError || !blocksLoading(f.Code) {
			continue
		}
		if prev := out[f.File]; prev == nil || !h.Loader.Refuses(*prev) && h.Loader.Refuses(f) {
			out[f.File] = &rep.Findings[i]
		}
	}
	return out
}

// blocksLoading reports whether an error of code keeps a host from
// loading the skill: a problem of the file's framing, its YAML, its name
// or its description. An error in the body (a broken link) or the tree
// (two skills of one name) is worth fixing, but the host loads the skill.
func blocksLoading(code string) bool {
	rule, ok := validate.Lookup(code)
	if !ok {
		return false
	}
	switch rule.Group {
	case "framing", "yaml", "name", "description":
		return true
	}
	return false
}

// pluginVerdict is the verdict on a plugin of the host that loads none of
// its skills: turned off in the settings, or refused.
func pluginVerdict(p pipeline.DisabledPlugin, managed []validate.ManagedTree) Verdict {
	x := Verdict{Name: p.Key(), File: p.Settings, Skills: p.Skills, Setting: p.Settings, Code: PluginDisabled,
		Detail: pipeline.DisabledReason([]pipeline.DisabledPlugin{p})}
	if p.Refused != "" {
		x.Code, x.Problem, x.Detail = ManifestRejected, true, p.Refused
		if t := validate.Managing(managed, p.Settings); t != nil {
			x.Managed = t.What
		}
	}
	return x
}

// diagnosticVerdict turns a problem of discovery that costs h skills into
// a verdict: a plugin its settings enable but nobody installed, a broken
// link in a folder it reads.
func diagnosticVerdict(h Host, d pipeline.Diagnostic, roots map[string]pipeline.Root, managed []validate.ManagedTree) (Verdict, bool) {
	switch d.Code {
	case providers.CodePluginNotInstalled:
		if d.Provider != h.Name {
			return Verdict{}, false
		}
		key, _, _ := strings.Cut(strings.TrimPrefix(d.Message, "plugin "), " ")
		return Verdict{Name: key, File: d.Path, Setting: d.Path, Code: PluginNotInstalled, Detail: d.Message,
			Problem: true}, true
	case problems.BrokenSymlink:
		root, ok := roots[filepath.Dir(d.Path)]
		if !ok || !h.Reads(root) {
			return Verdict{}, false
		}
		x := Verdict{Name: filepath.Base(d.Path), File: d.Path, Code: LinkBroken, Problem: true, Detail: d.Message}
		if t := validate.Managing(managed, filepath.Dir(d.Path)); t != nil {
			x.Managed = t.What
		}
		return x, true
	}
	return Verdict{}, false
}
