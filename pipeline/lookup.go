package pipeline

// Name lookup for serving and explaining records. The listing shows the
// visible records only, but a name that designates one record exactly
// still reaches it when dedupe hid it: the skill tool, prompts/get and
// `ccski info` all go through Lookup, so they agree on what a name means
// and on why a record cannot be served.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// DisabledPlugin is an installed plugin (of Claude Code, or of another
// host: a Codex plugin, a Gemini CLI extension) that the host's settings
// turn off: its skills and commands are not scanned, so a name qualified
// with it finds nothing, and neither does the bare name of one of its
// skills or commands. Lookup says so instead of suggesting unrelated
// names.
type DisabledPlugin struct {
	// Provider is the provider label its records would carry ("claude"),
	// so that "claude:<skill>" is recognised as well as "<skill>"; empty
	// means only bare names are.
	Provider string `json:"provider,omitempty"`
	// Plugin and Marketplace name it, as in "plugin@marketplace".
	Plugin      string `json:"plugin"`
	Marketplace string `json:"marketplace"`
	// Settings is the settings file whose enabledPlugins value turns it
	// off (the last one that names it).
	Settings string `json:"settings"`
	// Enable says where and how to turn it on, for a host whose settings
	// are not Claude's enabledPlugins: `~/.codex/config.toml:
	// [plugins."p@m"] enabled = true`. Empty means the Claude form that
	// EnableHint writes from Settings and Key.
	Enable string `json:"enable,omitempty"`
	// Skills and Commands are the names its skills and commands would
	// have within the plugin, sorted: skill folder names and command file
	// names without ".md" ("frontend:review" for commands/frontend/
	// review.md). The provider takes them from folder listings only, never
	// from the files, so a skill whose frontmatter renames it is known by
	// its folder name.
	Skills   []string `json:"skills,omitempty"`
	Commands []string `json:"commands,omitempty"`
	// Refused, when set, says why the host refuses to load the plugin
	// although its settings enable it (its manifest breaks the host's
	// rules: `.claude-plugin/plugin.json: agents.0 must end with ".md"`);
	// Settings is then that manifest, and there is nothing to enable.
	Refused string `json:"refused,omitempty"`
}

// Key is the plugin's enabledPlugins key, "plugin@marketplace".
func (p DisabledPlugin) Key() string { return p.Plugin + "@" + p.Marketplace }

// EnableHint says where to turn the plugin on: Enable when the provider
// set it, else the Claude settings file and its enabledPlugins entry
// (`/h/.claude/settings.json enabledPlugins: "p@m": true`). For a plugin
// the host refuses, which no setting turns on, it is Refused.
func (p DisabledPlugin) EnableHint() string {
	if p.Refused != "" {
		return p.Refused
	}
	if p.Enable != "" {
		return p.Enable
	}
	return fmt.Sprintf("%s enabledPlugins: %q: true", p.Settings, p.Key())
}

// Found is the record a name designates and, when the record is not
// visible, the drop that hid it.
type Found struct {
	Record *Record
	// Drop is nil when Record is visible.
	Drop *Drop
}

// Hidden says why the record is hidden (the drop's Reason), or is "" when
// it is visible.
func (f Found) Hidden() string {
	if f.Drop == nil {
		return ""
	}
	return f.Drop.Reason
}

// Loadable reports whether the record may be served: it is visible, or
// only a dedupe hid it (Drop.Loadable).
func (f Found) Loadable() bool { return f.Drop == nil || f.Drop.Loadable() }

// HiddenError is returned by Load when the name designates a record that
// the user's filters hide (excluded, not selected, disabled by .SKILL.md).
type HiddenError struct {
	Name   string
	Record *Record
	// Reason is the Reason of the record's drop.
	Reason string
}

func (e *HiddenError) Error() string {
	what := fmt.Sprintf("%s %q", noun(e.Record.Type), e.Name)
	if !strings.EqualFold(strings.TrimSpace(e.Name), e.Record.ID) {
		what += " (" + e.Record.ID + ")"
	}
	return what + " is hidden: " + e.Reason
}

