// Package skillsext is the client side of the MCP Skills Extension
// (SEP-2640, io.modelcontextprotocol/skills), which ccski's own server
// speaks (mcp/skills.go): it lists a server's skills over streamable HTTP
// (skills/list, every page), reads each file of a skill's manifest with
// resources/read, and checks every file's size and SHA-256 digest against
// the manifest before anything is written. ccski install (a source of
// kind mcp) and the remote provider (providers/remote) both read
// upstream servers through it.
//
// A server is untrusted: every URI is checked (skill://<skill path>/...,
// segments that stay inside the skill, never .git), a skill is capped by
// the limits of package manifest (MaxFiles files, MaxBytes in all,
// MaxFileBytes a file), and a skill whose bytes differ from its manifest
// is refused whole.
package skillsext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/ccski/ccski/internal/httpfetch"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/parallel"
)

// Scheme starts every skill URI of the extension.
const Scheme = "skill://"

// skillFile ends the URI of every entry.
const skillFile = "SKILL.md"

// maxPages bounds the pages of one listing: a server that keeps giving
// cursors is cut off.
const maxPages = 10000

// MaxResponse bounds each response body from a server (package
// httpfetch cuts a longer one off): a resources/read of the largest file
// the manifest allows, base64-encoded, with room for the JSON around it
// and for a page of skills/list.
const MaxResponse = 4*manifest.MaxFileBytes/3 + 4<<20

// Options are how a Session reaches its server.
type Options struct {
	// Tokens are the user's tokens (http.tokens): a request carries
	// its own origin's, over https or to a loopback address only (see
	// package httpfetch).
	Tokens httpfetch.Tokens
	// Timeout bounds each request (connecting, a page of skills/list, a
	// resources/read); 0 is DefaultTimeout.
	Timeout time.Duration
	// Transport, when not nil, carries the HTTP requests below the
	// token and body rules of package httpfetch (tests).
	Transport http.RoundTripper
}

// DefaultTimeout bounds a request when Options.Timeout is 0.
const DefaultTimeout = time.Minute

// Skill is one entry of skills/list.
type Skill struct {
	// URI is the entry's uri: skill://<Path>/SKILL.md.
	URI string
	// Path is the skill path, '/'-separated and unescaped; its last
	// segment is the skill's name.
	Path string
	// Files are the entry's resources, each with its path inside the
	// skill folder ('/'-separated), size and digest, sorted by path.
	Files []manifest.File
	// uris are the resources' URIs, by path.
	uris map[string]string
}

// Name is the last segment of the skill path.
func (s Skill) Name() string { return s.Path[strings.LastIndexByte(s.Path, '/')+1:] }

// Listing is a server's skills, in the server's order.
type Listing struct {
	Skills []Skill
	// TTL is the smallest ttlMs of the listing's pages: how long the
	// server says the listing stays fresh (0: it did not say).
	TTL time.Duration
}

// Session is a connection to one server.
type Session struct {
	url     string
	cs      *sdk.ClientSession
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	// seen records what the transport saw that the SDK's errors do not
	// say: a body cut off, a refusal for want of a token.
	seen *transportSeen
}

// transportSeen is what a Session's transport saw.
type transportSeen struct {
	// cut is set once a response body went over MaxResponse: the SDK
	// reports such a request as ended without a response.
	cut atomic.Bool
	// denied is the URL of the last answer 401 or 403.
	denied atomic.Pointer[url.URL]
}

// watch records in seen what the responses of next say.
type watch struct {
	next http.RoundTripper
	seen *transportSeen
}

func (w watch) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	if errors.Is(err, httpfetch.ErrTooLarge) {
		w.seen.cut.Store(true)
	}
	if err != nil {
		return resp, err
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		w.seen.denied.Store(r.URL)
	}
	resp.Body = &cutBody{ReadCloser: resp.Body, seen: w.seen}
	return resp, nil
}

