package provenance

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/tuf"
	"github.com/theupdateframework/go-tuf/v2/metadata/fetcher"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// DefaultTUFMirror is the Sigstore public-good TUF repository `ccski
// trust-root update` refreshes the trusted root from.
const DefaultTUFMirror = tuf.DefaultMirror

// tufTarget is the TUF target holding the trusted root.
const tufTarget = "trusted_root.json"

// UpdateRequest says where `ccski trust-root update` takes the trusted
// root from: a TUF repository (URL, checked from the trust anchor
// TUFRoot), or a file (From) for a machine without the network.
type UpdateRequest struct {
	// StateDir is ccski's user state folder: the trusted root is written
	// to RootFile in it, and the TUF metadata kept in its tuf folder. ""
	// is the process's.
	StateDir string
	// URL is the TUF repository; "" is DefaultTUFMirror.
	URL string
	// TUFRoot is the TUF root metadata (root.json) the repository is
	// checked from; nil is Sigstore's public-good root (which sigstore-go
	// ships), valid for DefaultTUFMirror only.
	TUFRoot []byte
	// From is a trusted_root.json file to install instead of asking a
	// TUF repository.
	From string
	// Client carries the requests; nil is the one HTTP client of ccski
	// (package httpfetch).
	Client *http.Client
}

// RootSummary describes a trusted root.
type RootSummary struct {
	// Digest is the SHA-256 of the file's bytes, as a manifest writes it.
	Digest string `json:"digest"`
	// Authorities are the Fulcio certificate authorities, logs the
	// Rekor transparency logs, CTLogs the certificate transparency logs
	// and TSAs the timestamp authorities, each named by its URL and
	// validity.
	Authorities []string `json:"certificate_authorities"`
	Logs        []string `json:"transparency_logs"`
	CTLogs      []string `json:"ct_logs"`
	TSAs        []string `json:"timestamp_authorities"`
}

// RootUpdate is what `ccski trust-root update` did.
type RootUpdate struct {
	// Path is the file written.
	Path string `json:"path"`
	// Source is where the new root came from: the TUF repository's URL
	// or the file given.
	Source string `json:"source"`
	// Previous is where the root in force before came from: Path, or
	// "the trusted root ccski ships".
	Previous string `json:"previous"`
	// Changed is false when the new root is byte for byte the one in
	// force.
	Changed bool `json:"changed"`
	// Added and Removed are the entries (authorities, logs) the new root
	// has and the old one had not, and the reverse.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
	// Before and After describe the old and the new root.
	Before RootSummary `json:"before"`
	After  RootSummary `json:"after"`
}

// UpdateRoot fetches the trusted root (see UpdateRequest), checks it
// (ParseRoot), writes it atomically to UpdatedRootPath and says what
// changed. Nothing is written when the new root is refused: the old one
// stays in force.
func UpdateRoot(ctx context.Context, r UpdateRequest) (*RootUpdate, error) {
	path, err := UpdatedRootPath(r.StateDir)
	if err != nil {
		return nil, err
	}
	var data []byte
	var source string
	if r.From != "" {
		source = r.From
		if data, err = safefile.Read(r.From, MaxRootBytes); err != nil {
			return nil, fmt.Errorf("trusted root to install: %w", err)
		}
	} else {
		if source, data, err = fetchTUF(ctx, r, filepath.Join(filepath.Dir(path), "tuf")); err != nil {
			return nil, err
		}
	}
	tr, err := ParseRoot(data)
	if err != nil {
		return nil, fmt.Errorf("refused the trusted root from %s, kept the one in force: %w", source, err)
	}
	prev, prevFrom := embeddedRoot, "the trusted root ccski ships"
	if b, err := safefile.Read(path, MaxRootBytes); err == nil {
		prev, prevFrom = b, path
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("trusted root in force: %w", err)
	}
	old, err := root.NewTrustedRootFromJSON(prev)
	if err != nil {
		old = nil // a damaged file is replaced; everything new is "added"
	}
	u := &RootUpdate{Path: path, Source: source, Previous: prevFrom, After: summarize(tr, data)}
	if old != nil {
		u.Before = summarize(old, prev)
	}
	u.Changed = manifest.Digest(prev) != u.After.Digest
	u.Added, u.Removed = diffEntries(u.Before, u.After)
	if !u.Changed && prevFrom == path {
		return u, nil
	}
	if err := safefile.WriteAtomic(path, data, 0o644); err != nil {
		return nil, fmt.Errorf("writing the trusted root: %w", err)
	}
	return u, nil
}