// PluginDisabledError is returned when no record answers to a name that is
// qualified with a plugin the settings disable, or that is the bare name
// of a skill or command of such a plugin.
type PluginDisabledError struct {
	Name string
	// Plugins are the disabled installs the name designates, one per
	// plugin and marketplace.
	Plugins []DisabledPlugin
	// Members, for a name that is not qualified with a plugin, are the
	// skills or commands of those plugins that it names, in the order of
	// Plugins; nil for a plugin-qualified name.
	Members []DisabledMember
}

// DisabledMember is a skill or command of a disabled plugin that a bare
// name designates.
type DisabledMember struct {
	Plugin string
	Type   Type
	// Name is its name within the plugin.
	Name string
}

// String is the member as the user would name it once the plugin is
// enabled: "skill superpowers:brainstorming", "command
// /superpowers:write-plan".
func (m DisabledMember) String() string {
	if m.Type == TypeCommand {
		return "command /" + m.Plugin + ":" + m.Name
	}
	return "skill " + m.Plugin + ":" + m.Name
}

func (e *PluginDisabledError) Error() string {
	return fmt.Sprintf("%q is not available: %s", e.Name, strings.Join(disabledParts(e.Plugins, e.Members), "; "))
}

// DisabledReason says that the plugins of off are disabled and where to
// enable each: "plugin p is disabled (enable it in <file>: ..., or in
// ...)", one part per plugin in the order of off, joined by "; ". Lookup
// (PluginDisabledError) and the filter tokens say it in these words.
func DisabledReason(off []DisabledPlugin) string { return strings.Join(disabledParts(off, nil), "; ") }

// disabledParts says, per distinct plugin of off in order, that it is
// disabled and where to enable it, after the members of it that a name
// designates.
func disabledParts(off []DisabledPlugin, members []DisabledMember) []string {
	var parts []string
	// Plugin names are grouped regardless of case: one plugin disabled in
	// two settings files is one part, naming both.
	var plugins []string // distinct plugin names, in order
	for _, p := range off {
		if !slices.ContainsFunc(plugins, func(n string) bool { return strings.EqualFold(n, p.Plugin) }) {
			plugins = append(plugins, p.Plugin)
		}
	}
	for _, name := range plugins {
		var where, named []string
		for _, p := range off {
			if strings.EqualFold(p.Plugin, name) {
				where = append(where, p.EnableHint())
			}
		}
		for _, m := range members {
			if strings.EqualFold(m.Plugin, name) && !slices.Contains(named, m.String()) {
				named = append(named, m.String())
			}
		}
		part := fmt.Sprintf("plugin %s is disabled (enable it in %s)", name, strings.Join(where, ", or in "))
		if i := slices.IndexFunc(off, func(p DisabledPlugin) bool { return strings.EqualFold(p.Plugin, name) && p.Refused != "" }); i >= 0 {
			part = fmt.Sprintf("plugin %s is not loaded: %s", name, off[i].Refused)
		}
		if len(named) > 0 {
			part = "it names the " + strings.Join(named, " and the ") + ", but " + part
		}
		parts = append(parts, part)
	}
	return parts
}

func noun(t Type) string {
	if t == TypeCommand {
		return "command"
	}
	return "skill"
}

// Lookup finds the record of type typ (TypeSkill or TypeCommand) that name
// designates, visible or hidden, case-insensitively:
//
//  1. A record id designates exactly that record, whatever else answers
//     to the same text.
//  2. Otherwise the visible records are searched as Index.Resolve does
//     (the first tier with a match decides):
//     one match is the answer and several are an *AmbiguousError.
//  3. A name no visible record answers to is searched among the hidden
//     records the same way. One match is the answer, with its drop;
//     several are an *AmbiguousError whose Reasons say why each is hidden.
//  4. Nothing answers: a *PluginDisabledError when the name is qualified
//     with a plugin the settings disable, or is the name of a skill (or
//     command, for TypeCommand) of such a plugin, bare, provider-qualified
//     or as the name within the plugin; else a *NotFoundError that
//     suggests visible records of the type.
//
// Use Load to serve a record's content; Lookup also finds records the
// user's filters hide, for explaining them.
func (s *Snapshot) Lookup(name string, typ Type) (Found, error) {
	f, err := s.find(name, typ)
	if err == errNoMatch {
		return Found{}, s.notFound(name, s.visibleIndexOf(typ), typ)
	}
	return f, err
}

