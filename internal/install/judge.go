package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/validate"
)

// Want is where a source's skills go: into the folders of Agents (as
// Layout.Targets places them) or, when Dir is set, into that folder.
// Each skill goes only where the rules of the agents it is for accept it
// (see Installer.NoValidate).
type Want struct {
	Agents []string
	Dir    string
}

// Rejection says that the rules of a host reading an agent's folder
// reject a skill, and why; or, with Loads, that the skill breaks rules of
// the host's profile the host loads it with all the same
// (validate.Loader), and which.
type Rejection struct {
	// Agent is the --agent value the skill was not installed for ("" for
	// a --dir folder).
	Agent string `json:"agent,omitempty"`
	// Host is the host whose rules reject the skill ("" for a --dir
	// folder, judged by the spec) and Profile the validate profile of
	// those rules.
	Host    string           `json:"host,omitempty"`
	Profile validate.Profile `json:"profile"`
	// Reasons are the errors, each "code: message".
	Reasons []string `json:"reasons"`
	// Installed is set when the skill was installed for the agent all the
	// same (--no-validate).
	Installed bool `json:"installed,omitempty"`
	// Loads is set when the host loads the skill all the same: Reasons
	// are errors of its profile it does not refuse, a warning.
	Loads bool `json:"loads,omitempty"`
}

// String says who rejects the skill and why, for a person.
func (r Rejection) String() string {
	who := "the Agent Skills spec (--dir)"
	if r.Host != "" {
		who = hostTitle(r.Host)
		if _, own := validate.HostProfile(r.Host); !own {
			who += " (judged by the spec: ccski has no profile of its own for it)"
		}
	}
	if r.Loads {
		return fmt.Sprintf("%s loads it, but (validate --profile %s): %s", who, r.Profile, strings.Join(r.Reasons, "; "))
	}
	return fmt.Sprintf("%s would reject it (validate --profile %s): %s", who, r.Profile, strings.Join(r.Reasons, "; "))
}

// readers returns the hosts that read the skills folder of agent: for
// the shared folder every agent that reads it (Codex, Gemini CLI), for
// any other agent the agent itself.
func readers(agent string) []string {
	f, ok := folderOf(agent)
	if !ok || !f.Shared {
		return []string{agent}
	}
	var out []string
	for _, g := range Folders() {
		if g.ReadsShared && !g.Shared {
			out = append(out, g.Agent)
		}
	}
	return out
}

// rulesFor returns the rules a skill installed for agent must pass: those
// of the hosts reading its folder (validate.RulesOf); for a --dir folder
// (agent ""), the spec's.
func rulesFor(agent string) []validate.HostRules {
	if agent == "" {
		return []validate.HostRules{{Profile: validate.ProfileSpec}}
	}
	return validate.RulesOf(readers(agent))
}

// hostTitle names a host for people, from its install folder.
func hostTitle(host string) string {
	if f, ok := folderOf(host); ok && !f.Shared {
		return f.Title
	}
	return host
}

// judge checks the staged skill in dir against the rules of each of
// agents and returns the agents whose hosts all load it, the rejections
// of the others, and the errors of a profile whose host loads the skill
// all the same (flawed, each with Loads set).
func judge(ctx context.Context, dir string, agents []string) (accepted []string, rejected, flawed []Rejection) {
	var rules []validate.HostRules
	for _, a := range agents {
		for _, r := range rulesFor(a) {
			if !slices.Contains(rules, r) {
				rules = append(rules, r)
			}
		}
	}
	verdicts := validate.JudgeSkill(ctx, dir, rules)
	for _, a := range agents {
		ok := true
		for _, r := range rulesFor(a) {
			v := verdicts[slices.Index(rules, r)]
			if v.Rejects() {
				ok = false
				rejected = append(rejected, Rejection{Agent: a, Host: r.Host, Profile: r.Profile, Reasons: v.Reasons()})
			}
			if len(v.Flaws) > 0 {
				flawed = append(flawed, Rejection{Agent: a, Host: r.Host, Profile: r.Profile, Reasons: v.FlawReasons(),
					Loads: true})
			}
		}
		if ok {
			accepted = append(accepted, a)
		}
	}
	return accepted, rejected, flawed
}

// judgedAgents returns the agents to judge a skill for, asked for agents
// and going to targets: where the copy goes to the shared folder, every
// agent that reads it (Codex, Gemini CLI) is judged as the shared folder
// is, under its label (agents), by the rules of all its readers: they
// read the same copy.
func judgedAgents(agents []string, targets []Target) []string {
	shared := Folders()[0].Agent
	if !slices.ContainsFunc(targets, func(t Target) bool { return t.Agent == shared }) {
		return agents
	}
	var out []string
	for _, a := range agents {
		if f, ok := folderOf(a); ok && f.ReadsShared {
			a = shared
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// rejectsInstalled reports whether one of rejected is for an agent e is
// installed for (judged as judgedAgents judges it).
func rejectsInstalled(e Entry, rejected []Rejection) bool {
	installed := judgedAgents(targetAgents(e.Targets), e.Targets)
	return slices.ContainsFunc(rejected, func(r Rejection) bool { return slices.Contains(installed, r.Agent) })
}

// targetAgents returns the agents of targets, each once; a --dir target
// is "".
func targetAgents(targets []Target) []string {
	var out []string
	for _, t := range targets {
		if !slices.Contains(out, t.Agent) {
			out = append(out, t.Agent)
		}
	}
	return out
}

// rejectionError is the error of a skill no agent it is for accepts.
func rejectionError(rejected []Rejection) error {
	var parts []string
	for _, r := range rejected {
		for_ := r.Agent
		if for_ == "" {
			for_ = "--dir"
		}
		parts = append(parts, "for "+for_+": "+r.String())
	}
	return fmt.Errorf("not installed: %s; fix the skill, or use --no-validate to install it anyway",
		strings.Join(parts, "; "))
}

// prepare returns the targets of skill name (those of its lock entry
// entry, when there is one, added), made copies with Copy, after checking
// that each may be written: inside the scope, and not a folder ccski did
// not install (unless Force). Nothing is written.
func (in *Installer) prepare(name string, entry *Entry, targets []Target) ([]Target, error) {
	targets = slices.Clone(targets)
	if entry != nil {
		targets = mergeTargets(targets, entry.Targets)
	}
	if in.Copy {
		for i := range targets {
			targets[i].Link = false
		}
	}
	for _, t := range targets {
		if err := in.Layout.CheckTarget(t.Dir); err != nil {
			return targets, err
		}
	}
	for _, t := range targets {
		dest := filepath.Join(t.Dir, name)
		if exists(dest) && (entry == nil || !hasTarget(entry.Targets, t.Dir)) && !in.Force {
			return targets, fmt.Errorf("%s exists and was not installed by ccski: remove it, or use --force to replace it", dest)
		}
	}
	return targets, nil
}

// stage makes the staging folder of a skill going to targets: in the
// first target, where the copy goes (outside the targets in a dry run).
func (in *Installer) stage(targets []Target) (dir string, done func(keep bool), err error) {
	parent := targets[0].Dir
	if in.DryRun {
		parent = os.TempDir()
	} else if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, fmt.Errorf("creating %s: %w", parent, err)
	}
	return newStage(parent)
}
