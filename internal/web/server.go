package web

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// assets holds the page's templates, script and style, embedded in the
// binary: the page fetches nothing from elsewhere.
//
//go:embed assets
var assets embed.FS

// pages are the page templates (assets/*.html).
var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"skillURL": skillURL,
	"inc":      func(i int) int { return i + 1 },
	"choice": func(name, label, cur string, values []string) map[string]any {
		return map[string]any{"Name": name, "Label": label, "Current": cur, "Values": values}
	},
}).ParseFS(assets, "assets/*.html"))

// FileReader is implemented by a Source whose reads of a skill's files the
// page must make through it: the MCP server's, which under a gate serves
// only the bytes it judged. The page reads the files of any other Source
// with manifest.ReadIn, the confined read the MCP resources use.
type FileReader interface {
	// ReadFile reads the file rel ('/'-separated) of r's folder of
	// snap, as manifest.ReadIn does: an error wrapping fs.ErrNotExist
	// when there is none, manifest.ErrOutside when rel leads out.
	ReadFile(snap *pipeline.Snapshot, r *pipeline.Record, rel string) ([]byte, error)
}

// server holds what every route reads.
type server struct {
	src   Source
	opts  Options
	cats  catalogues
	files *manifest.Cache // the digests of the files the skill pages list
	text  textVerdicts    // whether they are text
	log   *slog.Logger
}

func newServer(src Source, o Options) *server {
	return &server{src: src, opts: o, files: manifest.NewCache(), log: slog.Default()}
}

// routes returns the page's mux, every response carrying the security
// headers.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.catalogue)
	mux.HandleFunc("GET /ui/skills.json", s.skillsJSON)
	mux.HandleFunc("GET /ui/app.js", s.asset("assets/app.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /ui/app.css", s.asset("assets/app.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /skill/{id}", s.skill)
	mux.HandleFunc("GET /skill/{id}/file/{path...}", s.file)
	mux.HandleFunc("GET /skill/{id}/raw/{path...}", s.raw)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "Not found", "There is no page at this address.")
	})
	return Headers(mux)
}

// csp is the Content-Security-Policy of every response: the page's own
// script and style only, nothing from elsewhere, no inline script.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Headers sets the page's security headers (the Content-Security-Policy,
// nosniff, no referrer, no framing) on every response of h. Handler's
// routes carry them; the caller wraps its guard in them too, so that its
// own answers (401, 403, the 303 that sets the token's cookie) carry
// them as well.
func Headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.ServeHTTP(w, r)
	})
}

// skillURL is the address of the page of the skill whose id is id.
func skillURL(id string) string { return "/skill/" + url.PathEscape(id) }

// page is what every page template reads.
type page struct {
	Title, Heading, Page string
}

// render writes the template name with data, buffered so that a failure
// is an error page rather than half a page.
func (s *server) render(w http.ResponseWriter, code int, name string, data any) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		s.log.Error("web page not rendered", "template", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// fail answers an error page.
func (s *server) fail(w http.ResponseWriter, code int, heading, msg string) {
	s.render(w, code, "error", struct {
		page
		Message string
	}{page{Title: s.opts.Title, Heading: heading, Page: "error"}, msg})
}

func (s *server) asset(name, ctype string) http.HandlerFunc {
	data, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded: a build without it is broken
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Cache-Control", "no-cache")
		_, _ = w.Write(data)
	}
}

// The values of the filters that are not read from the catalogue.
var (
	states      = []string{stateServed, stateHidden, stateDisabled, "all"}
	integrities = []string{string(pipeline.IntegrityTrusted), string(pipeline.IntegrityRecorded),
		string(pipeline.IntegrityNew), string(pipeline.IntegrityChanged), string(pipeline.IntegrityUnknown), "none"}
	signatures    = []string{string(pipeline.SignatureSigned), string(pipeline.SignatureUnsigned), string(pipeline.SignatureInvalid)}
	findingValues = []string{"yes", "no", "error", "warning", "info"}
)

// cataloguePage is what the catalogue template reads.
type cataloguePage struct {
	page
	Q                               query
	Res                             result
	Groups                          []*group
	Providers, Plugins, Locations   []string
	States, Integrities, Signatures []string
	FindingsValues                  []string
	Total, Served, Hidden, Disabled int
	MoreURL                         string
	Error                           string
}

