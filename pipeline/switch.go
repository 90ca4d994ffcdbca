package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// A host is an agent that reads skills on its own and has its own switch
// for each skill: Claude Code's skillOverrides, Codex's [[skills.config]],
// Gemini CLI's skills.disabled. The providers that plan a host's roots
// name it (Root.Hosts) by its agent label and read its switches
// (providers.HostOwner).

// The modes of a switch. ModeOn is what no switch means; Claude Code's
// skillOverrides also has the two modes between on and off.
const (
	ModeOn                = "on"
	ModeOff               = "off"
	ModeNameOnly          = "name-only"           // the model sees the name, not the description
	ModeUserInvocableOnly = "user-invocable-only" // only the user can call it, as /name
)

// HostSwitch is a host's setting that turns one skill off, or limits it,
// as the host's own files say: Claude Code's skillOverrides, Codex's
// [[skills.config]], Gemini CLI's skills.disabled.
type HostSwitch struct {
	// Host is the host's agent label, and Title its name for people
	// ("Claude Code").
	Host  string `json:"host"`
	Title string `json:"title"`
	// Mode is off, name-only or user-invocable-only.
	Mode string `json:"mode"`
	// File is the settings file that says so, and Scope its level: user,
	// project or local.
	File  string `json:"file"`
	Scope string `json:"scope"`
	// Setting names the setting, as the host's documentation does:
	// "skillOverrides", "[[skills.config]]", "skills.disabled".
	Setting string `json:"setting"`
}

// Hides reports whether the switch turns the skill off for its host.
// name-only and user-invocable-only leave it loadable.
func (s HostSwitch) Hides() bool { return s.Mode == ModeOff }

// String says it for people: `off in Claude Code (settings.json
// skillOverrides, project)`.
func (s HostSwitch) String() string {
	title := s.Title
	if title == "" {
		title = s.Host
	}
	return fmt.Sprintf("%s in %s (%s %s, %s)", s.Mode, title, filepath.Base(s.File), s.Setting, s.Scope)
}

// SkillSwitch is a switch as a provider reads it from a host's files,
// before it is matched to the records the host reads (see ApplySwitches).
// It names a skill the way its host does, by one of Name, Folder or
// Path: a switch matches only the skills its host would know by that
// key.
type SkillSwitch struct {
	HostSwitch
	// Name matches a skill by its frontmatter name (Record.FrontmatterName), as
	// Codex's [[skills.config]] name and Gemini CLI's skills.disabled do.
	Name string
	// Folder matches a skill by the name of its folder, as Claude Code's
	// skillOverrides does.
	Folder string
	// Path matches a skill by its SKILL.md file, as Codex's
	// [[skills.config]] path does.
	Path string
}

// ApplySwitches attaches to each skill record the switches of the hosts
// that read it (Record.Hosts) which name it, in their order: a host's
// later switch for the same skill replaces its earlier one. A switch of
// mode on only cancels an earlier one. Plugin skills are left alone: the
// hosts switch them by plugin, and a disabled plugin's skills are not
// scanned at all. It runs once per scan, on its fresh records, before
// ids are assigned.
//
// The records of one folder (a skill in .agents/skills that
// .claude/skills links to, read by Codex and Gemini CLI through the one
// root and by Claude Code through the other) are one skill for switches
// (see JoinFolders): each gets the switches of every host that reads the
// folder, and Readers lists those hosts.
func ApplySwitches(records []*Record, switches []SkillSwitch) {
	ApplySwitchesOn(records, switches, nil)
}

// ApplySwitchesOn is ApplySwitches on a machine where only the hosts of
// present are set up (nil: every host): a host that is not set up here
// loads nothing, so it is no reader of a skill (Readers), and its switch
// does not keep a skill that every host set up here turns off in the
// view of every host.
func ApplySwitchesOn(records []*Record, switches []SkillSwitch, present []string) {
	defer JoinFolders(records, present)
	if len(switches) == 0 {
		return
	}
	byName := map[string][]int{}
	byFolder := map[string][]int{}
	byPath := map[string][]int{}
	for i, s := range switches {
		switch {
		case s.Path != "":
			p := filepath.Clean(s.Path)
			byPath[p] = append(byPath[p], i)
		case s.Folder != "":
			byFolder[s.Folder] = append(byFolder[s.Folder], i)
		default:
			byName[s.Name] = append(byName[s.Name], i)
		}
	}
	for _, r := range records {
		if r.IsCommand() || r.Plugin != nil || len(r.Hosts) == 0 {
			continue
		}
		var hits []int
		hits = append(hits, byName[r.FrontmatterName()]...)
		hits = append(hits, byFolder[filepath.Base(r.Dir)]...)
		hits = append(hits, byPath[filepath.Clean(r.File)]...)
		if len(hits) == 0 {
			continue
		}
		slices.Sort(hits)
		last := map[string]HostSwitch{}
		var order []string
		for _, h := range hits {
			s := switches[h]
			if !slices.Contains(r.Hosts, s.Host) {
				continue
			}
			if _, seen := last[s.Host]; !seen {
				order = append(order, s.Host)
			}
			last[s.Host] = s.HostSwitch
		}
		var off []HostSwitch
		for _, host := range order {
			if s := last[host]; s.Mode != ModeOn {
				off = append(off, s)
			}
		}
		r.Off = off
	}
}

