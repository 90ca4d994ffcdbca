package web

import (
	"html/template"
	"net/http"
)

// server holds what every route reads.
type server struct {
	src  Source
	opts Options
}

func newServer(src Source, o Options) *server { return &server{src: src, opts: o} }

// routes returns the page's mux, every response carrying the security
// headers.
func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.catalogue)
	return headers(mux)
}

// csp is the Content-Security-Policy of every response: the page's own
// script and style only, nothing from elsewhere, no inline script.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets the security headers on every response.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

var minimal = template.Must(template.New("c").Parse(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title></head>
<body><h1>{{.Title}}</h1><input id="q" type="search" autofocus><p id="count">{{len .Skills}}</p><ul id="skills">
{{range .Skills}}<li class="skill" data-id="{{.ID}}"><a class="name" href="/skill/{{.ID}}">{{.Name}}</a> <span class="desc">{{.Description}}</span> <span class="provider">{{.Agent}}</span></li>
{{end}}</ul></body></html>`))

func (s *server) catalogue(w http.ResponseWriter, r *http.Request) {
	snap := s.src.Snapshot()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = minimal.Execute(w, map[string]any{"Title": s.opts.Title, "Skills": snap.Skills()})
}
