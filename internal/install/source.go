package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/pipeline"
)

// Kind is what a source is.
type Kind string

// The kinds of source.
const (
	// KindGit is a git repository, fetched with the system git.
	KindGit Kind = "git"
	// KindDir is a local folder: a skill, a folder of skills or a
	// marketplace (a SKILL.md or marketplace.json source names its file
	// with Path).
	KindDir Kind = "dir"
	// KindMarketplace is a marketplace Claude Code has cloned, by name:
	// installed offline from its folder.
	KindMarketplace Kind = "marketplace"
	// KindIndex is a site's well-known skills index (the Agent Skills
	// Discovery RFC, v0.2.0 at /.well-known/agent-skills/index.json,
	// else v0.1.0 at /.well-known/skills/index.json), fetched over HTTP
	// (http.go, index.go).
	KindIndex Kind = "index"
	// KindArchive is a .zip, .tar.gz or .tgz archive fetched over HTTP:
	// a skill, a folder of skills or an Agent Plugins package
	// (archive.go).
	KindArchive Kind = "archive"
	// KindMCP is an MCP server speaking the Skills Extension (SEP-2640),
	// by its streamable HTTP URL: its skills are listed with skills/list
	// and each file read with resources/read, checked against the
	// entry's digest and size (mcpsource.go).
	KindMCP Kind = "mcp"
)

// Artifact reports whether a skill of a source of kind k comes in an
// artifact (an index entry's SKILL.md or archive, an archive URL): its
// lock entry's Commit is the sha256: digest of that artifact, when there
// is one.
func (k Kind) Artifact() bool { return k == KindIndex || k == KindArchive }

// Remote reports whether sources of kind k are fetched over HTTP: the
// artifact kinds and an MCP server. Their lock entries need lock version
// 3, which older ccski refuse.
func (k Kind) Remote() bool { return k.Artifact() || k == KindMCP }

// Source is where skills are installed from, as the lock records it.
type Source struct {
	Kind Kind `json:"kind"`
	// URL is the repository of a git source, as git takes it; the site
	// (or index.json) of an index source; the archive of an archive
	// source; the endpoint of an MCP server (without its mcp+ prefix).
	URL string `json:"url,omitempty"`
	// Ref is the branch, tag or commit asked for ("" is the default
	// branch). The lock keeps it so that update follows it.
	Ref string `json:"ref,omitempty"`
	// Dir is the folder of a dir source. In the lock it is relative to
	// the lock's base folder when it lies below it.
	Dir string `json:"dir,omitempty"`
	// Name is the marketplace of a marketplace source.
	Name string `json:"name,omitempty"`
	// Path is a '/'-separated path inside the source that narrows it: a
	// folder, a SKILL.md or a marketplace.json.
	Path string `json:"path,omitempty"`
	// Origin is, for a folder or marketplace that is a git clone, the
	// repository it came from (see origin.go): a machine without the
	// folder restores from there, at the entry's Commit.
	Origin Origin `json:"origin,omitzero"`
}

// String is the source as a user would type it again.
func (s Source) String() string {
	var b strings.Builder
	switch s.Kind {
	case KindGit:
		b.WriteString(shortURL(s.URL))
		if s.Ref != "" {
			b.WriteString("@" + s.Ref)
		}
	case KindMarketplace:
		b.WriteString(s.Name)
	case KindIndex, KindArchive:
		b.WriteString(s.URL)
	case KindMCP:
		b.WriteString(MCPPrefix + s.URL)
	default:
		b.WriteString(s.Dir)
	}
	if s.Path != "" {
		b.WriteString("#" + s.Path)
	}
	return b.String()
}

// Key identifies what one fetch of the source materialises, to share it
// between the skills of a source: the source without its ref and path,
// since Discover narrows a tree to a path, except for an MCP server,
// whose fetch lists only the skills below its path (fetchMCP), so that
// two paths of one server are two trees.
func (s Source) Key() string {
	k := string(s.Kind) + " " + s.URL + s.Dir + s.Name
	if s.Kind == KindMCP {
		k += "#" + s.Path
	}
	return k
}

// shortURL writes a GitHub https URL as the owner/repo shorthand.
func shortURL(u string) string {
	if rest, ok := strings.CutPrefix(u, "https://github.com/"); ok {
		rest = strings.TrimSuffix(rest, ".git")
		if githubShorthand.MatchString(rest) {
			return rest
		}
	}
	return u
}