type cutBody struct {
	io.ReadCloser
	seen *transportSeen
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if errors.Is(err, httpfetch.ErrTooLarge) {
		b.seen.cut.Store(true)
	}
	return n, err
}

// failed wraps err, the error of a request to the server, with what the
// transport saw: a response cut off, or a 401 or 403 (and which token to
// set).
func (s *transportSeen) failed(err error) error {
	if s.cut.Load() {
		return fmt.Errorf("%w (%w of %d bytes: refused)", err, httpfetch.ErrTooLarge, MaxResponse)
	}
	if u := s.denied.Load(); u != nil {
		return fmt.Errorf("%w (the server answered 401 or 403: %s)", err, httpfetch.Hint(u))
	}
	return err
}

type listParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listResult struct {
	sdk.ResultBase
	TTLMs      int64      `json:"ttlMs"`
	Skills     []rawEntry `json:"skills"`
	NextCursor string     `json:"nextCursor,omitempty"`
}

type rawEntry struct {
	URI       string `json:"uri"`
	Resources []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"resources"`
}

// CheckURL accepts the URL of an MCP server ccski reads: the URLs
// httpfetch.CheckURL accepts (http or https, with a host, no user,
// password or fragment).
func CheckURL(raw string) error {
	if err := httpfetch.CheckURL(raw); err != nil {
		return fmt.Errorf("MCP server: %w", err)
	}
	return nil
}

// Dial connects to the MCP server at url (streamable HTTP) and
// initializes a session, which lasts until Close or until ctx ends.
func Dial(ctx context.Context, url string, o Options) (*Session, error) {
	if err := CheckURL(url); err != nil {
		return nil, err
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// Each request is bounded by its context (a stream has no end
	// to wait for), each body by MaxResponse.
	hc := httpfetch.Client(httpfetch.Options{Tokens: o.Tokens, MaxBody: MaxResponse, Base: o.Transport})
	seen := &transportSeen{}
	hc.Transport = watch{next: hc.Transport, seen: seen}
	c := sdk.NewClient(&sdk.Implementation{Name: "ccski", Version: "1"}, nil)
	if err := sdk.AddSendingCustomMethod[*listParams, *listResult](c, "skills/list"); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(timeout, cancel) // connecting takes at most timeout
	cs, err := c.Connect(sctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1,
		DisableStandaloneSSE: true}, nil)
	if !timer.Stop() && err == nil {
		err = context.DeadlineExceeded
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("MCP server %s: %w", url, seen.failed(err))
	}
	return &Session{url: url, cs: cs, ctx: sctx, cancel: cancel, timeout: timeout, seen: seen}, nil
}

// Close ends the session.
func (s *Session) Close() error {
	err := s.cs.Close()
	s.cancel()
	return err
}

// List returns every skill of the server: skills/list, page after page.
// An entry whose URIs or manifest break the extension's rules fails the
// listing, naming it.
func (s *Session) List() (*Listing, error) {
	out := &Listing{}
	seen := map[string]bool{}
	p := &listParams{}
	for page := 0; ; page++ {
		if page == maxPages {
			return nil, fmt.Errorf("MCP server %s: skills/list gave %d pages and still a cursor", s.url, maxPages)
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
		res, err := sdk.CallCustomMethod[*listParams, *listResult](ctx, s.cs, "skills/list", p)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("MCP server %s: skills/list: %w", s.url, s.seen.failed(err))
		}
		if ttl := time.Duration(res.TTLMs) * time.Millisecond; res.TTLMs > 0 && (out.TTL == 0 || ttl < out.TTL) {
			out.TTL = ttl
		}
		for _, e := range res.Skills {
			sk, err := entry(e)
			if err != nil {
				return nil, fmt.Errorf("MCP server %s: skills/list: %w", s.url, err)
			}
			if seen[strings.ToLower(sk.Path)] {
				return nil, fmt.Errorf("MCP server %s: skills/list names skill %s twice", s.url, sk.URI)
			}
			seen[strings.ToLower(sk.Path)] = true
			out.Skills = append(out.Skills, sk)
		}
		if res.NextCursor == "" {
			return out, nil
		}
		if res.NextCursor == p.Cursor {
			return nil, fmt.Errorf("MCP server %s: skills/list gave the same cursor twice", s.url)
		}
		p = &listParams{Cursor: res.NextCursor}
	}
}

// entry checks one raw entry and makes it a Skill.
func entry(e rawEntry) (Skill, error) {
	rest, ok := strings.CutPrefix(e.URI, Scheme)
	path, ok2 := strings.CutSuffix(rest, "/"+skillFile)
	if !ok || !ok2 || path == "" {
		return Skill{}, fmt.Errorf("entry uri %q is not skill://<skill path>/SKILL.md", e.URI)
	}
	segs, err := segments(path)
	if err != nil {
		return Skill{}, fmt.Errorf("entry uri %q: %w", e.URI, err)
	}
	// A hidden folder in the path (.claude-plugin, .claude) would make
	// the tree of skills a reader writes look like a marketplace or a
	// host's folder.
	for _, seg := range segs {
		if strings.HasPrefix(seg, ".") {
			return Skill{}, fmt.Errorf("entry uri %q: the skill path has a hidden segment %q", e.URI, seg)
		}
	}
	sk := Skill{URI: e.URI, Path: strings.Join(segs, "/"), uris: map[string]string{}}
	prefix := Scheme + path + "/"
	var total int64
	for _, r := range e.Resources {
		relURI, ok := strings.CutPrefix(r.URI, prefix)
		if !ok {
			return Skill{}, fmt.Errorf("%s: resource %q is not inside the skill (%s...)", e.URI, r.URI, prefix)
		}
		rs, err := segments(relURI)
		if err != nil {
			return Skill{}, fmt.Errorf("%s: resource %q: %w", e.URI, r.URI, err)
		}
		rel := strings.Join(rs, "/")
		if _, dup := sk.uris[rel]; dup {
			return Skill{}, fmt.Errorf("%s: resource %s is listed twice", e.URI, rel)
		}
		if !manifest.DigestForm.MatchString(r.Digest) {
			return Skill{}, fmt.Errorf("%s: resource %s has digest %q, not sha256:<64 hex digits>", e.URI, rel, r.Digest)
		}
		if r.Size < 0 || r.Size > manifest.MaxFileBytes {
			return Skill{}, fmt.Errorf("%s: resource %s has size %d (at most %d bytes a file)", e.URI, rel, r.Size, manifest.MaxFileBytes)
		}
		total += r.Size
		sk.uris[rel] = r.URI
		sk.Files = append(sk.Files, manifest.File{Path: rel, Size: r.Size, Digest: r.Digest})
	}
	switch {
	case len(sk.Files) > manifest.MaxFiles:
		return Skill{}, fmt.Errorf("%s: %d files, more than %d", e.URI, len(sk.Files), manifest.MaxFiles)
	case total > manifest.MaxBytes:
		return Skill{}, fmt.Errorf("%s: %d bytes, more than %d", e.URI, total, manifest.MaxBytes)
	case sk.uris[skillFile] == "":
		return Skill{}, fmt.Errorf("%s: its resources do not list SKILL.md", e.URI)
	}
	slices.SortFunc(sk.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) })
	return sk, nil
}

// segments splits a '/'-separated URI path into unescaped segments, each
// a plain file name: not empty, not . or .., no separator or control
// character, and never .git.
func segments(p string) ([]string, error) {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		seg, err := url.PathUnescape(part)
		if err != nil {
			return nil, fmt.Errorf("segment %q: %v", part, err)
		}
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, `/\`) ||
			strings.ContainsFunc(seg, unicode.IsControl) || !filepath.IsLocal(seg) {
			return nil, fmt.Errorf("segment %q is no plain file name", part)
		}
		if strings.EqualFold(seg, ".git") {
			return nil, errors.New("a path inside .git")
		}
		parts[i] = seg
	}
	return parts, nil
}

// Read reads the files of sk that only accepts (every file when only is
// nil) with resources/read and checks each one's size and digest against
// the manifest, calling put with the bytes of each file only once all of
// them are checked: a skill whose bytes differ from its entry yields
// nothing.
func (s *Session) Read(sk Skill, only func(path string) bool, put func(f manifest.File, data []byte) error) error {
	var files []manifest.File
	var data [][]byte
	for _, f := range sk.Files {
		if only != nil && !only(f.Path) {
			continue
		}
		b, err := s.readFile(sk, f)
		if err != nil {
			return err
		}
		files, data = append(files, f), append(data, b)
	}
	for i, f := range files {
		if err := put(f, data[i]); err != nil {
			return err
		}
	}
	return nil
}

// readFile reads one file of sk and checks it.
func (s *Session) readFile(sk Skill, f manifest.File) ([]byte, error) {
	uri := sk.uris[f.Path]
	ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
	defer cancel()
	res, err := s.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s: resources/read %s: %w", s.url, uri, s.seen.failed(err))
	}
	if len(res.Contents) != 1 || res.Contents[0] == nil {
		return nil, fmt.Errorf("MCP server %s: resources/read %s gave %d contents, want 1", s.url, uri, len(res.Contents))
	}
	c := res.Contents[0]
	b := c.Blob
	if c.Text != "" || b == nil {
		b = []byte(c.Text)
	}
	if int64(len(b)) != f.Size {
		return nil, fmt.Errorf("MCP server %s: %s is %d bytes, but skills/list says %d: refused, nothing of skill %s is written",
			s.url, uri, len(b), f.Size, sk.Path)
	}
	if got := manifest.Digest(b); got != f.Digest {
		return nil, fmt.Errorf("MCP server %s: %s has digest %s, but skills/list says %s: refused, nothing of skill %s is written",
			s.url, uri, got, f.Digest, sk.Path)
	}
	return b, nil
}

// WriteSkill reads sk (see Read) and writes its files below dir, at
// dir/<skill path>/<file>.
func (s *Session) WriteSkill(sk Skill, dir string) error { return s.WriteFiles(sk, dir, nil) }

// WriteFiles reads the files of sk that only accepts (see Read) and
// writes them at dir/<skill path>/<file>, none of which may exist yet,
// with manifest.WriteNew (the extension's manifest marks no file
// executable: manifest.Mode gives 0o755 below scripts/, else 0o644).
func (s *Session) WriteFiles(sk Skill, dir string, only func(path string) bool) error {
	top := filepath.Join(dir, filepath.FromSlash(sk.Path))
	return s.Read(sk, only, func(f manifest.File, data []byte) error {
		_, err := manifest.WriteNew(filepath.Join(top, filepath.FromSlash(f.Path)), f.Path, false, bytes.NewReader(data))
		return err
	})
}

// Fetchers is how many skills WriteAll reads at a time over one session.
const Fetchers = 8

// WriteAll writes the files of every skill of skills that only accepts
// (see WriteFiles), Fetchers skills at a time, and returns the first
// error: a skill refused refuses the lot.
func (s *Session) WriteAll(skills []Skill, dir string, only func(path string) bool) error {
	errs := make([]error, len(skills))
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	parallel.Each(ctx, len(skills), Fetchers, func(i int) {
		if errs[i] = s.WriteFiles(skills[i], dir, only); errs[i] != nil {
			cancel()
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err() // s.ctx ended: not every skill was written
}

// Dir is the folder of sk below dir, as WriteFiles writes it.
func (sk Skill) Dir(dir string) string { return filepath.Join(dir, filepath.FromSlash(sk.Path)) }
