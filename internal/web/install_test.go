package web

import (
	"html"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// installOf is the install command a skill page shows, "" when none.
func installOf(page string) string {
	m := regexp.MustCompile(`<code id="install">([^<]*)</code>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestInstallCommandOfAReaderElsewhere: the skill page's install command
// works where its reader is. ccski ui's reader on the server's machine (a
// loopback Host, no proxy) is given the skill's folder, a server's reader
// there the server at that address; a reader at an origin the
// server is reached by (mcp.allowed_origins) the command that installs it
// from this server (its MCP endpoint narrowed to the skill, or its
// well-known index and name without one); any other reader, and any
// skill the server does not serve, none: never a path on the server's
// disk.
func TestInstallCommandOfAReaderElsewhere(t *testing.T) {
	src, dir := fixture(t, 0)
	for _, r := range src.snap.All {
		r.SkillPath = r.Agent + "/" + r.ShortName()
	}
	folder := filepath.Join(dir, "skills", "pdf")
	origins := []string{"http://other.example", "https://skills.example.com/"}
	for _, tc := range []struct {
		name, host, id string
		public         Public
		want           string
	}{
		{"ccski ui's reader on loopback: the folder", "127.0.0.1:19100", "claude:pdf", Public{Local: true, Origins: origins, MCP: "/mcp"},
			"ccski install " + folder},
		{"a server's reader on loopback: the server there", "localhost:19100", "claude:pdf", Public{Origins: origins, MCP: "/mcp"},
			"ccski install mcp+http://localhost:19100/mcp#claude/pdf"},
		{"loopback through a proxy: none", "127.0.0.1:19100", "claude:pdf", Public{Local: true, Origins: origins, MCP: "/mcp"}, ""},
		{"allowed origin: the MCP server", "skills.example.com", "claude:pdf", Public{Origins: origins, MCP: "/mcp"},
			"ccski install mcp+https://skills.example.com/mcp#claude/pdf"},
		{"allowed origin, another case", "Skills.Example.COM", "claude:pdf", Public{Origins: origins, MCP: "/mcp"},
			"ccski install mcp+https://skills.example.com/mcp#claude/pdf"},
		{"sse: the well-known index", "skills.example.com", "claude:pdf", Public{Origins: origins},
			"ccski install https://skills.example.com/.well-known/agent-skills/index.json pdf"},
		{"a Host nobody allowed: none", "10.0.0.7:8080", "claude:pdf", Public{Origins: origins, MCP: "/mcp"}, ""},
		{"no origins: none", "skills.example.com", "claude:pdf", Public{MCP: "/mcp"}, ""},
		{"a hidden skill is not served: none", "skills.example.com", "codex:pdf", Public{Origins: origins, MCP: "/mcp"}, ""},
		{"a Claude Code plugin's skill: its marketplace", "skills.example.com", "claude:evil", Public{Origins: origins},
			`ccski install m '<script>alert('\''name'\'')</script>'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := Handler(src, Options{Facts: NewFacts(FactsConfig{Snapshot: src.Snapshot}), Public: tc.public})
			req := httptest.NewRequest(http.MethodGet, skillURL(tc.id), nil)
			req.Host = tc.host
			if strings.Contains(tc.name, "proxy") {
				req.Header.Set("X-Forwarded-For", "203.0.113.9")
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			page := rec.Body.String()
			if got := installOf(page); got != tc.want {
				t.Errorf("install = %q, want %q", got, tc.want)
			}
			if tc.want == "" && strings.Contains(installOf(page), dir) {
				t.Errorf("a reader elsewhere is shown a path of the server's disk")
			}
		})
	}
}
