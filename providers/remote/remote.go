// Package remote plans the skills of upstream MCP servers that speak the
// Skills Extension (SEP-2640), listed under providers.remote.servers, so
// that ccski mcp (and list, info, sources) serves them beside the local
// ones.
//
// Each server's skills are fetched with package skillsext (skills/list,
// every page, then each file through resources/read, checked against its
// digest and size) into ccski's user cache folder, outside every folder a
// host or a provider discovers skills in, as the extension requires:
// <cache>/remote/<server key>/<generation>/<skill path>/. A copy is
// fresh for the server's ttlMs (at most maxTTL); a plan after that fetches again. When the
// server cannot be reached or its answer is refused, the last good copy
// keeps being planned and a warning (remote-unreachable) says since when;
// each plan also says when the copy it serves was fetched
// (remote-fetched), which ccski sources shows.
//
// Only the user and managed configs may list servers (trust "user"): a
// project's ccski.yaml must not make ccski reach the network. A server's
// token is its origin's entry of http.tokens (providers.Env.Tokens), as
// for every request ccski makes over HTTP.
package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/httpfetch"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// Name is the provider's name, its agent label and the first segment of
// its skills' paths.
const Name = "remote"

// The codes of the provider's diagnostics.
const (
	CodeFetched     = "remote-fetched"
	CodeUnreachable = "remote-unreachable"
)

// fetchTimeout bounds each request of a fetch of a server's skills.
const fetchTimeout = 30 * time.Second

// retryAfter is the least time between a failed fetch and the next try.
const retryAfter = 30 * time.Second

// maxTTL is the longest a copy stays fresh, whatever ttlMs its server
// lists: a server cannot pin its copy for years.
const maxTTL = 24 * time.Hour

// ttlOf is the time a copy fetched with ttlMs ms stays fresh, at most
// maxTTL (a negative ttlMs, none).
func ttlOf(ms int64) time.Duration {
	return time.Duration(min(max(ms, 0), maxTTL.Milliseconds())) * time.Millisecond
}

// Options are the keys under providers.remote in ccski.yaml.
type Options struct {
	// Servers are the upstream servers' streamable HTTP endpoints.
	Servers []Server `koanf:"servers" trust:"user" doc:"Streamable HTTP endpoints of upstream MCP servers that speak the Skills Extension (SEP-2640), such as https://skills.example.com/mcp: their skills are fetched into ccski's cache, checked against their digests, and served beside the local ones. Only the user and managed configs may set it, so that a project cannot make ccski reach the network."`
}

// Server is an entry of the servers option: an http:// or https:// URL.
type Server string

// Check returns what is wrong with value as a server URL, or nil.
func (Server) Check(value string) error { return skillsext.CheckURL(value) }

// Entry describes the provider to the registry (package providers/all).
func Entry() providers.Entry {
	return providers.Entry{
		Name:    Name,
		Doc:     "The skills of upstream MCP servers (SEP-2640), fetched into ccski's cache and served beside the local ones.",
		Options: func() any { return defaultOptions() },
		Labels:  []providers.Label{{Name: Name, Shared: true}},
		Kinds:   []pipeline.Kind{pipeline.KindRemote},
		New:     New,
	}
}

func defaultOptions() *Options { return &Options{Servers: []Server{}} }

// Remote is the provider of upstream servers' skills.
type Remote struct {
	servers []string
	// cacheDir, when set, replaces <user cache>/remote (tests).
	cacheDir string
	// now is the clock (tests).
	now func() time.Time
	mu  sync.Mutex
}

// New builds the provider from its options.
var New = providers.Typed(Name, defaultOptions, func(o *Options) (providers.Provider, error) {
	r := &Remote{now: time.Now}
	for _, s := range o.Servers {
		if err := skillsext.CheckURL(string(s)); err != nil {
			return nil, fmt.Errorf("providers.remote.servers: %w", err)
		}
		if !slices.Contains(r.servers, string(s)) {
			r.servers = append(r.servers, string(s))
		}
	}
	return r, nil
})

// Name returns "remote".
func (r *Remote) Name() string { return Name }

// Servers returns the configured servers, in order.
func (r *Remote) Servers() []string { return slices.Clone(r.servers) }

// state is what the cache folder of one server records of its last good
// fetch: state.json.
type state struct {
	URL     string    `json:"url"`
	Fetched time.Time `json:"fetched"`
	TTLMs   int64     `json:"ttlMs"`
	// Gen is the folder, beside state.json, holding the copy.
	Gen string `json:"gen"`
	// Skills are the skill paths of the copy.
	Skills []string `json:"skills"`
	// Failed and Error say when the last fetch after Fetched failed, and
	// why.
	Failed time.Time `json:"failed,omitzero"`
	Error  string    `json:"error,omitempty"`
}

