package policy

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Source is where a skill is installed from, as policy.allowed_sources and
// policy.required_signers see it: the fields of an install source
// (internal/install.Source) the patterns are matched against.
type Source struct {
	// Kind is the install source's kind: git, dir, marketplace, index,
	// archive or mcp.
	Kind string `json:"kind"`
	// URL is a git repository's URL, an index's, an archive's or an MCP
	// server's endpoint.
	URL string `json:"url,omitempty"`
	// Dir is a local folder's absolute path.
	Dir string `json:"dir,omitempty"`
	// Name is a marketplace's name.
	Name string `json:"name,omitempty"`
	// Origin is the repository a local folder or marketplace was cloned
	// from, "" when none.
	Origin string `json:"origin,omitempty"`
	// Text is the source as the user typed it (install.Source.String);
	// "" writes the first form.
	Text string `json:"-"`
}

// String is the source as the user would type it.
func (s Source) String() string {
	if s.Text != "" {
		return s.Text
	}
	if f := s.Forms(); len(f) > 0 {
		return f[0]
	}
	return s.Kind
}

// Forms are the strings a source pattern is matched against, the most
// usual first: for a repository its host and path without scheme or .git
// (github.com/acme/skills) and its URL; for an index, an archive or an MCP
// server its URL (mcp+ prefixed for a server) and its host and path; for a
// marketplace marketplace:NAME; for a local folder its path; and for a
// folder or marketplace cloned from a repository, that repository's forms
// too.
func (s Source) Forms() []string {
	var out []string
	add := func(f ...string) {
		for _, x := range f {
			if x != "" && !slices.Contains(out, x) {
				out = append(out, x)
			}
		}
	}
	switch s.Kind {
	case "git":
		add(repoForms(s.URL)...)
	case "marketplace":
		add("marketplace:" + s.Name)
		add(repoForms(s.Origin)...)
	case "dir":
		add(filepath.ToSlash(s.Dir))
		add(repoForms(s.Origin)...)
	case "mcp":
		add("mcp+"+s.URL, s.URL, hostPath(s.URL))
	default:
		add(s.URL, hostPath(s.URL))
	}
	return out
}

// repoForms are the forms of a git remote: host/path and the https URL
// for a remote URL (https://, ssh://, git@host:path), the path for a local
// repository (a path or a file:// URL).
func repoForms(remote string) []string {
	if remote == "" {
		return nil
	}
	if p, ok := strings.CutPrefix(remote, "file://"); ok {
		return []string{p}
	}
	if filepath.IsAbs(remote) || strings.HasPrefix(remote, "/") {
		return []string{filepath.ToSlash(remote)}
	}
	// scp-like git@host:owner/repo
	if !strings.Contains(remote, "://") {
		if at, rest, ok := strings.Cut(remote, "@"); ok && !strings.Contains(at, "/") {
			remote = rest
		}
		host, p, ok := strings.Cut(remote, ":")
		if !ok {
			return []string{trimGit(remote)}
		}
		hp := strings.ToLower(host) + "/" + trimGit(strings.TrimPrefix(p, "/"))
		return []string{hp, "https://" + hp}
	}
	hp := hostPath(remote)
	if hp == "" {
		return []string{remote}
	}
	return []string{hp, "https://" + hp, strings.TrimSuffix(remote, ".git")}
}

// hostPath is a URL's host (lower case, with its port) and path, without
// scheme, user, query or a trailing .git or slash: "github.com/acme/x".
func hostPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Host) + trimGit(strings.TrimSuffix(u.Path, "/"))
}

// trimGit drops a trailing ".git" and slash.
func trimGit(p string) string { return strings.TrimSuffix(strings.TrimSuffix(p, "/"), ".git") }