// catalogue serves /: the first page of the view the URL names, rendered
// on the server, so that the first paint needs no script.
func (s *server) catalogue(w http.ResponseWriter, r *http.Request) {
	cat := s.cats.of(s.src.Snapshot())
	q := queryOf(r.URL.Query())
	p := cataloguePage{page: page{Title: s.opts.Title, Page: "catalogue"}, Q: q,
		Providers: cat.providers, Plugins: cat.plugins, Locations: cat.locations,
		States: states, Integrities: integrities, Signatures: signatures, FindingsValues: findingValues,
		Total: len(cat.rows), Served: cat.counts[stateServed], Hidden: cat.counts[stateHidden], Disabled: cat.counts[stateDisabled]}
	res, err := cat.list(r.Context(), s.src, q)
	if err != nil {
		p.Error = "The search failed: " + err.Error()
	}
	p.Res, p.Groups = res, groups(res.Rows)
	if res.Next > 0 {
		v := q.values()
		v.Set("offset", strconv.Itoa(res.Next))
		p.MoreURL = "/?" + v.Encode()
	}
	s.render(w, http.StatusOK, "catalogue", p)
}

// skillsJSON serves /ui/skills.json: one page of a view, for the script.
func (s *server) skillsJSON(w http.ResponseWriter, r *http.Request) {
	cat := s.cats.of(s.src.Snapshot())
	q := queryOf(r.URL.Query())
	res, err := cat.list(r.Context(), s.src, q)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
		return
	}
	rows := res.Rows
	if rows == nil {
		rows = []*row{}
	}
	_ = json.NewEncoder(w).Encode(struct {
		Count  int    `json:"count"`
		Offset int    `json:"offset"`
		Next   int    `json:"next"`
		Skills []*row `json:"skills"`
	}{res.Count, q.Offset, res.Next, rows})
}

// record finds the skill of the request's {id}, or answers 404.
func (s *server) record(w http.ResponseWriter, r *http.Request) (*pipeline.Snapshot, *row, bool) {
	snap := s.src.Snapshot()
	if snap == nil {
		s.fail(w, http.StatusServiceUnavailable, "Not ready", "The server has not finished its first discovery: try again in a moment.")
		return nil, nil, false
	}
	cat := s.cats.of(snap)
	id := r.PathValue("id")
	w0 := cat.byID[id]
	if w0 == nil {
		if rec := snap.ByID(id); rec != nil {
			w0 = cat.byID[rec.ID]
		}
	}
	if w0 == nil {
		s.fail(w, http.StatusNotFound, "No such skill", fmt.Sprintf("No skill has the id %q.", id))
		return nil, nil, false
	}
	return snap, w0, true
}

// read reads the file rel of r's folder: through the Source when it is a
// FileReader, else with the confined read of the MCP resources.
func (s *server) read(snap *pipeline.Snapshot, r *pipeline.Record, rel string) ([]byte, error) {
	if fr, ok := s.src.(FileReader); ok {
		return fr.ReadFile(snap, r, rel)
	}
	return manifest.ReadIn(r.FilesDir(), rel, manifest.MaxFileBytes)
}

// keyValue is one frontmatter key and its value as text.
type keyValue struct{ Key, Value string }

// fileRow is one file of the skill page's list.
type fileRow struct {
	Path, Link, Digest, Short, View, Raw string
	Size                                 int64
	Binary                               bool
}

// finding is one scan finding of the skill page.
type finding struct {
	Severity, Code, File, URL, Message string
	Line                               int
}

// skillPage is what the skill template reads.
type skillPage struct {
	page
	Row                               *row
	Rec                               *pipeline.Record
	Served                            bool // false: the page shows only why the skill is not served
	Signature, Integrity, Install     string
	Origin                            *Origin
	Hosts                             []HostLoad
	Findings                          []finding
	Scanned                           bool
	Front                             []keyValue
	Files                             []fileRow
	Body                              template.HTML
	FrontError, FilesError, BodyError string
}

// skill serves /skill/{id}.
func (s *server) skill(w http.ResponseWriter, r *http.Request) {
	snap, w0, ok := s.record(w, r)
	if !ok {
		return
	}
	rec := w0.rec
	p := skillPage{page: page{Title: s.opts.Title, Heading: w0.Name, Page: "skill"}, Row: w0, Rec: rec}
	if w0.State != stateServed {
		// Not served: the page says so and why, and shows nothing of
		// what /mcp withholds (its body, frontmatter, files, findings).
		s.render(w, http.StatusOK, "skillpage", p)
		return
	}
	p.Served, p.Signature, p.Scanned = true, snap.SignatureOf(rec).Describe(), snap.Security != nil
	if in, ok := snap.Integrity[rec]; ok {
		p.Integrity = string(in.State)
		if sum := in.Summary(); sum != "" {
			p.Integrity += ": " + sum
		} else if in.Error != "" {
			p.Integrity += ": " + in.Error
		}
	} else {
		p.Integrity = "not checked"
	}
	if s.opts.Facts != nil {
		f := s.opts.Facts(r.Context(), rec)
		p.Origin, p.Hosts, p.Install = f.Origin, f.Hosts, f.Install
	}
	p.Findings = findingsOf(snap, rec)
	own := filepath.Base(rec.File)
	data, err := s.read(snap, rec, own)
	if err != nil {
		p.BodyError = fmt.Sprintf("%s could not be read: %v", own, err)
	} else {
		p.Front, p.FrontError = frontmatter(data)
		html, err := renderMarkdown(rec.ID, skillmd.Body(data))
		if err != nil {
			p.BodyError = "the Markdown could not be rendered: " + err.Error()
		}
		p.Body = template.HTML(html) // #nosec: rendered by renderMarkdown, raw HTML escaped, links and images checked
	}
	p.Files, err = s.fileRows(snap, rec)
	if err != nil {
		p.FilesError = "The files could not be listed: " + err.Error()
	}
	s.render(w, http.StatusOK, "skillpage", p)
}

