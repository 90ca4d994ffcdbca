package install

import (
	"path/filepath"
	"time"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
)

// Update availability of an installed skill, as Inspect can tell it
// offline.
const (
	// UpdateAvailable: the source, as this machine holds it, differs from
	// the lock.
	UpdateAvailable = "available"
	// UpdateNone: the source, as this machine holds it, is what the lock
	// records.
	UpdateNone = "none"
	// UpdateUnknown: nothing on this machine tells (a git ref never
	// fetched here, a source folder gone); ccski update --check asks the
	// source.
	UpdateUnknown = "unknown"
)

// Inspection is what ccski installed says of one lock entry.
type Inspection struct {
	Skill  string `json:"skill"`
	Scope  Scope  `json:"scope"`
	Source string `json:"source"`
	// Ref is the branch or tag asked for ("" for the default branch, or
	// not a git source); Commit the locked commit.
	Ref    string `json:"ref,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Agents are the agents the skill is installed for ("" stands for a
	// --dir folder); Paths the installed copy and its links.
	Agents []string `json:"agents"`
	Paths  []string `json:"paths"`
	// Missing is true when a copy or link is gone (ccski install puts it
	// back).
	Missing bool `json:"missing,omitempty"`
	// Edited are the local edits: files on disk that differ from the
	// lock.
	Edited *manifest.Changes `json:"edited,omitempty"`
	// Update is UpdateAvailable, UpdateNone or UpdateUnknown; Latest is
	// the newer commit when known, and UpdateNote says what the answer
	// rests on.
	Update     string `json:"update"`
	Latest     string `json:"latest,omitempty"`
	UpdateNote string `json:"updateNote,omitempty"`
	// Signer is the signer the lock records (verified when the skill
	// was installed); nil for an unsigned skill.
	Signer *provenance.Signer `json:"signer,omitempty"`
}

// Inspect says what is installed for e and whether an update is
// available, without the network: a git source is compared with the ref
// as the git cache last fetched it; a folder or a marketplace Claude Code
// cloned, with the skill's files there now.
func (in *Installer) Inspect(e Entry) Inspection {
	r := Inspection{Skill: e.Name, Scope: in.Layout.Scope, Source: e.Source.String(), Ref: e.Source.Ref,
		Commit: e.Commit, Agents: []string{}, Paths: paths(e.Name, e.Targets), Update: UpdateUnknown,
		Signer: e.Signer}
	for _, t := range e.Targets {
		r.Agents = append(r.Agents, t.Agent)
	}
	state := diskState(e)
	r.Missing, r.Edited = state.missing, state.modified
	switch e.Source.Kind {
	case KindGit:
		if gitfetch.IsCommit(e.Source.Ref) {
			r.Update, r.UpdateNote = UpdateNone, "pinned to a commit"
			break
		}
		if in.Git == nil {
			break
		}
		latest, at, ok := in.Git.Cached(in.Ctx, e.Source.URL, e.Source.Ref)
		if !ok {
			r.UpdateNote = "its ref was never fetched on this machine"
			break
		}
		r.UpdateNote = "as of the last fetch, " + at.UTC().Format(time.DateTime) + " UTC"
		r.Update = UpdateNone
		if latest != e.Commit {
			r.Update, r.Latest = UpdateAvailable, latest
		}
	case KindIndex, KindArchive:
		r.UpdateNote = "an HTTP source is not fetched to look: `ccski update " + e.Name + "` fetches it and shows what changes"
	case KindMCP:
		r.UpdateNote = "an MCP server is read only by `ccski update`"
	default:
		root, _, err := in.Materialize(e.Source, e.Source.Ref)
		if err != nil {
			r.UpdateNote = err.Error()
			break
		}
		m, err := manifest.NewCache().Build(filepath.Join(root, filepath.FromSlash(e.Path)))
		if err != nil {
			r.UpdateNote = "the skill's folder in the source cannot be read: " + err.Error()
			break
		}
		r.Update = UpdateNone
		if ch := manifest.Diff(e.Files, m.Files); !ch.Empty() {
			r.Update, r.UpdateNote = UpdateAvailable, "the source's files differ: "+ch.String()
		}
	}
	return r
}
