package pipeline

// Skill paths place every skill in one namespace of the MCP Skills
// Extension (SEP-2640): a skill's files are the resources
// skill://<skill path>/<file>, and the last segment of the path is the
// skill's name (its frontmatter name, which the extension requires, even
// for a skill its host names after its folder), so an agent can tell the
// name from the URI alone. The
// first segment is the provider (an RFC 3986 reg-name, never resolved),
// plugin skills sit under plugins/<plugin>, and the segments between say
// where the skill lives only when they must:
//
//	skill://codex/pdf/SKILL.md                        the only codex skill called pdf
//	skill://claude/plugins/document-skills/docx/SKILL.md
//	skill://claude/user/docx/SKILL.md                 personal and project copies
//	skill://claude/project/docx/SKILL.md              of one name
//	skill://custom/docs/pdf/SKILL.md                  a custom folder scoped "docs"
//
// Paths are assigned with ids, by the same rule: the short form when no
// other skill shares it, the location (for a plugin, its marketplace) when
// one does, and an ordinal segment ("claude/project/2/pdf") when even that
// is shared. Commands have no skill path.

import (
	"net/url"

	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/problems"
)

// SkillScheme starts every skill resource URI.
const SkillScheme = "skill://"

// SkillFile is the file that makes a folder a skill, named explicitly at
// the end of every skill URI. DisabledSkillFile is the same file renamed
// by the host-neutral switch: a folder holding it is a disabled skill.
// Every package names the two files through these constants.
const (
	SkillFile         = "SKILL.md"
	DisabledSkillFile = "." + SkillFile
)

// SkillURI is the SEP-2640 URI of the record's SKILL.md
// ("skill://codex/pdf/SKILL.md"), or "" for a command.
func (r *Record) SkillURI() string {
	if r.SkillPath == "" {
		return ""
	}
	return SkillScheme + r.SkillPath + "/" + SkillFile
}

// assignSkillPaths gives every skill record a skill path no other record
// shares, compared case-insensitively, deterministically for the same
// records in the same order.
func assignSkillPaths(records []*Record) {
	const (
		short = iota
		located
	)
	groups := make(map[string]int, len(records))
	for _, r := range records {
		if r.IsCommand() {
			r.SkillPath = ""
			continue
		}
		groups[strings.ToLower(skillPathOf(r, short, 0))]++
	}
	taken := make(map[string]bool, len(records))
	// Records whose short path is their own claim it first, so that a
	// qualified path never takes it from them.
	for _, r := range records {
		if r.IsCommand() {
			continue
		}
		r.SkillPath = ""
		if p := skillPathOf(r, short, 0); groups[strings.ToLower(p)] == 1 {
			r.SkillPath = p
			taken[strings.ToLower(p)] = true
		}
	}
	for _, r := range records {
		if r.IsCommand() || r.SkillPath != "" {
			continue
		}
		p := skillPathOf(r, located, 0)
		for n := 2; taken[strings.ToLower(p)]; n++ {
			p = skillPathOf(r, located, n)
		}
		r.SkillPath = p
		taken[strings.ToLower(p)] = true
	}
	unnest(records, taken)
}

// unnest moves every skill whose path starts another skill's path
// (skill://claude/user for a skill named user, and skill://claude/user/docx
// for the personal copy of docx): the longer one's files would otherwise
// read as the shorter one's. The shorter path moves below "~<n>" after the
// provider ("claude/~1/user"), a segment no valid skill name takes, with
// the smallest n that starts and ends no other path.
func unnest(records []*Record, taken map[string]bool) {
	inner := map[string]bool{} // proper prefixes of the assigned paths
	addPrefixes := func(p string) {
		for i := strings.IndexByte(p, '/'); i >= 0; i = nextSlash(p, i) {
			inner[strings.ToLower(p[:i])] = true
		}
	}
	for _, r := range records {
		addPrefixes(r.SkillPath)
	}
	clash := func(p string) bool {
		lp := strings.ToLower(p)
		if taken[lp] || inner[lp] {
			return true
		}
		for i := strings.IndexByte(lp, '/'); i >= 0; i = nextSlash(lp, i) {
			if taken[lp[:i]] {
				return true
			}
		}
		return false
	}
	for _, r := range records {
		if r.SkillPath == "" || !inner[strings.ToLower(r.SkillPath)] {
			continue
		}
		delete(taken, strings.ToLower(r.SkillPath))
		agent, rest, _ := strings.Cut(r.SkillPath, "/")
		p := ""
		for n := 1; p == "" || clash(p); n++ {
			p = agent + "/~" + strconv.Itoa(n) + "/" + rest
		}
		r.SkillPath = p
		taken[strings.ToLower(p)] = true
		addPrefixes(p)
	}
}

