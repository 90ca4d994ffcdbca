package pipeline

import "slices"

// The sources report answers "why is my skill missing?": every root
// discovery considered and what it gave, every copy the stages hid and
// why, and every problem found. `ccski sources --json` prints a
// SourcesReport as it is; the MCP sources tool builds its result from one,
// adding a status and a problem count to each root, and from Tally.

// SourceRoot is one root in the sources report.
type SourceRoot struct {
	Path string `json:"path"`
	// Type is what the root holds: "skill" folders or "command" files.
	// It is never the zero Type.
	Type     Type     `json:"type"`
	Provider string   `json:"provider"`
	Source   string   `json:"source"`
	Location Location `json:"location"`
	Kind     Kind     `json:"kind"`
	Exists   bool     `json:"exists"`
	// Skills counts what the root gave before filtering: skills, or
	// commands for a command root.
	Skills int         `json:"skills"`
	Plugin *PluginInfo `json:"pluginInfo,omitempty"`
}

// HiddenCopy is a record the stages dropped, and why.
type HiddenCopy struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Stage  string `json:"stage"`
	Reason string `json:"reason"`
	// By is the id of the copy that won, when the record lost a dedupe.
	By string `json:"by,omitempty"`
}

// UnlistedSkill is a visible skill that the MCP Skills Extension's
// skills/list leaves out, and why. It is still served by the skill tool
// and by resources/read.
type UnlistedSkill struct {
	ID     string `json:"id"`
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

// SwitchedSkill is a skill that the settings of agents that read it turn
// off or limit (Record.Off), whether or not that hides it from the view.
type SwitchedSkill struct {
	ID       string       `json:"id"`
	File     string       `json:"file"`
	Switches []HostSwitch `json:"switches"`
}

// NotLoaded is a skill, a plugin or a link that a host installed on the
// machine does not load on its own, and why: a skill nested in a folder
// Claude Code does not search, a plugin whose manifest it refuses, a
// broken link... The hosts' model (internal/hostview) says so; ccski
// sources and doctor print it.
type NotLoaded struct {
	// Host is the host's agent label, Title its name for people.
	Host  string `json:"host"`
	Title string `json:"title"`
	// ID is the record's id, "" for a plugin or a link; Name the skill's
	// name, the plugin's key or the link's name.
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	// Code says why in one word (nested, name-rules, manifest-rejected,
	// plugin-not-installed, link-broken, shadowed, ...), Reason in words.
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// FlaggedSkill is a skill the offline security scan found something in
// (see Snapshot.Security).
type FlaggedSkill struct {
	ID   string `json:"id"`
	File string `json:"file"`
	// Findings are what the scan found, as diagnostics with its rule
	// codes, in its report order.
	Findings []Diagnostic `json:"findings"`
}

// PrecedenceRule is one provider rule in the sources report: the
// providers whose roots carry it, and the rule itself.
type PrecedenceRule struct {
	// Providers are the provider names of the roots that carry the rule,
	// sorted ("agents", "cursor", "gemini", ... for
	// providers.agents.precedence).
	Providers []string `json:"providers"`
	Precedence
	// Rule says it in words (see Precedence.Rule).
	Rule string `json:"rule"`
}

// SourcesReport is the sources report of a snapshot. Its slices are never
// nil, so they encode as [] rather than null.
type SourcesReport struct {
	// Priority is the root kind order copies of one skill are ranked by,
	// highest first, and Precedence the provider rules that rank a
	// provider's own user and project copies within it (see
	// filters.Priority).
	Priority    []Kind           `json:"priority"`
	Precedence  []PrecedenceRule `json:"precedence"`
	Roots       []SourceRoot     `json:"roots"`
	Diagnostics []Diagnostic     `json:"diagnostics"`
	Hidden      []HiddenCopy     `json:"hidden"`
	// Unlisted are the visible skills skills/list leaves out (see
	// Record.Unlistable).
	Unlisted []UnlistedSkill `json:"unlisted"`
	// Flagged are the skills the security scan found something in, in
	// discovery order; empty when it did not run.
	Flagged []FlaggedSkill `json:"flagged"`
	// Changed are the project and plugin skills whose files differ from
	// what the trust store recorded (or could not be checked), in
	// discovery order; empty when the check did not run.
	Changed []ChangedSkill `json:"changed"`
	// Switched are the skills agents' own settings turn off or limit,
	// with the settings that say so.
	Switched []SwitchedSkill `json:"switched"`
	// NotLoaded are the skills, plugins and links that installed hosts do
	// not load on their own for another reason than a switch. Sources
	// leaves it empty; the caller fills it from the hosts' model.
	NotLoaded []NotLoaded `json:"notLoaded"`
	// Discovered and Visible count the records of the reported type.
	Discovered int `json:"discovered"`
	Visible    int `json:"visible"`
}

// Sources reports the snapshot's roots, hidden copies and diagnostics.
// kind TypeSkill or TypeCommand keeps only the roots, hidden copies and
// counts of that type; "" keeps everything. Diagnostics are never
// filtered, and the report shares the snapshot's slice of them.
func (s *Snapshot) Sources(kind Type) SourcesReport {
	out := SourcesReport{Priority: s.Priority, Precedence: precedenceRules(s.Roots, kind),
		Roots: []SourceRoot{}, Diagnostics: s.Diagnostics, Hidden: []HiddenCopy{}, Unlisted: []UnlistedSkill{},
		Switched: []SwitchedSkill{}, NotLoaded: []NotLoaded{}, Flagged: []FlaggedSkill{}, Changed: []ChangedSkill{}}
	if out.Priority == nil {
		out.Priority = DefaultPriority()
	}
	if out.Diagnostics == nil {
		out.Diagnostics = []Diagnostic{}
	}
	for _, r := range s.Roots {
		t := r.Type.OrSkill()
		if kind != "" && t != kind {
			continue
		}
		out.Roots = append(out.Roots, SourceRoot{Path: r.Path, Type: t, Provider: r.Agent, Source: r.Provider,
			Location: r.Location, Kind: r.Kind, Exists: r.Exists, Skills: r.Skills, Plugin: r.Plugin})
	}
	for _, d := range s.Drops {
		if kind != "" && d.Record.Type.OrSkill() != kind {
			continue
		}
		h := HiddenCopy{ID: d.Record.ID, File: d.Record.File, Stage: d.Stage, Reason: d.Reason}
		if d.By != nil {
			h.By = d.By.ID
		}
		out.Hidden = append(out.Hidden, h)
	}
	if kind != TypeCommand {
		for _, r := range s.All {
			if len(r.Off) > 0 {
				out.Switched = append(out.Switched, SwitchedSkill{ID: r.ID, File: r.File, Switches: r.Off})
			}
		}
		for _, r := range s.Skills() {
			if why := r.Unlistable(); why != "" {
				out.Unlisted = append(out.Unlisted, UnlistedSkill{ID: r.ID, URI: r.SkillURI(), Reason: why})
			}
		}
	}
	if kind != TypeCommand {
		for _, r := range s.All {
			if ds := s.Security[r]; len(ds) > 0 {
				out.Flagged = append(out.Flagged, FlaggedSkill{ID: r.ID, File: r.File, Findings: ds})
			}
			if in, ok := s.Integrity[r]; ok && (in.State == IntegrityChanged || in.State == IntegrityUnknown) {
				out.Changed = append(out.Changed, ChangedSkill{ID: r.ID, File: r.File, Integrity: in,
					Message: in.Describe(r.ID)})
			}
		}
	}
	skills, commands := s.Tally()
	switch kind {
	case "":
		out.Discovered, out.Visible = len(s.All), len(s.Visible)
	case TypeCommand:
		out.Discovered, out.Visible = commands.Discovered, commands.Visible
	default:
		out.Discovered, out.Visible = skills.Discovered, skills.Visible
	}
	return out
}

// precedenceRules collects the rules carried by roots of the given type
// ("" for every type), one entry per distinct rule in the order of its
// first root, each naming the providers that carry it, sorted.
func precedenceRules(roots []RootReport, kind Type) []PrecedenceRule {
	out := []PrecedenceRule{}
	index := map[Precedence]int{}
	for _, r := range roots {
		if r.Precedence == nil || (kind != "" && r.Type.OrSkill() != kind) {
			continue
		}
		i, ok := index[*r.Precedence]
		if !ok {
			i = len(out)
			index[*r.Precedence] = i
			out = append(out, PrecedenceRule{Providers: []string{}, Precedence: *r.Precedence, Rule: r.Precedence.Rule()})
		}
		if !slices.Contains(out[i].Providers, r.Agent) {
			out[i].Providers = append(out[i].Providers, r.Agent)
		}
	}
	for _, r := range out {
		slices.Sort(r.Providers)
	}
	return out
}

// Counts are discovered and visible totals.
type Counts struct {
	// Discovered counts the records found on disk.
	Discovered int `json:"discovered"`
	// Visible counts the records kept after filters and dedupe.
	Visible int `json:"visible"`
}

// Tally counts the snapshot's skills and commands.
func (s *Snapshot) Tally() (skills, commands Counts) {
	for _, r := range s.All {
		if r.IsCommand() {
			commands.Discovered++
		} else {
			skills.Discovered++
		}
	}
	for _, r := range s.Visible {
		if r.IsCommand() {
			commands.Visible++
		} else {
			skills.Visible++
		}
	}
	return skills, commands
}
