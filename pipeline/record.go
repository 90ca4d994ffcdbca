package pipeline

import (
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/report"
)

// Location says at which level a skill is installed.
type Location string

// The locations a record can have.
const (
	LocationProject Location = "project"
	LocationUser    Location = "user"
	LocationPlugin  Location = "plugin"
	LocationCustom  Location = "custom"
	// LocationSystem holds the skills an agent ships or an administrator
	// installs for the whole machine: Codex's bundled skills in
	// $CODEX_HOME/skills/.system and /etc/codex/skills.
	LocationSystem Location = "system"
)

// Kind classifies the root a record came from. The priority stage ranks
// duplicates by kind; the order is configurable (see DefaultPriority).
type Kind string

// The root kinds, from the highest default priority to the lowest.
const (
	KindCustom          Kind = "custom"           // --skill-dir
	KindProject         Kind = "project"          // skill_dirs in ccski.yaml
	KindWorkspaceAgent  Kind = "workspace-agent"  // <ws>/.claude/skills, <ws>/.<agent>/skills
	KindWorkspaceShared Kind = "workspace-shared" // <ws>/.agents/skills, <ws>/.agent/skills
	KindWorkspaceRoot   Kind = "workspace-root"   // <ws>/skills
	KindUserAgent       Kind = "user-agent"       // ~/.claude/skills, ~/.<agent>/skills
	KindUserShared      Kind = "user-shared"      // ~/.agents/skills
	KindSystem          Kind = "system"           // $CODEX_HOME/skills/.system, /etc/codex/skills
	KindPlugin          Kind = "plugin"           // Claude plugin skills
	KindRemote          Kind = "remote"           // upstream MCP servers' and git repositories' skills (providers.remote, providers.git)
)

// DefaultPriority is the built-in ranking of root kinds, highest first.
func DefaultPriority() []Kind {
	return []Kind{KindCustom, KindProject, KindWorkspaceAgent, KindWorkspaceShared,
		KindWorkspaceRoot, KindUserAgent, KindUserShared, KindSystem, KindPlugin, KindRemote}
}

// PluginInfo identifies the plugin a skill belongs to: a Claude or Codex
// plugin, or a Gemini CLI extension.
type PluginInfo struct {
	Plugin      string `json:"pluginName"`
	Marketplace string `json:"marketplace"`
	Version     string `json:"version"`
	// NoSwitch, when set, says why ccski cannot turn the plugin on or
	// off and how its host does: a host that keeps no plugin switch in a
	// file ccski can edit (Cursor's state database, none at all for
	// ~/.agents/plugins).
	NoSwitch string `json:"-"`
}

// Key is the plugin's key in the hosts' settings: plugin@marketplace, as
// DisabledPlugin.Key.
func (p *PluginInfo) Key() string { return p.Plugin + "@" + p.Marketplace }

// Type says what a record is.
type Type string

// The record types. The zero Type means TypeSkill.
const (
	TypeSkill   Type = "skill"   // a folder holding SKILL.md
	TypeCommand Type = "command" // a slash-command Markdown file
)

// OrSkill is t with the zero Type spelled out: TypeSkill for "", t
// otherwise. Reports and JSON name the type of every record and root with
// it.
func (t Type) OrSkill() Type {
	if t == "" {
		return TypeSkill
	}
	return t
}

