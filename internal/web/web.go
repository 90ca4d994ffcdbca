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
	"net"
	"net/http"
	"net/url"
	"strings"
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
	// Public says where a reader on another machine reaches the server,
	// for the command that installs a skill from it (Facts.Install).
	Public Public
}

// Public is where readers reach the server. A request whose Host is the
// host of one of Origins is told to install from that origin; one whose
// Host is a loopback name, on a loopback connection, without the headers
// a proxy adds (Forwarded, X-Forwarded-For, X-Forwarded-Host, X-Real-IP),
// comes from the server's machine: with Local it is given the skill's
// folder, else the server at that loopback address; any other is given
// no command that needs the server's address, since its Host is only
// what the client sent (behind a proxy, an internal name, plain HTTP
// where the reader used HTTPS).
type Public struct {
	// Local is set when the page is for the server machine's own browser
	// (ccski ui): its readers on loopback are given paths of this
	// machine.
	Local bool
	// Origins are the origins (scheme://host[:port]) readers reach the
	// server at: mcp.allowed_origins.
	Origins []string
	// MCP is the path of the server's streamable HTTP endpoint ("/mcp"),
	// which `ccski install mcp+URL#PATH` reads; "" when there is none
	// (the sse transport), and skills are installed from the server's
	// well-known index instead.
	MCP string
}

// reader is where the request of a page comes from, as the FactsFunc
// sees it in its context (readerOf).
type reader struct {
	local bool   // the reader is on the server's machine, and the page is for it (Public.Local)
	base  string // the server's origin as the reader reaches it, "" when not known
	mcp   string // Public.MCP
}

type readerKey struct{}

// readerOf returns the reader of a page's request; ok is false outside
// a request of the page (a FactsFunc called directly), which is taken as
// a reader on the server's machine.
func readerOf(ctx context.Context) (reader, bool) {
	r, ok := ctx.Value(readerKey{}).(reader)
	return r, ok
}

// readerFor says where r comes from by its Host, under p.
func (p Public) readerFor(r *http.Request) reader {
	rd := reader{mcp: p.MCP}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	for _, o := range p.Origins {
		u, err := url.Parse(strings.TrimRight(o, "/"))
		if err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.Path == "" &&
			strings.EqualFold(u.Host, r.Host) {
			rd.base = u.Scheme + "://" + strings.ToLower(u.Host)
			return rd
		}
	}
	if loopbackName(strings.Trim(host, "[]")) && onLoopback(r) {
		rd.local = p.Local
		rd.base = "http://" + r.Host
		if r.TLS != nil {
			rd.base = "https://" + r.Host
		}
	}
	return rd
}

// loopbackName reports whether host is localhost or a loopback address.
func loopbackName(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || ip != nil && ip.IsLoopback()
}

// onLoopback reports whether r came over a loopback connection (when the
// server says which) and not through a proxy that says it forwarded it.
func onLoopback(r *http.Request) bool {
	for _, h := range [...]string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Real-Ip"} {
		if r.Header.Get(h) != "" {
			return false
		}
	}
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return true
	}
	host, _, err := net.SplitHostPort(local.String())
	return err == nil && loopbackName(strings.Trim(host, "[]"))
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
	h := newServer(src, o).routes()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), readerKey{}, o.Public.readerFor(r))))
	})
}