// LookupAny is Lookup over skills and commands with one rule: a skill that
// answers to the name wins over a command, as a same-named skill wins
// over a command in Claude Code, so `ccski info NAME` shows what the skill
// tool loads. Commands are searched only when no skill, visible or
// hidden, answers; suggestions then name visible records of both types,
// and a disabled plugin's skills and commands both count.
func (s *Snapshot) LookupAny(name string) (Found, error) {
	f, err := s.find(name, TypeSkill)
	if err == errNoMatch {
		f, err = s.find(name, TypeCommand)
	}
	if err == errNoMatch {
		return Found{}, s.notFound(name, s.visibleIndex(), TypeSkill, TypeCommand)
	}
	return f, err
}

// Load is Lookup for serving a record's content. A hidden record is
// returned only when Found.Loadable holds, that is when a copy of the
// same name won the dedupe and no user filter would hide it; any other
// hidden record is a *HiddenError that says why it is hidden.
func (s *Snapshot) Load(name string, typ Type) (*Record, error) {
	f, err := s.Lookup(name, typ)
	if err != nil {
		return nil, err
	}
	if !f.Loadable() {
		return nil, &HiddenError{Name: strings.TrimSpace(name), Record: f.Record, Reason: f.Hidden()}
	}
	return f.Record, nil
}

// Loads reports whether Load(name, r's type) returns r, for a visible
// record r: what find does, without building the errors of the names
// that answer otherwise. The MCP catalogue names each skill by the
// shortest name for which it holds.
func (s *Snapshot) Loads(name string, r *Record) bool {
	typ := r.Type.OrSkill()
	if byID := s.ByID(name); byID != nil && byID.Type.OrSkill() == typ {
		return byID == r
	}
	return s.visibleIndexOf(typ).designates(name, r)
}

// errNoMatch is find's answer when no record of the type answers.
var errNoMatch = errors.New("no record answers to the name")

// find is steps 1 to 3 of Lookup; it returns errNoMatch for step 4.
func (s *Snapshot) find(name string, typ Type) (Found, error) {
	if r := s.ByID(name); r != nil && r.Type.OrSkill() == typ {
		return s.found(r), nil
	}
	r, err := s.visibleIndexOf(typ).match(name)
	if err == nil {
		return Found{Record: r}, nil
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		return Found{}, err
	}
	r, err = s.hiddenIndexOf(typ).match(name)
	if err == nil {
		return s.found(r), nil
	}
	var amb *AmbiguousError
	if errors.As(err, &amb) {
		amb.Reasons = make([]string, len(amb.Candidates))
		for i, id := range amb.Candidates {
			amb.Reasons[i] = s.found(s.ByID(id)).Hidden()
		}
		return Found{}, amb
	}
	return Found{}, errNoMatch
}

// found pairs r with its drop.
func (s *Snapshot) found(r *Record) Found {
	if d, ok := s.DropOf(r); ok {
		return Found{Record: r, Drop: &d}
	}
	return Found{Record: r}
}

// notFound is step 4 of Lookup: x suggests names, and types are the types
// of a disabled plugin's members that a bare name may designate.
func (s *Snapshot) notFound(name string, x *Index, types ...Type) error {
	if off := s.disabledFor(name); len(off) > 0 {
		return &PluginDisabledError{Name: strings.TrimSpace(name), Plugins: off}
	}
	if off, members := s.disabledMembers(name, types); len(off) > 0 {
		return &PluginDisabledError{Name: strings.TrimSpace(name), Plugins: off, Members: members}
	}
	return &NotFoundError{Name: name, Suggestions: x.Suggest(name, 3)}
}