// Record is one discovered skill or command. It is built by the scanner from a Root and
// the skill's frontmatter, and never changed afterwards.
type Record struct {
	// Type is skill (the zero value) or command.
	Type Type
	// ID is unique within a scan and resolves back to exactly this record.
	// It is "<provider>:<name>" when that is unique, otherwise it is
	// qualified with the location ("claude@user:pdf") and, if needed, an
	// ordinal ("claude@project:pdf#2").
	ID string
	// SkillPath locates a skill in the MCP Skills Extension's namespace:
	// its files are skill://<SkillPath>/<file>, and its last segment is
	// the skill's name within its plugin or scope ("codex/pdf",
	// "claude/plugins/document-skills/docx"). AssignIDs sets it, unique
	// like ID; it is "" for commands. See skillpath.go.
	SkillPath string
	// Name is the skill's name as its host names it, prefixed with the
	// plugin name for plugin skills ("example-skills:pdf") and with the
	// scope for custom dirs that set one ("docs:pdf"): the folder's name
	// for a skill of a root whose host names skills after their folders
	// (Root.FolderNames: Claude Code), else the frontmatter name (Codex,
	// Gemini CLI and the rest), or the folder's name when the frontmatter
	// has none. A command's name is its path below the root without ".md",
	// folders joined with ':' ("frontend:review"), with the plugin prefix
	// for plugin commands.
	Name string
	// Alias is the skill's other name, prefixed as Name is: its
	// frontmatter name when FolderNamed, else its folder's name; "" when
	// the two are the same (case aside) and for commands. Every lookup by
	// name also answers to it, after the names themselves (see names.go).
	Alias string
	// FolderNamed is set when Name comes from the skill's folder because
	// its host names skills so (Root.FolderNames).
	FolderNamed bool
	// Description is the frontmatter description with every run of white
	// space folded to one space. A command without one has the first
	// non-empty line of its body, leading '#' and spaces trimmed.
	Description string
	// Agent is the agent label of the record: the agent it belongs to
	// (claude, codex, agents, gemini, openclaw, a dynamic ".<agent>" name),
	// or project or custom. Ids, filter tokens and JSON output call it the
	// provider, as users see it; Root.Provider is the provider plugin that
	// planned the record's root.
	Agent string
	// Location is project, user, plugin, custom or system.
	Location Location
	// Kind and Depth place the record's root in the priority order; Depth
	// counts workspace ancestors (0 = the workspace itself).
	Kind  Kind
	Depth int
	// Precedence is the rule of the record's provider for its user and
	// project copies (see Root.Precedence); nil when it has none.
	Precedence *Precedence
	// Root is the root folder the skill was found under.
	Root string
	// Dir is the skill folder and File its SKILL.md (or .SKILL.md); for a
	// command, File is the .md file and Dir its folder.
	Dir  string
	File string
	// RealDir is Dir with symlinks resolved; path dedupe keys on it.
	RealDir string
	// Disabled is true for a folder holding .SKILL.md instead of SKILL.md.
	Disabled bool
	// Hosts are the agents that read the skill on their own and can
	// switch it off, by agent label, from its root (Root.Hosts); empty
	// for a skill no host reads without ccski.
	Hosts []string
	// Readers are the hosts that read the skill's folder through this
	// record's root or another's: its Hosts, and the Hosts of every other
	// record of the same folder (see JoinFolders), such as Claude Code
	// for a skill of .agents/skills that .claude/skills links to.
	Readers []string
	// Off are the switches of those hosts (Readers) that turn the skill
	// off or limit it, one per host, each as its host names the record it
	// reads (see ApplySwitches, JoinFolders and OffIn).
	Off []HostSwitch
	// Resource folders present beside SKILL.md.
	HasReferences bool
	HasScripts    bool
	HasAssets     bool
	// SignatureFile names the signature file the skill folder holds at
	// its top (such as skill.oms.sig; package provenance names them), as
	// discovery listed the folder; "" when none. Only a skill that names
	// one is verified (Snapshot.Signatures); the others are unsigned.
	SignatureFile string
	// Plugin is set for plugin skills (of a Claude or Codex plugin, or a
	// Gemini CLI extension).
	Plugin *PluginInfo
	// OpenAI is what the skill's agents/openai.yaml tells Codex about it
	// (display name, short description, icons, whether Codex may invoke it
	// on its own), or nil when the skill has none or it says nothing
	// usable. The scanner reads the file beside SKILL.md.
	OpenAI *OpenAIMetadata
	// Size and ModTime describe the SKILL.md file.
	Size    int64
	ModTime time.Time
	// HeadDigest is the digest ("sha256:" and 64 hex digits, as manifests
	// write it) of the first HeadSize bytes of the record's own file
	// (SKILL.md, a command's file): the bytes discovery read to parse the
	// record's fields. A gate compares them with the bytes it judged, so
	// that the name and description every list shows were judged too.
	// "" for a record discovery did not read.
	HeadDigest string
	HeadSize   int64
	// Diagnostics are the warnings raised while reading this skill.
	Diagnostics []Diagnostic

	// The fields below are set for commands only.

	// ArgumentHint is the frontmatter argument-hint of a command (such as
	// "[file] [mode]"), or "" when it has none. MCP prompts describe their
	// argument with it.
	ArgumentHint string
	// Handoffs is the frontmatter handoffs value of a command, decoded as
	// JSON-compatible data exactly as written (mappings become
	// map[string]any, sequences []any, scalars string, int64, uint64,
	// float64, bool or nil), or nil when it has none. ccski never follows
	// handoffs; MCP clients do, so a cycle between commands is kept as
	// written.
	Handoffs any
}