// FolderKey is what makes two skill records one skill for switches: the
// folder they are read from, with links resolved (RealDir, else Dir).
// It is "" for a command, a plugin's skill (its host switches it by
// plugin) and a record with no folder.
func (r *Record) FolderKey() string {
	if r.IsCommand() || r.Plugin != nil {
		return ""
	}
	dir := r.RealDir
	if dir == "" {
		dir = r.Dir
	}
	if dir == "" {
		return ""
	}
	return filepath.Clean(dir)
}

// JoinFolders makes the skill records of one folder (FolderKey) one skill
// for switches: each gets, in Readers, every host of present (nil: every
// host) that reads the folder through any of them, and in Off the switch
// of each host that reads it, as that host names the record it reads. A
// host that reads two of them (Codex through .agents/skills and a linked
// ~/.codex/skills) counts the first switch that hides it, else the first.
// A record alone in its folder keeps its Off, and its Readers are its
// Hosts of present. Running it again changes nothing.
func JoinFolders(records []*Record, present []string) {
	groups := map[string][]*Record{}
	var order []string
	for _, r := range records {
		r.Readers = setUp(r.Hosts, present)
		k := r.FolderKey()
		if k == "" {
			continue
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		readers := setUp(nil, present)
		byHost := map[string]HostSwitch{}
		var hosts []string
		for _, r := range g {
			for _, h := range setUp(r.Hosts, present) {
				if !slices.Contains(readers, h) {
					readers = append(readers, h)
				}
			}
			for _, s := range r.Off {
				prev, seen := byHost[s.Host]
				if !seen {
					hosts = append(hosts, s.Host)
				}
				if !seen || (!prev.Hides() && s.Hides()) {
					byHost[s.Host] = s
				}
			}
		}
		var off []HostSwitch
		for _, h := range hosts {
			off = append(off, byHost[h])
		}
		for _, r := range g {
			r.Readers, r.Off = readers, off
		}
	}
}

// setUp returns the hosts of hosts that present holds (all of them for
// a nil present).
func setUp(hosts, present []string) []string {
	if present == nil {
		return hosts
	}
	out := []string{} // not nil: no host reads it (OffIn)
	for _, h := range hosts {
		if slices.Contains(present, h) {
			out = append(out, h)
		}
	}
	return out
}

// OffIn returns the switches that turn r off in the view of host: the
// hiding switch of host, or with host "" the hiding switches of the hosts
// that read r's folder (Readers) when every one of them has one (a skill
// is hidden only when no host that reads it would load it; when no host
// set up here reads it, any hiding switch hides it). It returns nil when
// r is on in that view.
func (r *Record) OffIn(host string) []HostSwitch {
	if len(r.Off) == 0 {
		return nil
	}
	readers := r.Readers
	if readers == nil {
		readers = r.Hosts
	}
	var out []HostSwitch
	for _, s := range r.Off {
		if s.Hides() && (host == s.Host || host == "" && (len(readers) == 0 || slices.Contains(readers, s.Host))) {
			out = append(out, s)
		}
	}
	if host == "" && len(out) < len(readers) {
		return nil
	}
	return out
}

// SwitchFor returns r's switch for host, if it has one.
func (r *Record) SwitchFor(host string) (HostSwitch, bool) {
	for _, s := range r.Off {
		if s.Host == host {
			return s, true
		}
	}
	return HostSwitch{}, false
}

// DescribeOff says in words why switches hide a skill: `off in Claude
// Code (settings.json skillOverrides, project)`, joined with "; ".
func DescribeOff(off []HostSwitch) string {
	parts := make([]string, len(off))
	for i, s := range off {
		parts[i] = s.String()
	}
	return strings.Join(parts, "; ")
}
