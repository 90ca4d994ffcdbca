package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/skillindex"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"

	"github.com/ccski/ccski/internal/report"
)

// This file fetches the HTTP sources (KindIndex, KindArchive): the URLs
// ParseSource reads as such, and the downloads within Limits, through
// the client and token rule of package httpfetch.

// Limits bound what one download brings: the bytes downloaded, and for
// an archive (or the files of a v0.1.0 index entry) the bytes unpacked
// and the number of entries. They are the `skills` CLI's: 10 MiB, 25 MiB
// and 1,000 files.
type Limits struct {
	// MaxDownload is the most bytes one artifact may have.
	MaxDownload int64
	// MaxUnpacked is the most bytes the files of one archive may have
	// once unpacked.
	MaxUnpacked int64
	// MaxFiles is the most entries one archive may hold.
	MaxFiles int
}

// DefaultLimits are the limits of an HTTP source when config sets none.
var DefaultLimits = Limits{MaxDownload: skillindex.MaxDownload, MaxUnpacked: skillindex.MaxUnpacked,
	MaxFiles: skillindex.MaxFiles}

// withDefaults fills the limits left 0 from DefaultLimits.
func (l Limits) withDefaults() Limits {
	if l.MaxDownload <= 0 {
		l.MaxDownload = DefaultLimits.MaxDownload
	}
	if l.MaxUnpacked <= 0 {
		l.MaxUnpacked = DefaultLimits.MaxUnpacked
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultLimits.MaxFiles
	}
	return l
}

// HTTP downloads the artifacts of HTTP sources through the one client of
// package httpfetch: a request carries its own origin's token of Tokens
// (http.tokens, which only the user names), over https or over http to a
// loopback address only, looked up again after every redirect; never a
// token from a project file or a lock.
type HTTP struct {
	// Client makes the requests; nil: httpfetch's, with Timeout and
	// Tokens.
	Client *http.Client
	// Timeout bounds each download; 0 means DefaultTimeout.
	Timeout time.Duration
	// Limits bound each artifact (see Limits); 0 fields take
	// DefaultLimits.
	Limits Limits
	// Tokens are the user's tokens, by origin.
	Tokens httpfetch.Tokens
	// Progress, when not nil, receives the progress of the downloads (a
	// terminal's; report.Progress).
	Progress io.Writer
	// TempDir holds the downloaded sources while a run reads them; ""
	// is the system's temporary folder.
	TempDir string
}

// client is the client of h.
func (h *HTTP) client() *http.Client {
	if h.Client != nil {
		return h.Client
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = gitfetch.DefaultTimeout
	}
	lim := h.Limits.withDefaults()
	h.Client = httpfetch.Client(httpfetch.Options{Tokens: h.Tokens, Timeout: timeout,
		MaxBody: max(lim.MaxDownload, skillindex.MaxIndexBytes) + 1})
	return h.Client
}

// errNotFound is a 404 (or 410): the well-known index of another version
// may be there.
var errNotFound = errors.New("not found")

// download is one fetched artifact.
type download struct {
	data        []byte
	contentType string
	// url is where it came from, after redirects.
	url string
}

// digest is the artifact's sha256: digest.
func (d download) digest() string { return manifest.Digest(d.data) }

// get downloads u, at most Limits.MaxDownload bytes. p, when not nil,
// counts the artifact when it is done.
func (h *HTTP) get(ctx context.Context, u string, p *report.Progress) (download, error) {
	if err := httpfetch.CheckURL(u); err != nil {
		return download{}, err
	}
	lim := h.Limits.withDefaults()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return download{}, fmt.Errorf("fetching %s: %w", u, err)
	}
	req.Header.Set("User-Agent", "ccski")
	resp, err := h.client().Do(req)
	if err != nil {
		return download{}, fmt.Errorf("fetching %s: %w", u, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return download{}, fmt.Errorf("fetching %s: %s: %w", u, resp.Status, errNotFound)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return download{}, fmt.Errorf("fetching %s: %s: %s", u, resp.Status, httpfetch.Hint(resp.Request.URL))
	case resp.StatusCode != http.StatusOK:
		return download{}, fmt.Errorf("fetching %s: %s", u, resp.Status)
	}
	if resp.ContentLength > lim.MaxDownload {
		return download{}, tooLarge(u, resp.ContentLength, lim.MaxDownload)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, lim.MaxDownload+1))
	if err != nil {
		return download{}, fmt.Errorf("fetching %s: %w", u, err)
	}
	if int64(len(data)) > lim.MaxDownload {
		return download{}, tooLarge(u, -1, lim.MaxDownload)
	}
	p.Step(shortItem(u))
	return download{data: data, contentType: resp.Header.Get("Content-Type"), url: resp.Request.URL.String()}, nil
}

// tooLarge is the error for a download over the limit.
func tooLarge(u string, size, limit int64) error {
	has := "more"
	if size >= 0 {
		has = fmt.Sprintf("%d bytes,", size)
	}
	return fmt.Errorf("%s has %s over the download limit of %d bytes: raise install.max_download in your user config "+
		"if you trust the source", u, has, limit)
}

// shortItem is the last segment of a URL, for the progress line.
func shortItem(u string) string {
	if i := strings.LastIndexByte(strings.TrimSuffix(u, "/"), '/'); i >= 0 {
		return u[i+1:]
	}
	return u
}

// archiveExts are the URL endings of archive sources.
var archiveExts = []string{".zip", ".tar.gz", ".tgz"}

// wellKnownIndexes are the paths of the well-known skills index, newest
// version first.
var wellKnownIndexes = []string{"/.well-known/agent-skills/index.json", "/.well-known/skills/index.json"}

// parseHTTP reads an http(s) URL that names an HTTP source: a site (no
// path: its well-known index), a well-known index.json (or its folder,
// /.well-known/agent-skills or /.well-known/skills), or an archive
// (its path ends in .zip, .tar.gz or .tgz), each with an optional #path.
// ok is false for any other URL, a git repository's.
func parseHTTP(arg string) (src Source, ok bool, err error) {
	raw, frag, hasFrag := strings.Cut(arg, "#")
	u, perr := url.Parse(raw)
	if perr != nil || (!strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http")) || u.Host == "" {
		return Source{}, false, nil
	}
	lower := strings.ToLower(u.Path)
	switch {
	case u.Path == "" || u.Path == "/":
		src = Source{Kind: KindIndex, URL: strings.ToLower(u.Scheme) + "://" + u.Host}
	case hasSuffix(lower, wellKnownIndexes):
		src = Source{Kind: KindIndex, URL: raw}
	case hasSuffix(strings.TrimSuffix(lower, "/")+"/index.json", wellKnownIndexes):
		// The index's folder, as the skills CLI takes it.
		src = Source{Kind: KindIndex, URL: strings.TrimSuffix(raw, "/") + "/index.json"}
	case hasSuffix(lower, archiveExts):
		src = Source{Kind: KindArchive, URL: raw}
	default:
		return Source{}, false, nil
	}
	if err := httpfetch.CheckURL(src.URL); err != nil {
		return Source{}, true, err
	}
	if hasFrag {
		if src.Path, err = cleanSubpath(frag); err != nil {
			return Source{}, true, fmt.Errorf("source %s: %w", arg, err)
		}
	}
	return src, true, nil
}

// hasSuffix reports whether s ends in one of suffixes.
func hasSuffix(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}