// ShortName is the last ":"-separated segment of the name ("pdf" for
// "example-skills:pdf"). Name matching uses it (filter globs, search, the
// loosest tier of Resolve); dedupe does not: see DedupeKey.
func (r *Record) ShortName() string {
	if i := strings.LastIndexByte(r.Name, ':'); i >= 0 {
		return r.Name[i+1:]
	}
	return r.Name
}

// ExplicitOnly reports whether the skill's agents/openai.yaml says the
// model may not pick it on its own (policy.allow_implicit_invocation:
// false): Codex leaves it out of its model's listing and loads it only
// when the user names it, and ccski's catalogue does the same.
func (r *Record) ExplicitOnly() bool {
	return r.OpenAI != nil && r.OpenAI.AllowImplicitInvocation != nil && !*r.OpenAI.AllowImplicitInvocation
}

// FrontmatterName is the name the skill's frontmatter gives it, prefixed
// as Name is: Alias when the host names the skill after its folder and
// the frontmatter says otherwise, else Name. The MCP Skills Extension
// names a skill by its frontmatter (SkillPath).
func (r *Record) FrontmatterName() string {
	if r.FolderNamed && r.Alias != "" {
		return r.Alias
	}
	return r.Name
}

// ShortAlias is the last ":"-separated segment of Alias, or "" when the
// record has none.
func (r *Record) ShortAlias() string {
	if r.Alias == "" {
		return ""
	}
	return r.Alias[strings.LastIndexByte(r.Alias, ':')+1:]
}

// IsCommand reports whether the record is a slash command.
func (r *Record) IsCommand() bool { return r.Type == TypeCommand }

// FilesDir is the folder a skill's files are read and served from: RealDir
// (links resolved) when known, else Dir. The MCP resources and the web
// page read from it.
func (r *Record) FilesDir() string {
	if r.RealDir != "" {
		return r.RealDir
	}
	return r.Dir
}

// DedupeKey is the key under which copies of one skill are grouped: the
// record's fully qualified name, lower-cased. Two records are copies only
// when those are equal, as Claude Code keeps every plugin's names apart:
//
//   - A plugin record's key is its plugin and its name within the plugin
//     ("@tools:review"). The same plugin installed from two marketplaces,
//     or at two scopes, gives copies; the "setup" commands of two plugins
//     are two commands, and a plugin skill never shadows a local skill of
//     the same short name.
//   - Any other record's key is its whole name: "pdf" from the user and
//     from the project are copies, while "frontend:review" and
//     "backend:review" (command folders), or a scoped "docs:pdf" and
//     "pdf", are not.
//
// Commands get a "/" prefix, so a command never shadows a skill of the
// same name or the other way round.
func (r *Record) DedupeKey() string {
	key := strings.ToLower(r.Name)
	if r.Plugin != nil {
		key = "@" + strings.ToLower(r.Plugin.Plugin) + ":" + strings.ToLower(r.pluginLocalName())
	}
	if r.IsCommand() {
		key = "/" + key
	}
	return key
}

// pluginLocalName is a plugin record's name within its plugin: Name less
// the "<plugin>:" prefix ("git:commit" for the command
// "tools:git:commit" of plugin tools). For a record that is no plugin's,
// or whose name does not start with its plugin's, it is Name.
func (r *Record) pluginLocalName() string { return r.localName(r.Name) }

// localName is name, r's name or its alias, less the "<plugin>:" prefix
// of r's plugin (see pluginLocalName).
func (r *Record) localName(name string) string {
	if r.Plugin == nil {
		return name
	}
	p := r.Plugin.Plugin
	if len(name) > len(p) && name[len(p)] == ':' && strings.EqualFold(name[:len(p)], p) {
		return name[len(p)+1:]
	}
	return name
}