// nextSlash is the index of the next '/' in p after i, or -1.
func nextSlash(p string, i int) int {
	j := strings.IndexByte(p[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// skillPathOf builds a record's skill path: the provider, "plugins" and
// the plugin for a plugin skill, the location (or the marketplace) when
// tier is located, the ordinal n when it is over 1, the scope segments of
// the name, and the name. Every segment is escaped for a URI path; the
// provider keeps to unreserved characters, as the authority must.
func skillPathOf(r *Record, tier, n int) string {
	segs := make([]string, 0, 6)
	segs = append(segs, escapeAuthority(r.Agent))
	// The extension names a skill by its frontmatter, whatever name its
	// host shows (Record.FrontmatterName).
	name := r.FrontmatterName()
	if r.Plugin != nil {
		segs = append(segs, "plugins")
		if tier > 0 && r.Plugin.Marketplace != "" {
			segs = append(segs, url.PathEscape(r.Plugin.Marketplace))
		}
		segs = append(segs, url.PathEscape(r.Plugin.Plugin))
		name = r.localName(name)
	} else if tier > 0 {
		segs = append(segs, url.PathEscape(string(r.Location)))
	}
	if n > 1 {
		segs = append(segs, strconv.Itoa(n))
	}
	for _, part := range strings.Split(name, ":") {
		segs = append(segs, url.PathEscape(part))
	}
	return strings.Join(segs, "/")
}

// escapeAuthority writes s as a reg-name Go's net/url parses: EscapeID
// with ASCII letters lower-cased first, as the authority is
// case-insensitive; "~" when s is empty.
func escapeAuthority(s string) string {
	if s == "" {
		return "~"
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return EscapeID(string(b))
}

// EscapeID writes s with unreserved URI characters only: letters, digits,
// '-', '.' and '_' stay, every other byte becomes '~' and two upper-case
// hex digits (codex:pdf is codex~3Apdf).
func EscapeID(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('~')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// UnescapeID reverses EscapeID. A '~' not followed by two hex digits is
// kept as it is.
func UnescapeID(s string) string {
	if !strings.Contains(s, "~") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '~' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// SkillPathOfURI returns the skill path and file path ('/'-separated,
// unescaped) of a skill URI when its path names a skill of the snapshot,
// trying the longest skill path first: "skill://codex/pdf/references/a.md"
// is codex/pdf and references/a.md. ok is false when no skill path of the
// snapshot starts the URI.
func (s *Snapshot) SkillPathOfURI(uri string) (r *Record, rel string, ok bool) {
	rest, found := strings.CutPrefix(uri, SkillScheme)
	if !found {
		return nil, "", false
	}
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	table := s.skillPaths()
	// A skill path never holds an empty segment, so try each '/' from the
	// end; the whole rest is a directory URI of the skill's root. Only
	// the ends within the longest skill path can match (lower-casing
	// shrinks a character at most to a third, as K, the Kelvin sign, does,
	// hence the UTFMax): starting there keeps a URI of a million slashes
	// from costing a million lookups of a million bytes each.
	end := len(rest)
	if limit := utf8.UTFMax * s.pathMax; end > limit {
		end = strings.LastIndexByte(rest[:limit+1], '/')
	}
	for end > 0 {
		if r := table[strings.ToLower(rest[:end])]; r != nil {
			file := ""
			if end < len(rest) {
				file = rest[end+1:]
			}
			f, err := url.PathUnescape(file)
			if err != nil {
				return nil, "", false
			}
			return r, f, true
		}
		i := strings.LastIndexByte(rest[:end], '/')
		if i < 0 {
			break
		}
		end = i
	}
	return nil, "", false
}

// skillPaths maps every skill record's lower-cased skill path to it.
func (s *Snapshot) skillPaths() map[string]*Record {
	s.pathsOnce.Do(func() {
		s.paths = make(map[string]*Record, len(s.All))
		for _, r := range s.All {
			if r.SkillPath != "" {
				k := strings.ToLower(r.SkillPath)
				s.paths[k] = r
				s.pathMax = max(s.pathMax, len(k))
			}
		}
	})
	return s.paths
}

// LoadURI returns the skill whose files a skill URI addresses and the
// file's path within the skill's folder ("" for the folder itself), under
// Load's rule: a skill only dedupe hid is served, one the user's filters
// hide is a *HiddenError. ok is false when the URI starts with no skill
// path of the snapshot.
func (s *Snapshot) LoadURI(uri string) (r *Record, rel string, ok bool, err error) {
	r, rel, ok = s.SkillPathOfURI(uri)
	if !ok {
		return nil, "", false, nil
	}
	if f := s.found(r); !f.Loadable() {
		return nil, "", true, &HiddenError{Name: uri, Record: r, Reason: f.Hidden()}
	}
	return r, rel, true, nil
}

// The Agent Skills limits that SEP-2640 listings keep to.
const (
	maxSkillName        = 64
	maxSkillDescription = 1024
)

// Unlistable says why the MCP Skills Extension cannot list the skill, or
// is "" when it can: the last segment of a skill URI must be the skill's
// name, and the name must keep the Agent Skills naming rules (1 to 64
// lower-case letters, digits and single hyphens, no hyphen at either end);
// the description must be present and at most 1,024 characters. A skill
// that is not listable is still served by the skill tool and by
// resources/read.
func (r *Record) Unlistable() string {
	if r.IsCommand() {
		return "commands are not skills"
	}
	if why := nameRule(r.ShortName()); why != "" {
		return why
	}
	if local := r.Name; r.Plugin != nil && r.pluginLocalName() != r.ShortName() || r.Plugin == nil && r.Location != LocationCustom && strings.Contains(local, ":") {
		return "the name " + strconv.Quote(r.Name) + " holds ':'; Agent Skills names are 1-64 lower-case letters, digits and single hyphens"
	}
	for _, d := range r.Diagnostics {
		switch d.Code {
		case problems.NameMissing, problems.NameEmpty:
			return "the frontmatter has no name (the folder name stands in); the listing's URI must end in the frontmatter name"
		case problems.TypedScalar, problems.WrongType:
			return "the frontmatter name or description is not a string (" + d.Code + "); quote it"
		case problems.YAMLSyntax, problems.YAMLTab, problems.UnquotedColon, problems.NotAMapping, problems.DuplicateKey:
			// The listing carries the frontmatter as JSON, verbatim: YAML
			// that only a line-by-line reading recovered has none.
			return "the frontmatter is not valid YAML (" + d.Code + "); run ccski validate on it"
		}
	}
	switch n := len([]rune(r.Description)); {
	case n == 0:
		return "the description is empty; the Agent Skills spec requires one"
	case n > maxSkillDescription:
		return "the description has " + strconv.Itoa(n) + " characters, over the Agent Skills limit of 1024"
	}
	return ""
}

// nameRule checks a skill name against the Agent Skills naming rules.
func nameRule(name string) string {
	bad := func(what string) string {
		return "the name " + strconv.Quote(name) + " " + what +
			"; Agent Skills names are 1-64 lower-case letters, digits and single hyphens"
	}
	switch {
	case name == "":
		return "the skill has no name"
	case len(name) > maxSkillName:
		return bad("is longer than 64 characters")
	case name[0] == '-' || name[len(name)-1] == '-':
		return bad("starts or ends with a hyphen")
	case strings.Contains(name, "--"):
		return bad("has two hyphens in a row")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return bad("has a character other than a-z, 0-9 and '-'")
		}
	}
	return ""
}