// ParseOptions are what ParseSource needs besides the argument.
type ParseOptions struct {
	// Cwd resolves relative paths; Home expands a leading "~/".
	Cwd, Home string
	// Ref and Path are --ref and --path; each must agree with an @ref or
	// #path in the argument.
	Ref, Path string
	// Marketplace returns the folder of a marketplace Claude Code knows
	// by name; when it does not know it, the names it knows.
	Marketplace func(name string) (dir string, ok bool, known []string)
}

var (
	// githubShorthand is owner/repo.
	githubShorthand = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$`)
	// marketplaceName is what a marketplace name may look like.
	marketplaceName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// ParseSource reads the SOURCE argument of ccski install: a git URL
// (https://, ssh://, git://, file://, user@host:path, or owner/repo for
// GitHub), with an optional @ref and #path; an http(s) URL of a site
// (its well-known skills index), of an index.json or of a .zip, .tar.gz
// or .tgz archive, with an optional #path; a local folder, SKILL.md or
// marketplace.json; the name of a marketplace Claude Code has cloned; or
// an MCP server as mcp+https://... (mcp+http://...), with an optional
// #path narrowing it to the skill paths below path.
// A path that exists is local even when it looks like owner/repo.
func ParseSource(arg string, o ParseOptions) (Source, error) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return Source{}, errors.New("empty source: give a git URL, owner/repo, a folder or a marketplace name")
	}
	src, err := parse(arg, o)
	if err != nil {
		return Source{}, err
	}
	if o.Ref != "" {
		if src.Kind != KindGit {
			return Source{}, fmt.Errorf("--ref %s: source %s is not a git repository", o.Ref, arg)
		}
		if src.Ref != "" && src.Ref != o.Ref {
			return Source{}, fmt.Errorf("source %s names ref %s but --ref says %s: give one", arg, src.Ref, o.Ref)
		}
		src.Ref = o.Ref
	}
	if o.Path != "" {
		p, err := cleanSubpath(o.Path)
		if err != nil {
			return Source{}, fmt.Errorf("--path %s: %w", o.Path, err)
		}
		if src.Path != "" && src.Path != p {
			return Source{}, fmt.Errorf("source %s names path %s but --path says %s: give one", arg, src.Path, p)
		}
		src.Path = p
	}
	return src, nil
}

// parse is ParseSource without the flags.
func parse(arg string, o ParseOptions) (Source, error) {
	if len(arg) > len(MCPPrefix) && strings.EqualFold(arg[:len(MCPPrefix)], MCPPrefix) {
		return parseMCP(arg[len(MCPPrefix):])
	}
	for _, scheme := range gitfetch.URLSchemes {
		if len(arg) > len(scheme) && strings.EqualFold(arg[:len(scheme)], scheme) {
			return parseURL(arg)
		}
	}
	if gitfetch.SCPLike.MatchString(arg) {
		return parseGit(arg, strings.IndexByte(arg, ':')+1)
	}
	local := arg
	if rest, ok := strings.CutPrefix(arg, "~/"); ok && o.Home != "" {
		local = filepath.Join(o.Home, rest)
	}
	if !filepath.IsAbs(local) {
		local = filepath.Join(o.Cwd, local)
	}
	st, err := os.Stat(local)
	switch {
	case err == nil:
		return localSource(filepath.Clean(local), st)
	case !errors.Is(err, fs.ErrNotExist):
		return Source{}, fmt.Errorf("source %s: %w", arg, err)
	case strings.HasPrefix(arg, ".") || strings.HasPrefix(arg, "/") || strings.HasPrefix(arg, "~") ||
		filepath.IsAbs(arg):
		return Source{}, fmt.Errorf("source %s does not exist", local)
	}
	if head, _, _ := strings.Cut(strings.SplitN(arg, "#", 2)[0], "@"); githubShorthand.MatchString(head) {
		src, err := parseGit("https://github.com/"+arg, len("https://github.com/"))
		if err == nil {
			src.URL = strings.TrimSuffix(src.URL, ".git") + ".git"
		}
		return src, err
	}
	if marketplaceName.MatchString(arg) && o.Marketplace != nil {
		dir, ok, known := o.Marketplace(arg)
		if ok {
			return Source{Kind: KindMarketplace, Name: arg, Dir: dir}, nil
		}
		hint := "Claude Code knows no marketplace yet"
		if len(known) > 0 {
			hint = "the marketplaces Claude Code knows are " + strings.Join(known, ", ")
		}
		return Source{}, fmt.Errorf("source %s is no folder, no git URL and no marketplace Claude Code knows (%s); "+
			"give a path, a URL or owner/repo", arg, hint)
	}
	return Source{}, fmt.Errorf("source %s is no folder, git URL or owner/repo: give one of those, or a marketplace name", arg)
}

// parseURL reads a git URL. A GitHub /tree/<ref>/<path> or
// /blob/<ref>/<path> URL names a ref and path, as a browser shows them.
func parseURL(arg string) (Source, error) {
	if gitfetch.HasPassword(arg) {
		return Source{}, gitfetch.PasswordError(arg)
	}
	if src, ok, err := parseHTTP(arg); ok {
		return src, err
	}
	scheme := strings.Index(arg, "://") + 3
	host := strings.IndexByte(arg[scheme:], '/')
	if host < 0 {
		return Source{}, fmt.Errorf("git URL %s names no repository", arg)
	}
	start := scheme + host + 1
	if strings.HasPrefix(strings.ToLower(arg), "https://github.com/") {
		parts := strings.SplitN(arg[start:], "/", 5)
		if len(parts) >= 4 && (parts[2] == "tree" || parts[2] == "blob") {
			src := Source{Kind: KindGit, URL: "https://github.com/" + parts[0] + "/" + strings.TrimSuffix(parts[1], ".git") + ".git",
				Ref: parts[3]}
			if len(parts) == 5 {
				p, err := cleanSubpath(parts[4])
				if err != nil {
					return Source{}, fmt.Errorf("git URL %s: %w", arg, err)
				}
				src.Path = p
			}
			return src, nil
		}
	}
	return parseGit(arg, start)
}

// parseGit splits "<url>[@ref][#path]", where the repository path starts
// at index start: an @ there or later begins the ref.
func parseGit(arg string, start int) (Source, error) {
	src := Source{Kind: KindGit}
	rest, path, hasPath := strings.Cut(arg, "#")
	if hasPath {
		p, err := cleanSubpath(path)
		if err != nil {
			return Source{}, fmt.Errorf("source %s: %w", arg, err)
		}
		src.Path = p
	}
	if i := strings.LastIndexByte(rest, '@'); i >= start && i > strings.LastIndexByte(rest, '/') {
		rest, src.Ref = rest[:i], rest[i+1:]
		if src.Ref == "" {
			return Source{}, fmt.Errorf("source %s: empty ref after @", arg)
		}
	}
	if len(rest) <= start || strings.HasSuffix(rest, "/") && len(strings.Trim(rest[start:], "/")) == 0 {
		return Source{}, fmt.Errorf("git URL %s names no repository", arg)
	}
	src.URL = rest
	return src, nil
}

// localSource reads a local path that exists.
func localSource(path string, st fs.FileInfo) (Source, error) {
	if st.IsDir() {
		return Source{Kind: KindDir, Dir: path}, nil
	}
	dir, base := filepath.Split(path)
	dir = filepath.Clean(dir)
	switch {
	case strings.EqualFold(base, pipeline.SkillFile):
		return Source{Kind: KindDir, Dir: dir}, nil
	case strings.EqualFold(base, "marketplace.json"):
		// Name the marketplace by the folder its plugin sources start
		// from, and the file by its path there.
		root := dir
		switch {
		case filepath.Base(dir) == ".claude-plugin":
			root = filepath.Dir(dir)
		case filepath.Base(dir) == "plugins" && filepath.Base(filepath.Dir(dir)) == ".agents":
			root = filepath.Dir(filepath.Dir(dir))
		}
		rel, _ := filepath.Rel(root, path)
		return Source{Kind: KindDir, Dir: root, Path: filepath.ToSlash(rel)}, nil
	}
	return Source{}, fmt.Errorf("source %s is a file but no SKILL.md or marketplace.json: give a folder, a SKILL.md or a marketplace.json", path)
}

// cleanSubpath checks a path inside a source: relative, '/'-separated,
// staying inside.
func cleanSubpath(p string) (string, error) {
	p = strings.Trim(filepath.ToSlash(p), "/")
	p = strings.TrimPrefix(p, "./")
	if p == "" || p == "." {
		return "", nil
	}
	if !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", fmt.Errorf("path %q must stay inside the source (no .., no absolute path)", p)
	}
	return filepath.ToSlash(filepath.Clean(filepath.FromSlash(p))), nil
}