// Plan fetches each server whose copy is not fresh and plans one root per
// server holding a good copy. A server that fails keeps its last good
// copy, with a warning.
func (r *Remote) Plan(ctx context.Context, env providers.Env) (providers.Plan, error) {
	var plan providers.Plan
	if len(r.servers) == 0 {
		return plan, nil
	}
	base := r.cacheDir
	if base == "" {
		dir := userdirs.CacheDir(env.UserDir)
		if dir == "" {
			return plan, errors.New("remote: ccski's user cache folder is not known (set HOME or XDG_CACHE_HOME): upstream servers' skills have nowhere to go")
		}
		base = filepath.Join(dir, Name)
	}
	tokens := httpfetch.Tokens(env.Tokens)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, server := range r.servers {
		dir := filepath.Join(base, key(server))
		st, err := r.refresh(ctx, server, dir, tokens)
		if st == nil {
			plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
				Code: CodeUnreachable, Provider: Name, Path: server,
				Message: fmt.Sprintf("no skills from %s: it could not be read and no copy was ever fetched: %v", server, err)})
			continue
		}
		at := st.Fetched.UTC().Format(time.DateTime) + " UTC"
		if err != nil {
			plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityWarning,
				Code: CodeUnreachable, Provider: Name, Path: server,
				Message: fmt.Sprintf("%s could not be read (%v); serving its last good copy, fetched at %s", server, err, at)})
		} else {
			plan.Diagnostics = append(plan.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityInfo,
				Code: CodeFetched, Provider: Name, Path: server,
				Message: fmt.Sprintf("%d skills from %s, fetched at %s, fresh for %s", len(st.Skills), server, at,
					ttlOf(st.TTLMs))})
		}
		root := pipeline.Root{Path: filepath.Join(dir, st.Gen), Agent: Name, Provider: Name,
			Location: pipeline.LocationCustom, Kind: pipeline.KindRemote, Skills: []string{}}
		for _, p := range st.Skills {
			root.Skills = append(root.Skills, filepath.FromSlash(p))
		}
		plan.Roots = append(plan.Roots, root)
	}
	return plan, nil
}

// key names a server's cache folder: a hash of its URL.
func key(server string) string {
	sum := sha256.Sum256([]byte(server))
	return hex.EncodeToString(sum[:8])
}

// refresh returns the state of server's copy in dir, fetching a new copy
// when the last one is older than its TTL. With an error, the state is
// the last good copy (nil when there is none).
func (r *Remote) refresh(ctx context.Context, server, dir string, tokens httpfetch.Tokens) (*state, error) {
	release, err := safefile.LockFile(filepath.Join(dir, ".lock"), 0o600, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	old := readState(dir, server)
	now := r.now()
	if old != nil {
		ttl := ttlOf(old.TTLMs)
		if now.Before(old.Fetched.Add(ttl)) {
			return old, nil
		}
		// After a failure, the next try waits for the TTL too, and at
		// least retryAfter: a server that does not answer would
		// otherwise hold up every rescan.
		if old.Failed.After(old.Fetched) && now.Before(old.Failed.Add(max(ttl, retryAfter))) {
			return old, errors.New(old.Error)
		}
	}
	st, err := fetch(ctx, server, dir, tokens, now)
	if err != nil {
		if old != nil {
			old.Failed, old.Error = now, err.Error()
			writeState(dir, old)
		}
		return old, err
	}
	// Keep the previous copy one more round: another ccski process may
	// have planned it a moment ago.
	keep := map[string]bool{st.Gen: true} // only gen-* folders are removed
	if old != nil {
		keep[old.Gen] = true
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if !keep[e.Name()] && strings.HasPrefix(e.Name(), "gen-") {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
	}
	return st, nil
}

// fetch reads every skill of server into a new generation folder of dir
// and records it in state.json.
func fetch(ctx context.Context, server, dir string, tokens httpfetch.Tokens, now time.Time) (*state, error) {
	s, err := skillsext.Dial(ctx, server, skillsext.Options{Tokens: tokens, Timeout: fetchTimeout})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	l, err := s.List()
	if err != nil {
		return nil, err
	}
	gen, err := os.MkdirTemp(dir, "gen-")
	if err != nil {
		return nil, err
	}
	st := &state{URL: server, Fetched: now.UTC(), TTLMs: ttlOf(l.TTL.Milliseconds()).Milliseconds(), Gen: filepath.Base(gen), Skills: []string{}}
	if err := s.WriteAll(l.Skills, gen, nil); err != nil {
		os.RemoveAll(gen)
		return nil, err
	}
	for _, sk := range l.Skills {
		st.Skills = append(st.Skills, sk.Path)
	}
	if err := writeState(dir, st); err != nil {
		os.RemoveAll(gen)
		return nil, err
	}
	return st, nil
}

// readState reads dir's state.json; nil when there is none, it is not
// server's, or its copy is gone.
func readState(dir, server string) *state {
	data, err := safefile.Read(filepath.Join(dir, "state.json"), 1<<20)
	if err != nil {
		return nil
	}
	var st state
	if json.Unmarshal(data, &st) != nil || st.URL != server || !strings.HasPrefix(st.Gen, "gen-") ||
		strings.ContainsAny(st.Gen, `/\`) {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(dir, st.Gen)); err != nil || !fi.IsDir() {
		return nil
	}
	// The file is the user's own (0o600), but what it names is served:
	// a skill path stays inside the copy.
	for _, p := range st.Skills {
		if strings.Contains(p, `\`) || !filepath.IsLocal(filepath.FromSlash(p)) {
			return nil
		}
	}
	return &st
}

// writeState writes dir's state.json atomically.
func writeState(dir string, st *state) error {
	return safefile.WriteJSON(filepath.Join(dir, "state.json"), st, 0o600)
}

var _ providers.Provider = (*Remote)(nil)