// disabledMembers returns the disabled plugins that have a skill or
// command, of one of types, that name designates without naming the
// plugin, and those members. A name designates a member as it would
// designate the record the member would give (see NewIndex): by its name
// within the plugin ("frontend:review") or its last word ("review"), bare
// or after "<provider>:" (and "/" for a command).
func (s *Snapshot) disabledMembers(name string, types []Type) ([]DisabledPlugin, []DisabledMember) {
	q := strings.ToLower(strings.TrimSpace(name))
	if len(s.Disabled) == 0 || q == "" {
		return nil, nil
	}
	var off []DisabledPlugin
	var members []DisabledMember
	for _, p := range s.Disabled {
		found := false
		for _, typ := range types {
			list := p.Skills
			if typ == TypeCommand {
				list = p.Commands
			}
			for _, n := range list {
				if designatesMember(q, p.Provider, typ, strings.ToLower(n)) {
					members = append(members, DisabledMember{Plugin: p.Plugin, Type: typ, Name: n})
					found = true
				}
			}
		}
		if found {
			off = append(off, p)
		}
	}
	return off, members
}

// designatesMember reports whether the lower-cased query q names the
// member n (lower-cased) of type typ of a plugin of provider.
func designatesMember(q, provider string, typ Type, n string) bool {
	short := n[strings.LastIndexByte(n, ':')+1:]
	rest := q
	if provider != "" {
		if r, ok := strings.CutPrefix(q, strings.ToLower(provider)+":"); ok {
			rest = r
		}
	}
	if typ == TypeCommand {
		rest = strings.TrimPrefix(rest, "/")
	}
	return rest != "" && (rest == n || rest == short)
}

// disabledFor returns the disabled plugins that name is qualified with:
// "plugin:skill" and its id forms ("@plugin:skill", "claude:@plugin:skill",
// "claude@plugin:/@plugin:cmd", "claude:plugin:skill").
func (s *Snapshot) disabledFor(name string) []DisabledPlugin {
	if len(s.Disabled) == 0 {
		return nil
	}
	var out []DisabledPlugin
	for _, q := range qualifiers(name) {
		for _, p := range s.Disabled {
			if strings.EqualFold(p.Plugin, q) {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// qualifiers returns the words a name may be qualified with, in order:
// its first ":"-separated word and the next one, which is the plugin when
// the first is a provider ("claude", "claude@plugin"). A leading "/" or
// "@" is not part of a word, and a word that no ":" follows qualifies
// nothing.
func qualifiers(name string) []string {
	rest := strings.TrimSpace(name)
	var out []string
	for range 2 {
		rest = strings.TrimLeft(rest, "/@")
		head, tail, ok := strings.Cut(rest, ":")
		if !ok || head == "" || tail == "" {
			break
		}
		out = append(out, head)
		rest = tail
	}
	return out
}

// visibleIndexOf is the index of the visible records of type typ.
func (s *Snapshot) visibleIndexOf(typ Type) *Index {
	if typ == TypeCommand {
		s.commandsOnce.Do(func() { s.commandIndex = NewIndex(s.Commands()) })
		return s.commandIndex
	}
	return s.skillsIndex()
}

// hiddenIndexOf is the index of the hidden records of type typ.
func (s *Snapshot) hiddenIndexOf(typ Type) *Index {
	s.hiddenOnce.Do(func() {
		var skills, commands []*Record
		for _, d := range s.Drops {
			if d.Record.IsCommand() {
				commands = append(commands, d.Record)
			} else {
				skills = append(skills, d.Record)
			}
		}
		s.hidden = [2]*Index{NewIndex(skills), NewIndex(commands)}
	})
	if typ == TypeCommand {
		return s.hidden[1]
	}
	return s.hidden[0]
}
