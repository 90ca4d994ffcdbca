package policy

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/gitfetch"
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
// too. Every form is in the normal form of Normalize, so that the many ways
// to write one repository (https://github.com/ACME/repo,
// git@github.com:Acme/repo.git, ssh://git@github.com:22/acme/repo,
// github.com:443/acme/repo/) have the same forms.
func (s Source) Forms() []string {
	var out []string
	add := func(f ...string) {
		for _, x := range f {
			if x = Normalize(x); x != "" && !slices.Contains(out, x) {
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
			return []string{remote}
		}
		hp := Normalize(host + "/" + strings.TrimPrefix(p, "/"))
		return []string{hp, "https://" + hp}
	}
	hp := hostPath(remote)
	if hp == "" {
		return []string{remote}
	}
	return []string{hp, "https://" + hp, remote}
}

// hostPath is a URL's host and path in normal form, without scheme, user,
// query or fragment: "github.com/acme/x".
func hostPath(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	_, hp, _ := strings.Cut(Normalize(u.Scheme+"://"+u.Host+u.Path), "://")
	return hp
}

// Normalize writes a source form or pattern in the one spelling patterns
// and forms are compared in: the scheme and host in lower case, without
// user ("git@") and without the scheme's default port (any of 443, 80, 22
// and 9418 when there is no scheme); a forge's other host names as the
// forge's (ssh.github.com is github.com); the path with no empty segment
// ("//"), no "." and no ".." segment (resolved as a URL's are, so that
// github.com/acme/../evil is github.com/evil, the repository git fetches),
// no trailing "/" and no trailing ".git"; and, on a forge whose
// owner and repository names are case-insensitive (caseInsensitiveHosts:
// GitHub, GitLab, Bitbucket, Codeberg), the path in lower case too. A
// local path, a marketplace:NAME and anything else with no host are kept
// as they are.
func Normalize(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "/") || strings.HasPrefix(s, "marketplace:") || filepath.IsAbs(s) {
		return s
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	scheme = strings.ToLower(scheme)
	host, p, _ := strings.Cut(rest, "/")
	if i := strings.LastIndex(host, "@"); i >= 0 {
		host = host[i+1:]
	}
	host = strings.ToLower(host)
	if i := strings.LastIndex(host, ":"); i >= 0 && !strings.HasSuffix(host, "]") {
		name, port := host[:i], host[i+1:]
		if defaultPort(scheme, port) || hostAliases[name] != "" && (port == "443" || port == "22") {
			host = name
		}
	}
	if canon := hostAliases[host]; canon != "" {
		host = canon
	}
	var segs []string
	for seg := range strings.SplitSeq(p, "/") {
		switch gitfetch.DotSegment(seg) {
		case 1: // "." names the folder it is in
		case 2: // ".." names the one above, as git's URL resolution reads it
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			if seg != "" {
				segs = append(segs, seg)
			}
		}
	}
	p = strings.TrimSuffix(strings.Join(segs, "/"), ".git")
	if caseInsensitiveHosts[host] {
		p = strings.ToLower(p)
	}
	out := host
	if p != "" {
		out += "/" + p
	}
	if scheme != "" {
		out = scheme + "://" + out
	}
	return out
}

// defaultPort reports whether port is the default port of scheme ("" is
// any git transport's scheme).
func defaultPort(scheme, port string) bool {
	switch strings.TrimPrefix(scheme, "mcp+") {
	case "":
		return port == "443" || port == "80" || port == "22" || port == "9418"
	case "https":
		return port == "443"
	case "http":
		return port == "80"
	case "ssh", "git+ssh", "ssh+git":
		return port == "22"
	case "git":
		return port == "9418"
	}
	return false
}

// caseInsensitiveHosts are the forges whose owner and repository names are
// case-insensitive: github.com/ACME/Repo is github.com/acme/repo.
var caseInsensitiveHosts = map[string]bool{
	"github.com": true, "gitlab.com": true, "bitbucket.org": true, "codeberg.org": true,
}

// hostAliases are other names of the forges: the same repositories under
// another host name (GitHub's and GitLab's SSH over port 443, www.).
var hostAliases = map[string]string{
	"www.github.com": "github.com", "ssh.github.com": "github.com",
	"www.gitlab.com": "gitlab.com", "altssh.gitlab.com": "gitlab.com",
	"www.bitbucket.org": "bitbucket.org", "altssh.bitbucket.org": "bitbucket.org",
	"www.codeberg.org": "codeberg.org",
}