// findingsOf lists the scan findings of rec, their files relative to its
// folder and linked to their view.
func findingsOf(snap *pipeline.Snapshot, rec *pipeline.Record) []finding {
	var out []finding
	dir := rec.FilesDir()
	for _, d := range snap.Security[rec] {
		f := finding{Severity: string(d.Severity), Code: d.Code, Message: d.Message, Line: d.Line, File: d.Path}
		if d.Path != "" {
			rel := d.Path
			if filepath.IsAbs(d.Path) {
				if x, err := filepath.Rel(dir, d.Path); err == nil && filepath.IsLocal(x) {
					rel = filepath.ToSlash(x)
				} else if x, err := filepath.Rel(rec.Dir, d.Path); err == nil && filepath.IsLocal(x) {
					rel = filepath.ToSlash(x)
				} else {
					rel = ""
				}
			}
			if rel != "" {
				f.File = rel
				f.URL = skillURL(rec.ID) + "/file/" + manifest.EscapePath(rel)
				if d.Line > 0 {
					f.URL += "#L" + strconv.Itoa(d.Line)
				}
			}
		}
		out = append(out, f)
	}
	return out
}

// frontmatter lists the frontmatter of a SKILL.md as keys and values, in
// key order; values that are not text are written as JSON.
func frontmatter(data []byte) ([]keyValue, string) {
	h, err := skillmd.ReadHead(bytes.NewReader(data))
	if errors.Is(err, skillmd.ErrNoFrontmatter) {
		return nil, "The file has no frontmatter."
	}
	if err != nil {
		return nil, "The frontmatter could not be read: " + err.Error()
	}
	m, err := skillmd.FrontmatterData(h)
	if err != nil {
		return nil, "The frontmatter could not be read: " + err.Error()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]keyValue, 0, len(keys))
	for _, k := range keys {
		v, ok := m[k].(string)
		if !ok {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false) // the template escapes it
			enc.SetIndent("", "  ")
			_ = enc.Encode(m[k])
			v = strings.TrimSuffix(b.String(), "\n")
		}
		out = append(out, keyValue{k, v})
	}
	return out, ""
}

// fileRows lists the files of rec from its manifest (package manifest, the
// one model of a skill's files): path, size and digest, and whether its
// bytes are text (isText, as the file view and /raw decide).
func (s *server) fileRows(snap *pipeline.Snapshot, rec *pipeline.Record) ([]fileRow, error) {
	m, err := s.files.Build(rec.FilesDir())
	if err != nil {
		return nil, err
	}
	base := skillURL(rec.ID)
	out := make([]fileRow, 0, len(m.Files))
	for _, f := range m.Files {
		fr := fileRow{Path: f.Path, Link: f.Link, Size: f.Size, Digest: f.Digest}
		if !f.IsLink() {
			fr.Short = strings.TrimPrefix(f.Digest, "sha256:")
			if len(fr.Short) > 12 {
				fr.Short = fr.Short[:12] + "…"
			}
			fr.View = base + "/file/" + manifest.EscapePath(f.Path)
			fr.Raw = base + "/raw/" + manifest.EscapePath(f.Path)
			fr.Binary = !s.text.of(f.Digest, func() ([]byte, error) { return s.read(snap, rec, f.Path) })
		}
		out = append(out, fr)
	}
	return out, nil
}

