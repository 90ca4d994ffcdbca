package validate

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ccski/ccski/internal/suggest"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// newMarkdownParser returns a CommonMark parser. A parser is used by one
// goroutine at a time.
func newMarkdownParser() parser.Parser { return goldmark.DefaultParser() }

// body checks the Markdown after the frontmatter: its length, lines
// holding only ---, and relative links and images. off is the byte offset
// where the body starts and line its first file line.
func (c *checker) body(off, line int) {
	body := c.data[off:]
	if i := invalidUTF8(body); i >= 0 {
		l, col := c.pos(off + i)
		c.add(CodeInvalidUTF8, l, col, "the body is not valid UTF-8 here: save the file as UTF-8", "")
	}
	n := bytes.Count(body, []byte("\n"))
	if len(body) > 0 && body[len(body)-1] != '\n' {
		n++
	}
	if n > MaxBodyLines {
		c.add(CodeBodyTooLong, line+MaxBodyLines, 1, fmt.Sprintf("the body is %d lines long; the spec recommends "+
			"at most %d, since the whole body enters the context when the skill is used: move detail into files "+
			"under references/ and link them", n, MaxBodyLines), "")
	}
	c.bodyDashes(off)
	if bytes.IndexByte(body, '[') >= 0 {
		c.links(off)
	}
}

// bodyDashes reports the first body line holding only ---.
func (c *checker) bodyDashes(off int) {
	first, count := 0, 0
	for rest := c.data[off:]; len(rest) > 0; {
		ln, next, _ := bytes.Cut(rest, []byte("\n"))
		if string(bytes.TrimRight(ln, " \t\r")) == "---" {
			if count == 0 {
				first = len(c.data) - len(rest)
			}
			count++
		}
		rest = next
	}
	if count == 0 {
		return
	}
	l, _ := c.pos(first)
	more := ""
	if count > 1 {
		more = fmt.Sprintf(" (%d such lines in the body)", count)
	}
	c.add(CodeTripleDashInBody, l, 1, "this body line holds only ---"+more+"; tools that split SKILL.md on --- lines "+
		"cut the body here: use *** for a thematic break, or a # heading instead of a --- underline", "")
}

// scheme matches a URL scheme such as "https:" or "mailto:".
var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// links checks every link and image destination in the body.
func (c *checker) links(off int) {
	if c.md == nil {
		c.md = newMarkdownParser()
	}
	src := c.data[off:]
	doc := c.md.Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		what := "link"
		switch l := n.(type) {
		case *ast.Link:
			dest = l.Destination
		case *ast.Image:
			dest, what = l.Destination, "image"
		default:
			return ast.WalkContinue, nil
		}
		c.checkDest(string(dest), what, off+destOffset(src, n, dest))
		return ast.WalkContinue, nil
	})
}

// destOffset finds where a link's destination is written: after the
// link's own position, within its block. It falls back to the link's
// position (a reference link's destination is written elsewhere).
func destOffset(src []byte, n ast.Node, dest []byte) int {
	p := max(n.Pos(), 0)
	end := len(src)
	for b := n.Parent(); b != nil; b = b.Parent() {
		if b.Type() == ast.TypeBlock && b.Lines().Len() > 0 {
			end = b.Lines().At(b.Lines().Len() - 1).Stop
			break
		}
	}
	if len(dest) > 0 && p < end && end <= len(src) {
		if i := bytes.Index(src[p:end], dest); i >= 0 {
			return p + i
		}
	}
	return p
}

// checkDest reports a destination that leaves the skill folder or names
// a missing file. at is the byte offset to report.
func (c *checker) checkDest(dest, what string, at int) {
	dest = strings.TrimSpace(dest)
	if dest == "" || dest[0] == '#' || strings.HasPrefix(dest, "//") || scheme.MatchString(dest) {
		return // an anchor or a URL
	}
	p := dest
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	if p == "" || strings.ContainsAny(p, "${}") {
		return // a template such as ${CLAUDE_SKILL_DIR}/x
	}
	line, col := c.pos(at)
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || filepath.IsAbs(p) {
		c.add(CodeLinkOutsideSkill, line, col, fmt.Sprintf("this %s points at the absolute path %s, which does not "+
			"exist where the skill is installed: copy the file into the skill folder and use a relative path", what, dest), "")
		return
	}
	target := filepath.Join(c.dir, filepath.FromSlash(p))
	if rel, err := filepath.Rel(c.dir, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		c.add(CodeLinkOutsideSkill, line, col, fmt.Sprintf("this %s points at %s, outside the skill folder; only the "+
			"skill folder is installed, so the %s breaks: copy the file into the skill folder (references/ or assets/) "+
			"and link it from there", what, dest, what), "")
		return
	}
	if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("this %s points at %s, which is missing from the skill folder: create the file or fix the path", what, p)
		sug := nearbyFile(c.dir, p)
		if sug != "" {
			msg = fmt.Sprintf("this %s points at %s, which is missing from the skill folder: did you mean %s?", what, p, sug)
		}
		c.add(CodeBrokenLink, line, col, msg, sug)
	}
}

// nearbyFile suggests an existing file for a missing relative path p:
// the closest name in the same folder, or the same name in a sibling
// resource folder (references/, assets/, scripts/).
func nearbyFile(dir, p string) string {
	p = path.Clean(filepath.ToSlash(p))
	parent, base := path.Split(p)
	ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(parent)))
	if err == nil {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if s := suggest.Closest(base, names); s != "" {
			return parent + s
		}
	}
	for _, alt := range []string{"references/", "assets/", "scripts/", ""} {
		if alt+base == p {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(alt+base))); err == nil {
			return alt + base
		}
	}
	return ""
}
