// Package web serves the skills catalogue: the page `ccski mcp --transport
// http` (and `ccski ui`) answers at GET /, a list of every skill the server
// knows, grouped by provider and plugin, with search, filters and a page per
// skill.
//
// Skill content is untrusted: the page renders SKILL.md with goldmark, raw
// HTML escaped, links limited to http(s), mailto and the skill's own files,
// images to the skill's files, and every response carries a strict
// Content-Security-Policy. The page's script and style are embedded in the
// binary; nothing is fetched from elsewhere. The caller wraps Handler in the
// same Origin, Host and token guard as the MCP endpoint.
package web

import (
	"context"
	"net/http"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// Source is what the page reads: the server's live snapshot and its search.
type Source interface {
	// Snapshot returns the snapshot served now (Visible, Drops, Security,
	// Integrity, Signatures).
	Snapshot() *pipeline.Snapshot
	// Search returns the Record.IDs of the visible skills matching query,
	// best first, with the same matching and ranking as the skills_search
	// tool (its body index), at most limit of them.
	Search(ctx context.Context, query string, limit int) ([]string, error)
}

// Facts is what ccski knows of one skill beyond the snapshot.
type Facts struct {
	// Origin is where ccski installed the skill from, as ccski.lock
	// records it; nil when ccski did not install the skill.
	Origin *Origin
	// Hosts says which hosts load the skill, and why not (doctor's answer,
	// package hostview).
	Hosts []HostLoad
	// Install is the command that installs the skill elsewhere, such as
	// "ccski install <source> --skill <name>"; "" when there is none.
	Install string
}

// Origin is the lock entry of an installed skill.
type Origin struct {
	Lock      string // the ccski.lock file that records it
	Source    string // the source as installed (URL, path, mcp server)
	Ref       string
	Commit    string
	Signer    string // provenance.Signer.String(), "" when unsigned
	Installed time.Time
}

// HostLoad says whether one host loads a skill.
type HostLoad struct {
	Host       string // "claude", "codex", ...
	Loads      bool
	Reason     string // why not, when !Loads
	Switch     string // "on", "off" or "" when the host's settings say nothing of this skill
	SwitchFile string // the settings file holding the switch
}

// FactsFunc gives the facts of one record; a nil FactsFunc means the page
// shows none.
type FactsFunc func(ctx context.Context, rec *pipeline.Record) Facts

// Options configure the page.
type Options struct {
	// Facts gives what the skill page shows beyond the snapshot (origin,
	// hosts, install command); nil shows none.
	Facts FactsFunc
	// Title heads every page; "" means "ccski skills".
	Title string
}

// Handler serves the page's routes: the catalogue at /, a skill's page at
// /skill/{id}, its files at /skill/{id}/file/{path...} and
// /skill/{id}/raw/{path...}, the list as JSON at /ui/skills.json and the
// embedded script and style under /ui/. The caller wraps it in the same
// Origin, Host and token guard as /mcp.
func Handler(src Source, o Options) http.Handler {
	if o.Title == "" {
		o.Title = "ccski skills"
	}
	// The list of a snapshot is built by the first request that reads it
	// (catalogues.of), not before: a server nobody browses spends nothing
	// on the page.
	return newServer(src, o).routes()
}
