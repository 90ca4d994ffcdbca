package install

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// Scope is where skills are installed: for the user or for a project.
type Scope string

// The scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// Folders are the folders install can put skills in, one per agent, the
// shared one first (providers/all.InstallFolders).
func Folders() []providers.InstallFolder { return all.InstallFolders() }

// Agents are the values of --agent besides all, in documentation order:
// the shared folder's label first.
func Agents() []string {
	var out []string
	for _, f := range Folders() {
		out = append(out, f.Agent)
	}
	return out
}

// folderOf returns the install folder of agent.
func folderOf(agent string) (providers.InstallFolder, bool) {
	for _, f := range Folders() {
		if f.Agent == agent {
			return f, true
		}
	}
	return providers.InstallFolder{}, false
}

// Layout is where one scope's skills and lock live.
type Layout struct {
	Scope Scope
	// Base is the folder the lock's relative paths start from: the
	// project root, or the user folder for the user scope.
	Base string
	// Env locates the user folder and the agents' folders (Claude Code's
	// honours $CLAUDE_CONFIG_DIR).
	Env providers.Env
	// LockFile is the scope's ccski.lock.
	LockFile string
	// Journal is the file of the scope's journal (see JournalFile), in
	// ccski's user state folder; "" where no change is made (a dry run,
	// reading the lock).
	Journal string
	// RunLock is the file whose lock a run holds (see RunLockFile), in
	// ccski's user state folder; "" where no change is made.
	RunLock string
}

// Home is the user folder.
func (l Layout) Home() string { return l.Env.UserDir }

// Folder returns the skills folder of agent in the layout's scope.
func (l Layout) Folder(agent string) string {
	f, ok := folderOf(agent)
	if !ok {
		f = Folders()[0]
	}
	return f.Dir(l.Env, string(l.Scope), l.Base)
}

// Target is one place a skill is installed: <Dir>/<name>.
type Target struct {
	// Agent is the agent the target is for; "" for a --dir folder.
	Agent string `json:"agent,omitempty"`
	// Dir is the skills folder (in the lock, relative to its base when
	// it lies below it).
	Dir string `json:"dir"`
	// Link is true for a symlink to the first target, which holds the
	// copy; false for a copy.
	Link bool `json:"link,omitempty"`
}

// ParseAgents reads --agent values (comma-separated, repeatable): the
// names of Agents or all. None means the default: the folders marked
// Default (the shared folder, and Claude Code's, which does not read it).
func ParseAgents(values []string) ([]string, error) {
	var out []string
	agents := Agents()
	for _, v := range values {
		for _, a := range strings.Split(v, ",") {
			a = strings.ToLower(strings.TrimSpace(a))
			switch {
			case a == "":
			case a == "all":
				out = append(out, agents...)
			case slices.Contains(agents, a):
				out = append(out, a)
			default:
				return nil, fmt.Errorf("unknown agent %q: use %s or all%s", a, strings.Join(agents, ", "),
					suggest.DidYouMean(a, append(slices.Clone(agents), "all")))
			}
		}
	}
	if len(out) == 0 {
		for _, f := range Folders() {
			if f.Default {
				out = append(out, f.Agent)
			}
		}
	}
	var uniq []string
	for _, a := range out {
		if !slices.Contains(uniq, a) {
			uniq = append(uniq, a)
		}
	}
	return uniq, nil
}

// Targets returns the folders a skill is installed in for agents, the
// copy first: the shared folder (.agents/skills) when it is one of the
// agents' own folders (agents, codex) or several agents are asked for and
// one of them reads it; then a link in the own folder of each agent that
// does not read it (Claude Code, Cursor). A single agent that does not
// need the shared folder gets its own folder. dir, when set, replaces all
// of this with one folder.
func (l Layout) Targets(agents []string, dir string) []Target {
	if dir != "" {
		return []Target{{Dir: dir}}
	}
	shared := Folders()[0]
	sharedDir := shared.Dir(l.Env, string(l.Scope), l.Base)
	var folders []providers.InstallFolder
	useShared, anyReads := false, false
	for _, a := range agents {
		f, ok := folderOf(a)
		if !ok {
			continue
		}
		folders = append(folders, f)
		useShared = useShared || f.Dir(l.Env, string(l.Scope), l.Base) == sharedDir
		anyReads = anyReads || f.ReadsShared
	}
	useShared = useShared || len(folders) > 1 && anyReads
	var out []Target
	add := func(t Target) {
		for _, o := range out {
			if o.Dir == t.Dir {
				return
			}
		}
		t.Link = len(out) > 0
		out = append(out, t)
	}
	if useShared {
		add(Target{Agent: shared.Agent, Dir: sharedDir})
	}
	for _, f := range folders {
		if useShared && f.ReadsShared {
			continue
		}
		add(Target{Agent: f.Agent, Dir: f.Dir(l.Env, string(l.Scope), l.Base)})
	}
	return out
}

// LockName is the name of the lock file.
const LockName = "ccski.lock"

// exists reports whether path exists (without following a final symlink).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
