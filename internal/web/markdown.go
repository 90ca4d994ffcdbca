package web

import (
	"bytes"
	"html"
	"net/url"
	"path"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// The Markdown of a skill is untrusted: it may hold HTML, script links and
// remote images meant to run in the reader's browser or to tell a server
// that someone looked. renderMarkdown renders it with goldmark and
// GitHub-flavoured Markdown (tables, strikethrough, autolinks, task
// lists), and overrides what goldmark would pass through or point away:
//   - raw HTML, blocks and inline, is written as escaped text;
//   - a link is kept only when it leads to http(s), mailto, a fragment of
//     the page, or a file of the skill (rewritten to that file's view,
//     /skill/{id}/file/...); any other is its text alone; every link is
//     rel="noopener noreferrer nofollow";
//   - an image is shown only from a file of the skill (/skill/{id}/raw/...)
//     or a data: image URI; any other is its alt text;
//   - headings get no id, so that a heading cannot clobber the page's own
//     elements (#q, #files).
// The Content-Security-Policy stands behind all of it.

// markdown renders the Markdown of the skill whose id is id.
type markdown struct{ id string }

// renderMarkdown returns the HTML of src, the Markdown of the skill whose
// id is id.
func renderMarkdown(id string, src []byte) ([]byte, error) {
	md := goldmark.New(
		// GFM, its tables aligned by attribute: a style attribute would
		// break the Content-Security-Policy.
		goldmark.WithExtensions(extension.Linkify, extension.Strikethrough, extension.TaskList,
			extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(markdown{id: id}, 0))),
	)
	var out bytes.Buffer
	err := md.Convert(src, &out)
	return out.Bytes(), err
}

// RegisterFuncs overrides goldmark's renderers of the nodes that can carry
// HTML or URLs.
func (m markdown) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, m.htmlBlock)
	reg.Register(ast.KindRawHTML, m.rawHTML)
	reg.Register(ast.KindLink, m.link)
	reg.Register(ast.KindAutoLink, m.autoLink)
	reg.Register(ast.KindImage, m.image)
}

func (m markdown) htmlBlock(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<pre class="raw-html">`)
	for i := range n.Lines().Len() {
		line := n.Lines().At(i)
		_, _ = w.WriteString(html.EscapeString(string(line.Value(src))))
	}
	if n.HasClosure() {
		_, _ = w.WriteString(html.EscapeString(string(n.ClosureLine.Value(src))))
	}
	_, _ = w.WriteString("</pre>\n")
	return ast.WalkContinue, nil
}

func (m markdown) rawHTML(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		_, _ = w.WriteString(html.EscapeString(string(seg.Value(src))))
	}
	return ast.WalkSkipChildren, nil
}

// rel is the rel attribute of every link a skill's Markdown holds.
const rel = `" rel="noopener noreferrer nofollow"`

func (m markdown) link(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	href, ok := m.href(string(n.Destination))
	if !ok { // the text alone
		return ast.WalkContinue, nil
	}
	if entering {
		_, _ = w.WriteString(`<a href="` + html.EscapeString(href) + rel)
		if len(n.Title) > 0 {
			_, _ = w.WriteString(` title="` + html.EscapeString(string(n.Title)) + `"`)
		}
		_, _ = w.WriteString(">")
	} else {
		_, _ = w.WriteString("</a>")
	}
	return ast.WalkContinue, nil
}

func (m markdown) autoLink(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	n := node.(*ast.AutoLink)
	dest, label := string(n.URL(src)), string(n.Label(src))
	if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(dest), "mailto:") {
		dest = "mailto:" + dest
	}
	href, ok := m.href(dest)
	if !ok || !absolute(href) {
		_, _ = w.WriteString(html.EscapeString(label))
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<a href="` + html.EscapeString(href) + rel + ">" + html.EscapeString(label) + "</a>")
	return ast.WalkContinue, nil
}

func (m markdown) image(w util.BufWriter, src []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.Image)
	alt := plainText(n, src)
	dest := strings.TrimSpace(string(n.Destination))
	var s string
	switch {
	case strings.HasPrefix(strings.ToLower(dest), "data:image/") && !strings.HasPrefix(strings.ToLower(dest), "data:image/svg"):
		s = dest
	default:
		if file, ok := inSkill(dest); ok {
			s = "/skill/" + url.PathEscape(m.id) + "/raw/" + manifest.EscapePath(file)
		}
	}
	if s == "" {
		_, _ = w.WriteString(html.EscapeString(alt))
		return ast.WalkSkipChildren, nil
	}
	_, _ = w.WriteString(`<img src="` + html.EscapeString(s) + `" alt="` + html.EscapeString(alt) + `" loading="lazy">`)
	return ast.WalkSkipChildren, nil
}

// href returns where a link of the skill's Markdown may lead: the URL
// itself for http(s) and mailto, a fragment as it is, a file of the skill
// as its view; false for anything else.
func (m markdown) href(dest string) (string, bool) {
	dest = strings.TrimSpace(dest)
	u, err := url.Parse(dest)
	switch {
	case err != nil || dest == "":
		return "", false
	case u.Scheme != "":
		switch strings.ToLower(u.Scheme) {
		case "http", "https":
			return dest, u.Host != ""
		case "mailto":
			return dest, true
		}
		return "", false
	case strings.HasPrefix(dest, "#"):
		return dest, true
	case u.Host != "" || strings.HasPrefix(dest, "//"):
		return "", false
	}
	file, ok := inSkill(dest)
	if !ok {
		return "", false
	}
	h := "/skill/" + url.PathEscape(m.id) + "/file/" + manifest.EscapePath(file)
	if u.Fragment != "" {
		h += "#" + url.PathEscape(u.Fragment)
	}
	return h, true
}

// inSkill resolves a relative URL of SKILL.md (at the top of the skill's
// folder) to the path of a file in the folder; false when it leads out of
// it, names the folder itself, or is not relative.
func inSkill(dest string) (string, bool) {
	u, err := url.Parse(dest)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Opaque != "" || strings.HasPrefix(u.Path, "/") || u.Path == "" {
		return "", false
	}
	clean := path.Clean(u.Path)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.ContainsRune(clean, 0) || strings.Contains(clean, `\`) {
		return "", false
	}
	return clean, true
}

// absolute reports whether href leads out of the server (http(s), mailto).
func absolute(href string) bool {
	u, err := url.Parse(href)
	return err == nil && u.Scheme != ""
}

// plainText is the text of n's children, as an image's alt text.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for cc := t.FirstChild(); cc != nil; cc = cc.NextSibling() {
				if tx, ok := cc.(*ast.Text); ok {
					b.Write(tx.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}
