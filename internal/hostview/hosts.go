// Package hostview is ccski's model of what each host loads on its own:
// for a snapshot and a host (Claude Code, Codex, Gemini CLI, GitHub
// Copilot, Cursor), a verdict per skill the host reads, with a reason
// code and a detail a person can act on. `ccski doctor` prints it host by
// host, and `ccski sources` says from it why a host leaves a skill out.
// It is the one place that knows the hosts' load rules: which roots each
// reads, whether it loads nested skill folders, whose name rules it
// applies (the validate profiles), how its switches and plugin settings
// turn things off, and which copy wins when two have one name.
package hostview

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/copilot"
	"github.com/ccski/ccski/providers/cursor"
)

// Host is a program that loads skills on its own, and its load rules.
type Host struct {
	// Name is the host's agent label (claude, codex, gemini, copilot,
	// cursor), Title its name for people.
	Name  string `json:"name"`
	Title string `json:"title"`
	// Profile is the validate profile of the host's name and frontmatter
	// rules (validate.HostProfile), or "" when ccski has none for it.
	Profile validate.Profile `json:"profile,omitempty"`
	// Loader says which errors under Profile keep the host from loading
	// a skill, and the largest SKILL.md it loads (validate.HostLoader):
	// a skill with another error under Profile is loaded, read as well as
	// the host can (Flawed).
	Loader validate.Loader `json:"-"`
	// Nested is true when the host loads a skill folder below another
	// folder of its skills folder (.agents/skills/group/docx/SKILL.md):
	// Codex does, Claude Code loads only <skills>/<name>/SKILL.md.
	Nested bool `json:"nested"`
	// ExplicitPolicy is true when the host obeys agents/openai.yaml's
	// policy.allow_implicit_invocation: false, leaving the skill out of
	// the model's listing (it still loads when the user names it).
	ExplicitPolicy bool `json:"explicitPolicy"`
	// Dedupes is true when the host loads one copy of a name and leaves
	// the others out (Claude Code ranks personal over project); Codex
	// lists every copy.
	Dedupes bool `json:"dedupes"`
	// home is the host's own folder in env, and binaries the commands
	// that run it (each named after the host's label, as the hosts name
	// them): either present says the host is installed.
	home     func(env providers.Env) string
	binaries []string
	// reads reports whether the host reads the skills of a root.
	reads func(root pipeline.Root) bool
}

// Hosts returns the hosts ccski models, in the order doctor reports
// them.
func Hosts() []Host {
	userFolder := func(name string) func(env providers.Env) string {
		return func(env providers.Env) string { return filepath.Join(env.UserDir, name) }
	}
	hosts := []Host{
		// What Claude Code and Codex refuse, and Claude Code's size
		// limit, are validate.HostLoader's.
		{Name: claude.HostName, Title: claude.Title, Dedupes: true,
			home: claude.Dir, binaries: []string{claude.HostName},
			reads: func(r pipeline.Root) bool { return r.Agent == claude.HostName }},
		{Name: codex.HostName, Title: codex.Title, Nested: true, ExplicitPolicy: true,
			home: codex.Dir, binaries: []string{codex.HostName},
			reads: func(r pipeline.Root) bool {
				return r.Agent == codex.HostName || slices.Contains(r.Hosts, codex.HostName)
			}},
		// Gemini CLI globs SKILL.md and */SKILL.md in each skills folder
		// (loadSkillsFromDir in its packages/core/src/skills/skillLoader.ts):
		// a nested folder is not searched.
		{Name: agents.GeminiHost, Title: agents.GeminiTitle, Dedupes: true,
			home: userFolder(".gemini"), binaries: []string{agents.GeminiHost},
			reads: func(r pipeline.Root) bool {
				return r.Agent == agents.GeminiHost || slices.Contains(r.Hosts, agents.GeminiHost)
			}},
		// Copilot CLI 1.0.102 reads its own folders, .agents/skills in the
		// project and the home folder, and the project's .claude/skills,
		// but not ~/.claude/skills (`copilot skill list`, docs/hosts.md).
		{Name: copilot.Name, Title: "GitHub Copilot", Nested: true, Dedupes: true,
			home: userFolder(".copilot"), binaries: []string{copilot.Name},
			reads: func(r pipeline.Root) bool {
				return r.Agent == copilot.Name || sharedFolder(r) ||
					claudeFolder(r) && r.Location != pipeline.LocationUser
			}},
		// Cursor reads its own folders, and .agents/skills, .claude/skills
		// and .codex/skills (see package cursor).
		{Name: cursor.Name, Title: "Cursor", Nested: true, Dedupes: true,
			home: userFolder(".cursor"), binaries: []string{cursor.Name, cursor.Name + "-agent"},
			reads: func(r pipeline.Root) bool {
				return r.Agent == cursor.Name || claudeFolder(r) || sharedFolder(r) ||
					r.Agent == codex.HostName && r.Plugin == nil && r.Kind != pipeline.KindSystem
			}},
	}
	for i := range hosts {
		if p, own := validate.HostProfile(hosts[i].Name); own {
			hosts[i].Profile = p
			hosts[i].Loader = validate.HostLoader(hosts[i].Name)
		}
	}
	return hosts
}

// claudeFolder reports whether r is a .claude/skills folder (not a
// plugin's).
func claudeFolder(r pipeline.Root) bool { return r.Provider == claude.Name && r.Plugin == nil }

// sharedFolder reports whether r is a .agents/skills folder.
func sharedFolder(r pipeline.Root) bool { return filepath.Base(filepath.Dir(r.Path)) == ".agents" }

// Reads reports whether the host reads the skills of root.
func (h Host) Reads(root pipeline.Root) bool {
	return root.Type.OrSkill() == pipeline.TypeSkill && h.reads != nil && h.reads(root)
}

// Detect says whether the host is installed in env and how that was
// seen: its folder exists ("~/.claude exists"), or one of its commands is
// on $PATH ("claude on PATH: /usr/bin/claude"). how is "" when it is
// not.
func (h Host) Detect(env providers.Env) (installed bool, how string) {
	if h.home != nil {
		if dir := h.home(env); dir != "" {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				return true, dir + " exists"
			}
		}
	}
	path := ""
	if env.Getenv != nil {
		path = env.Getenv("PATH")
	}
	for _, b := range h.binaries {
		for _, d := range filepath.SplitList(path) {
			if d == "" {
				continue
			}
			f := filepath.Join(d, b)
			if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return true, b + " on PATH: " + f
			}
		}
	}
	return false, ""
}

// ByName returns the host named name (case-insensitive), if ccski models
// it.
func ByName(name string) (Host, bool) {
	for _, h := range Hosts() {
		if strings.EqualFold(h.Name, name) {
			return h, true
		}
	}
	return Host{}, false
}