// Root is a folder a provider asks the scanner to search, with everything
// the scanner needs to label the records found under it.
type Root struct {
	// Path is the folder to scan.
	Path string
	// Agent is the agent label given to the records (see Record.Agent).
	Agent string
	// Provider is the name of the provider plugin that planned this root
	// (claude, codex, agents, marketplace, project, custom).
	Provider string
	Location Location
	Kind     Kind
	Depth    int
	// Precedence is the planning provider's rule for copies found both at
	// its user level and at its project level, given to every record found
	// here; nil for roots that are neither (custom, skill_dirs, system,
	// plugin).
	Precedence *Precedence
	// Prefix is prepended as "<prefix>:" to every skill name found here.
	Prefix string
	// FolderNames is set when the host that reads this root names its
	// skills after their folders, whatever the frontmatter says (Claude
	// Code: a folder video-downloader whose SKILL.md says
	// youtube-downloader is the skill video-downloader). Other roots name
	// skills by their frontmatter name, as Codex and Gemini CLI do.
	FolderNames bool
	// Plugin labels the records as plugin skills.
	Plugin *PluginInfo
	// Skills, when non-nil, lists the only skill folders to read (relative
	// to Path or absolute); the folder is not walked.
	Skills []string
	// Optional roots are expected to be missing on most machines; a missing
	// optional root is not reported as a problem.
	Optional bool
	// Type is what the root holds: skill folders (the zero value) or
	// command files. A command root's Path may also be a single .md file.
	Type Type
	// Hosts are the agents that read the skills found here on their own
	// (see Record.Hosts); the planning provider knows them.
	Hosts []string
	// Flat roots hold their contents directly: a flat skill root's skills
	// are its immediate sub-folders (a plugin's skills/ folder), and a flat
	// command root's commands are its top-level files (Codex prompts).
	Flat bool
	// Within, when set, is a real (symlink-free, absolute) folder the scan
	// of this root stays in: a root, declared skill folder or symlinked
	// folder that resolves outside it is not read. A provider whose root
	// holds content it does not control (a git checkout, whose symlinks
	// anyone who can push chooses) bounds it to that content.
	Within string
}

// Severity ranks a diagnostic, in the one vocabulary of severities that
// findings use too (report.Severity): error, warning or info.
type Severity = report.Severity

// The severities of a diagnostic.
const (
	SeverityInfo    = report.SeverityInfo
	SeverityWarning = report.SeverityWarning
	SeverityError   = report.SeverityError
)

// Diagnostic is a problem found while discovering skills. It names the file
// and says what is wrong; it never stops discovery of other skills.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Code     string   `json:"code"`
	Provider string   `json:"provider,omitempty"`
	Path     string   `json:"path,omitempty"`
	Line     int      `json:"line,omitempty"`
	Message  string   `json:"message"`
}

// AtLeast returns the diagnostics of diags at least as serious as min,
// the most serious first (in their order within a severity): the order
// ccski sources and doctor print them in. It never returns nil.
func AtLeast(diags []Diagnostic, min Severity) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range diags {
		if d.Severity.Rank() >= min.Rank() {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Diagnostic) int { return b.Severity.Rank() - a.Severity.Rank() })
	return out
}

// OpenAIMetadata is the part of a skill's agents/openai.yaml that Codex
// shows and obeys: how its apps present the skill, and whether the model
// may pick it on its own. Every field is optional; the empty string and
// nil mean the file does not say.
type OpenAIMetadata struct {
	// DisplayName is the name Codex's apps show (interface.display_name).
	DisplayName string `json:"displayName,omitempty"`
	// ShortDescription is the one-line description they show
	// (interface.short_description).
	ShortDescription string `json:"shortDescription,omitempty"`
	// IconSmall and IconLarge are the skill's icons, as paths: the file's
	// values (below the skill's assets/ folder) joined to the skill
	// folder (interface.icon_small, interface.icon_large).
	IconSmall string `json:"iconSmall,omitempty"`
	IconLarge string `json:"iconLarge,omitempty"`
	// BrandColor is the skill's colour, such as "#F59E0B"
	// (interface.brand_color).
	BrandColor string `json:"brandColor,omitempty"`
	// DefaultPrompt is the prompt the apps offer to start with the skill
	// (interface.default_prompt).
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	// AllowImplicitInvocation is policy.allow_implicit_invocation: false
	// means Codex uses the skill only when the user names it ($skill);
	// nil means the file leaves it to Codex's default (allowed).
	AllowImplicitInvocation *bool `json:"allowImplicitInvocation,omitempty"`
}