// readFile reads the file of the request's {path} of the skill, or answers
// the error: 404 for a file the skill does not have, 403 for a path that
// leads out of it or a skill the server does not serve (hidden or
// disabled: /mcp does not serve its files, nor does the page).
func (s *server) readFile(w http.ResponseWriter, r *http.Request) (*row, string, []byte, bool) {
	snap, w0, ok := s.record(w, r)
	if !ok {
		return nil, "", nil, false
	}
	if w0.State != stateServed {
		s.fail(w, http.StatusForbidden, "Not served", fmt.Sprintf("The server does not serve the skill %s, so it does not show its files.", w0.ID))
		return nil, "", nil, false
	}
	rel := r.PathValue("path")
	data, err := s.read(snap, w0.rec, rel)
	switch {
	case err == nil:
		return w0, rel, data, true
	case errors.Is(err, manifest.ErrOutside):
		s.fail(w, http.StatusForbidden, "Outside the skill", "The path leads outside the skill's folder.")
	case errors.Is(err, fs.ErrNotExist):
		s.fail(w, http.StatusNotFound, "No such file", fmt.Sprintf("The skill %s has no file %q.", w0.ID, rel))
	default:
		var big *manifest.TooLargeError
		if errors.As(err, &big) {
			s.fail(w, http.StatusRequestEntityTooLarge, "File too large", "The file is over the size the server serves.")
			return nil, "", nil, false
		}
		s.fail(w, http.StatusNotFound, "File not served", err.Error())
	}
	return nil, "", nil, false
}

// isText reports whether data is text the page can show: UTF-8 without
// NUL bytes. It is the page's one decision of text against binary, from
// the bytes, never the name: the file list (through textVerdicts), the
// file view and /raw all make it.
func isText(data []byte) bool { return utf8.Valid(data) && bytes.IndexByte(data, 0) < 0 }

// maxVerdicts bounds textVerdicts: past it, the verdicts kept are
// forgotten and made again as pages are asked for.
const maxVerdicts = 50_000

// textVerdicts keeps isText of the files the skill pages list, by their
// digest, so that a page lists its files without reading them again.
type textVerdicts struct {
	mu   sync.Mutex
	text map[string]bool // digest -> isText
}

// of returns whether the file whose manifest digest is digest is text,
// reading it (read) when no verdict on those bytes is kept. A file that
// cannot be read (over the size served, or not what a gate judged) is
// not text: the list offers it as a download, which answers why not.
func (v *textVerdicts) of(digest string, read func() ([]byte, error)) bool {
	v.mu.Lock()
	t, ok := v.text[digest]
	v.mu.Unlock()
	if ok {
		return t
	}
	data, err := read()
	if err != nil {
		return false
	}
	t = isText(data)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.text == nil || len(v.text) >= maxVerdicts {
		v.text = map[string]bool{}
	}
	v.text[manifest.Digest(data)] = t // the bytes read, should the file have changed since its manifest
	return t
}

// file serves /skill/{id}/file/{path...}: the file as text in a page.
func (s *server) file(w http.ResponseWriter, r *http.Request) {
	w0, rel, data, ok := s.readFile(w, r)
	if !ok {
		return
	}
	base := skillURL(w0.ID)
	s.render(w, http.StatusOK, "filepage", struct {
		page
		Row               *row
		Path, Digest, Raw string
		Text              string
		Lines             []string
		Size              int
		Binary            bool
	}{page: page{Title: s.opts.Title, Heading: rel + " · " + w0.Name, Page: "file"}, Row: w0, Path: rel,
		Digest: manifest.Digest(data), Raw: base + "/raw/" + manifest.EscapePath(rel), Text: string(data), Size: len(data),
		Binary: !isText(data), Lines: lines(data)})
}

// raw serves /skill/{id}/raw/{path...}: the bytes, as text/plain when they
// are text (never as HTML or script the browser would run), else as a
// download. An image is served as itself, for the Markdown's images.
func (s *server) raw(w http.ResponseWriter, r *http.Request) {
	_, rel, data, ok := s.readFile(w, r)
	if !ok {
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	name := path.Base(rel)
	switch ext := strings.ToLower(path.Ext(rel)); {
	case rasterImage[ext] != "":
		h.Set("Content-Type", rasterImage[ext])
	case isText(data):
		h.Set("Content-Type", "text/plain; charset=utf-8")
	default:
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", "attachment; filename*=UTF-8''"+url.PathEscape(name))
	}
	_, _ = w.Write(data)
}

// rasterImage are the image types /raw/ serves as themselves, so that a
// skill's Markdown can show its images; SVG, which can hold script, is not
// one of them.
var rasterImage = map[string]string{".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".ico": "image/x-icon"}

// maxLines is the most lines a file view numbers (each an anchor, #L12,
// that a finding links to); a longer file is shown as one text.
const maxLines = 20000

// lines splits text into its lines, each with its newline, for the file
// view; nil when there are too many.
func lines(data []byte) []string {
	if !isText(data) || bytes.Count(data, []byte{'\n'}) > maxLines {
		return nil
	}
	return strings.SplitAfter(string(data), "\n")
}