// fetchTUF refreshes the TUF metadata of r's repository (kept in cache)
// and returns the repository's URL and its trusted_root.json target.
func fetchTUF(ctx context.Context, r UpdateRequest, cache string) (string, []byte, error) {
	opts := tuf.DefaultOptions().WithContext(ctx)
	opts.CachePath = cache
	opts.CacheValidity = tuf.NoCache
	if r.URL != "" {
		if err := httpfetch.CheckURL(r.URL); err != nil {
			return "", nil, err
		}
		opts.RepositoryBaseURL = r.URL
		if r.TUFRoot == nil && r.URL != DefaultTUFMirror {
			return "", nil, fmt.Errorf("TUF repository %s: give its root metadata (root.json) to check it from (--tuf-root FILE); "+
				"Sigstore's public-good root only vouches for %s", r.URL, DefaultTUFMirror)
		}
	}
	if r.TUFRoot != nil {
		opts.Root = r.TUFRoot
	}
	client := r.Client
	if client == nil {
		client = httpfetch.Client(httpfetch.Options{Timeout: time.Minute, MaxBody: 16 << 20})
	}
	f := fetcher.NewDefaultFetcher()
	f.SetHTTPClient(client)
	opts.Fetcher = f
	c, err := tuf.New(opts)
	if err != nil {
		return "", nil, fmt.Errorf("TUF repository %s: %w", opts.RepositoryBaseURL, err)
	}
	data, err := c.GetTarget(tufTarget)
	if err != nil {
		return "", nil, fmt.Errorf("TUF repository %s: %w", opts.RepositoryBaseURL, err)
	}
	return opts.RepositoryBaseURL, data, nil
}

// summarize describes tr, read from data.
func summarize(tr *root.TrustedRoot, data []byte) RootSummary {
	s := RootSummary{Digest: manifest.Digest(data)}
	for _, ca := range tr.FulcioCertificateAuthorities() {
		if f, ok := ca.(*root.FulcioCertificateAuthority); ok {
			s.Authorities = append(s.Authorities, entryName(f.URI, certID(f.Root), f.ValidityPeriodStart, f.ValidityPeriodEnd))
		}
	}
	for _, ta := range tr.TimestampingAuthorities() {
		if t, ok := ta.(*root.SigstoreTimestampingAuthority); ok {
			s.TSAs = append(s.TSAs, entryName(t.URI, certID(t.Root), t.ValidityPeriodStart, t.ValidityPeriodEnd))
		}
	}
	for id, l := range tr.RekorLogs() {
		s.Logs = append(s.Logs, entryName(l.BaseURL, id, l.ValidityPeriodStart, l.ValidityPeriodEnd))
	}
	for id, l := range tr.CTLogs() {
		s.CTLogs = append(s.CTLogs, entryName(l.BaseURL, id, l.ValidityPeriodStart, l.ValidityPeriodEnd))
	}
	slices.Sort(s.Authorities)
	slices.Sort(s.TSAs)
	slices.Sort(s.Logs)
	slices.Sort(s.CTLogs)
	return s
}

// certID is a short id of a certificate: 12 hex digits of its SHA-256.
func certID(c *x509.Certificate) string {
	if c == nil {
		return "no certificate"
	}
	sum := sha256.Sum256(c.Raw)
	return hex.EncodeToString(sum[:6])
}

// entryName names one entry of a trusted root: its URL, a short id and
// its validity.
func entryName(url, id string, start, end time.Time) string {
	if len(id) > 12 {
		id = id[:12]
	}
	s := url + " (" + id + ", from " + dateOf(start)
	if !end.IsZero() {
		s += " to " + dateOf(end)
	}
	return s + ")"
}

func dateOf(t time.Time) string {
	if t.IsZero() {
		return "the start"
	}
	return t.UTC().Format("2006-01-02")
}

// diffEntries lists the entries of after that before lacks, by kind, and
// the reverse.
func diffEntries(before, after RootSummary) (added, removed []string) {
	kinds := []struct {
		name string
		b, a []string
	}{
		{"certificate authority", before.Authorities, after.Authorities},
		{"transparency log", before.Logs, after.Logs},
		{"CT log", before.CTLogs, after.CTLogs},
		{"timestamp authority", before.TSAs, after.TSAs},
	}
	for _, k := range kinds {
		for _, e := range k.a {
			if !slices.Contains(k.b, e) {
				added = append(added, k.name+" "+e)
			}
		}
		for _, e := range k.b {
			if !slices.Contains(k.a, e) {
				removed = append(removed, k.name+" "+e)
			}
		}
	}
	return added, removed
}
