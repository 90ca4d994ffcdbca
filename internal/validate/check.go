package validate

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/parser"
	"golang.org/x/text/unicode/norm"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/skillmd"
)

var bom = []byte("\ufeff")

// checker validates one skill file from its content. It touches the disk
// only to look up the body's relative links and, in tree, the file's
// place (symlinks, a disabled twin).
type checker struct {
	file string // as reported
	dir  string // the skill folder
	data []byte
	// lineStarts holds the byte offset of every line start.
	lineStarts []int
	findings   []report.Finding
	md         parser.Parser // nil until the body has a link

	// Filled in by the frontmatter checks.
	name           string // NFKC-normalised, trimmed; "" when unusable
	nameLine       int
	nameCol        int
	openLine       int // the opening --- (0 when there is none)
	frontmatterEnd int // byte offset where the body starts
}

func newChecker(file string, data []byte, md parser.Parser) *checker {
	c := &checker{file: file, dir: filepath.Dir(file), data: data, md: md}
	c.lineStarts = append(make([]int, 0, 64), 0)
	for i, b := range data {
		if b == '\n' {
			c.lineStarts = append(c.lineStarts, i+1)
		}
	}
	return c
}

func (c *checker) add(code string, line, col int, msg, suggestion string) {
	c.findings = append(c.findings, report.Finding{Code: code, File: c.file, Line: line, Column: col,
		Message: msg, Suggestion: suggestion})
}

// markFixable marks the last finding as one --fix repairs.
func (c *checker) markFixable() { c.findings[len(c.findings)-1].Fixable = true }

// pos turns a byte offset into a 1-based line and column (in characters).
func (c *checker) pos(off int) (int, int) {
	off = min(max(off, 0), len(c.data))
	ln := sort.Search(len(c.lineStarts), func(i int) bool { return c.lineStarts[i] > off }) - 1
	start := c.lineStarts[ln]
	return ln + 1, utf8.RuneCount(c.data[start:off]) + 1
}

// line returns the text of 1-based line n without its line ending.
func (c *checker) line(n int) []byte {
	if n < 1 || n > len(c.lineStarts) {
		return nil
	}
	start, end := c.lineStarts[n-1], len(c.data)
	if n < len(c.lineStarts) {
		end = c.lineStarts[n]
	}
	return bytes.TrimRight(c.data[start:end], "\r\n")
}

// folder returns the NFKC-normalised name of the skill folder.
func (c *checker) folder() string {
	dir := c.dir
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return norm.NFKC.String(filepath.Base(dir))
}

// run performs every check on the file's content.
func (c *checker) run() {
	h, err := skillmd.ReadHead(bytes.NewReader(c.data))
	if err != nil {
		c.framingError(err)
		return
	}
	c.openLine = 1 + h.LeadingBlank
	closeLine := h.StartLine + bytes.Count(h.Raw, []byte("\n"))
	c.frontmatterEnd = h.BodyOffset

	if h.BOM {
		c.add(CodeByteOrderMark, 1, 1, "the file starts with a byte order mark (U+FEFF); the reference validator and Codex "+
			"then find no frontmatter: save the file as UTF-8 without BOM (ccski validate --fix removes it)", "")
		c.markFixable()
	}
	if h.LeadingBlank > 0 {
		them := "them"
		if h.LeadingBlank == 1 {
			them = "it"
		}
		c.add(CodeLeadingBlankLine, 1, 1, fmt.Sprintf("%s before the opening ---; the file must start with ---, "+
			"or some agents find no frontmatter: delete %s (ccski validate --fix does)",
			report.Plural(h.LeadingBlank, "blank line comes", "blank lines come"), them), "")
		c.markFixable()
	}
	if i := bytes.Index(c.data[:h.BodyOffset], []byte("\r\n")); i >= 0 {
		ln, _ := c.pos(i)
		c.add(CodeCRLF, ln, 0, "the frontmatter has Windows (CRLF) line endings; some readers then see a stray "+
			"carriage return at the end of every value: save the file with LF endings (ccski validate --fix converts "+
			"the frontmatter and leaves the body alone)", "")
		c.markFixable()
	}
	for _, ln := range []int{c.openLine, closeLine} {
		if t := bytes.TrimPrefix(c.line(ln), bom); string(t) != "---" {
			c.add(CodeDelimiterTrailingSpace, ln, 4, "the --- delimiter line has trailing white space; strict readers "+
				"do not see it as a delimiter: make the line exactly --- (ccski validate --fix trims it)", "")
			c.markFixable()
		}
	}

	raw := h.Raw
	if i := invalidUTF8(raw); i >= 0 {
		ln, col := c.pos(c.lineStarts[h.StartLine-1] + i)
		c.add(CodeInvalidUTF8, ln, col, "the frontmatter is not valid UTF-8 here: save the file as UTF-8", "")
	} else {
		c.frontmatter(raw, h.StartLine)
	}
	c.body(h.BodyOffset, closeLine+1)
}

// framingError reports a file whose frontmatter block cannot be found.
func (c *checker) framingError(err error) {
	open := 1
	for open <= len(c.lineStarts) && len(bytes.TrimSpace(bytes.TrimPrefix(c.line(open), bom))) == 0 {
		open++
	}
	switch {
	case errors.Is(err, skillmd.ErrNoFrontmatter):
		if len(bytes.TrimSpace(bytes.TrimPrefix(c.data, bom))) == 0 {
			c.add(CodeNoFrontmatter, 1, 0, "the file is empty: write the frontmatter (---, name:, description:, ---) "+
				"and then the instructions", "")
			return
		}
		msg := "the file does not start with a --- line, so it has no frontmatter: add ---, name: and description: " +
			"lines and a closing --- at the top"
		if t := strings.TrimSpace(string(c.line(open))); strings.HasPrefix(t, "---") || strings.HasPrefix(t, "+++") {
			msg = fmt.Sprintf("the first line is %q, not ---: make it exactly --- to open the frontmatter", t)
		}
		c.add(CodeNoFrontmatter, min(open, len(c.lineStarts)), 1, msg, "")
		c.body(0, 1)
	case errors.Is(err, skillmd.ErrUnterminated):
		c.add(CodeUnclosedFrontmatter, open, 1, "the frontmatter opened here is never closed: add a line holding "+
			"only --- after the last field", "")
	case errors.Is(err, skillmd.ErrTooLarge):
		c.add(CodeFrontmatterTooLarge, open, 1, fmt.Sprintf("the frontmatter is larger than %d KiB (or is never "+
			"closed): close it with --- and move long text into the body", skillmd.MaxFrontmatter>>10), "")
	default:
		c.add(CodeUnreadable, 0, 0, "cannot read the file: "+err.Error(), "")
	}
}

// invalidUTF8 returns the offset of the first invalid byte of b, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}
