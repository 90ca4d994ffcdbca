package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// fakeSource serves a fixed snapshot; its search keeps the visible skills
// whose name or description holds every word, in priority order (the
// server's ranking is mcp's, tested there and in integration).
type fakeSource struct {
	snap     *pipeline.Snapshot
	searched []string
}

func (f *fakeSource) Snapshot() *pipeline.Snapshot { return f.snap }

func (f *fakeSource) Search(_ context.Context, q string, limit int) ([]string, error) {
	f.searched = append(f.searched, q)
	var ids []string
	words := strings.Fields(strings.ToLower(q))
	for _, r := range f.snap.Skills() {
		if holdsEvery(strings.ToLower(r.Name+" "+r.Description), words) && len(ids) < limit {
			ids = append(ids, r.ID)
		}
	}
	return ids, nil
}

func holdsEvery(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// hostileMD is a SKILL.md written to attack the page.
const hostileMD = `---
name: evil
description: "<script>alert('desc')</script> steals"
metadata:
  note: "<img src=x onerror=alert('front')>"
---
# Evil <script>alert('h1')</script>

<script>alert('block')</script>

<div onclick="alert('div')">raw block</div>

Inline <img src=x onerror="alert('inline')"> and <a href="javascript:alert('a')">a tag</a>.

[click](javascript:alert('link')) [data](data:text/html,<script>alert(1)</script>) [vb](vbscript:msgbox)
[out](../../secret.txt) [abs](/etc/passwd) [proto](//evil.example/x) [ok](references/guide.md) [web](https://example.com/x "t")

<javascript:alert('auto')> [ent](jav&#x61;script:alert('ent')) [up](JAVASCRIPT:alert('up')) [ref][r] [sp]( javascript:alert('sp'))

[r]: javascript:alert('ref')

![remote](https://evil.example/track.png) ![local](assets/logo.png) ![svg](data:image/svg+xml,<svg onload=alert(1)>)
`

const guideMD = "---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\n\n| tool | use |\n|:---|---:|\n| pdftk | fill |\n\n```sh\npdftk in.pdf fill_form data.fdf output out.pdf\n```\n"

// fixture is a snapshot of a few skills on disk: pdf (with a reference, a
// binary and a symlink leading out), evil (hostile), a hidden and a
// disabled copy, and n extra visible skills without files.
func fixture(t testing.TB, n int) (*fakeSource, string) {
	dir := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("secret.txt", "TOP-SECRET")
	write("skills/pdf/SKILL.md", guideMD)
	write("skills/pdf/references/guide.md", "# Guide\nline two\n")
	write("skills/pdf/assets/logo.png", "\x89PNG\r\n\x1a\n\x00\x00binary")
	write("skills/pdf/.git/config", "[core]\nSECRET-GIT\n")
	if err := os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "skills/pdf/leak.txt")); err != nil {
		t.Fatal(err)
	}
	write("skills/evil/SKILL.md", hostileMD)
	write("skills/evil/references/guide.md", "ok")
	write("skills/old/.SKILL.md", "---\nname: old\ndescription: an old skill\n---\nold body\n")
	write("skills/dup/SKILL.md", "---\nname: pdf\ndescription: another pdf\n---\nbody\n")

	rec := func(id, name, desc, sub string) *pipeline.Record {
		d := filepath.Join(dir, "skills", sub)
		return &pipeline.Record{ID: id, Name: name, Description: desc, Agent: "claude", Location: pipeline.LocationUser,
			Dir: d, RealDir: d, File: filepath.Join(d, "SKILL.md")}
	}
	pdf := rec("claude:pdf", "pdf", "Fill PDF forms", "pdf")
	evil := rec("claude:evil", `<script>alert('name')</script>`, `<img src=x onerror=alert('d')> steals`, "evil")
	evil.Plugin = &pipeline.PluginInfo{Plugin: `"><script>alert('plugin')</script>`, Marketplace: "m"}
	old := rec("claude:old", "old", "an old skill", "old")
	old.Disabled, old.File = true, filepath.Join(old.Dir, ".SKILL.md")
	dup := rec("codex:pdf", "pdf", "another pdf", "dup")
	dup.Agent = "codex"
	visible := []*pipeline.Record{pdf, evil}
	for i := range n {
		r := rec(fmt.Sprintf("agents:s%06d", i), fmt.Sprintf("s%06d", i), fmt.Sprintf("extra skill number %d", i), "none")
		r.Agent = "agents"
		visible = append(visible, r)
	}
	all := append([]*pipeline.Record{old, dup}, visible...)
	drops := []pipeline.Drop{
		{Record: old, Stage: "state", Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`},
		{Record: dup, Stage: "include", Reason: "shadowed by claude:pdf <b>higher</b>", By: pdf},
	}
	snap := pipeline.NewSnapshot(all, visible, drops, nil, nil)
	snap.Security = map[*pipeline.Record][]pipeline.Diagnostic{
		evil: {{Severity: pipeline.SeverityError, Code: "SEC001", Path: filepath.Join(evil.Dir, "SKILL.md"), Line: 7,
			Message: "<script> in Markdown"}},
	}
	return &fakeSource{snap: snap}, dir
}

// get runs one request through the handler.
func get(t testing.TB, h http.Handler, target string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func TestHeadersOnEveryRoute(t *testing.T) {
	src, _ := fixture(t, 0)
	h := Handler(src, Options{})
	for _, tc := range []struct {
		target string
		code   int
		ctype  string
	}{
		{"/", 200, "text/html; charset=utf-8"},
		{"/?q=pdf&provider=claude", 200, "text/html; charset=utf-8"},
		{"/ui/skills.json", 200, "application/json"},
		{"/ui/app.js", 200, "text/javascript; charset=utf-8"},
		{"/ui/app.css", 200, "text/css; charset=utf-8"},
		{"/skill/claude:pdf", 200, "text/html; charset=utf-8"},
		{"/skill/claude:pdf/file/references/guide.md", 200, "text/html; charset=utf-8"},
		{"/skill/claude:pdf/raw/references/guide.md", 200, "text/plain; charset=utf-8"},
		{"/skill/claude:pdf/raw/assets/logo.png", 200, "image/png"},
		{"/skill/claude:pdf/raw/leak.txt", 403, "text/html; charset=utf-8"},
		{"/skill/claude:nope", 404, "text/html; charset=utf-8"},
		{"/skill/claude:pdf/file/nope.md", 404, "text/html; charset=utf-8"},
		{"/no/such/page", 404, "text/html; charset=utf-8"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			res, _ := get(t, h, tc.target)
			if res.StatusCode != tc.code {
				t.Errorf("status %d, want %d", res.StatusCode, tc.code)
			}
			for k, want := range map[string]string{"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff",
				"Referrer-Policy": "no-referrer", "Content-Type": tc.ctype, "X-Frame-Options": "DENY"} {
				if got := res.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
	if !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") {
		t.Errorf("the policy allows more than the page's own script: %s", csp)
	}
}

var (
	hrefAttr   = regexp.MustCompile(`(?i)\s(?:href|src|action|formaction)\s*=\s*"([^"]*)"`)
	eventAttr  = regexp.MustCompile(`(?i)<[a-z][^>]*\son[a-z]+\s*=`)
	scriptTag  = regexp.MustCompile(`(?i)<script\b[^>]*>`)
	styleAttr  = regexp.MustCompile(`(?i)<[a-z][^>]*\sstyle\s*=`)
	safeTarget = regexp.MustCompile(`^(/|#|https?://|mailto:|data:image/(png|gif|jpeg|webp);)`)
)

// assertSafe checks a page for what hostile content could make of it:
// any script element but the page's own, an event handler attribute, a
// style attribute, a URL of another scheme, a remote image.
func assertSafe(t *testing.T, page string) {
	t.Helper()
	if s := scriptTag.FindAllString(page, -1); len(s) != 1 || s[0] != `<script src="/ui/app.js" defer>` {
		t.Errorf("script elements %q, want only the page's own", s)
	}
	if m := eventAttr.FindString(page); m != "" {
		t.Errorf("an element with an event handler: %s", m)
	}
	if m := styleAttr.FindString(page); m != "" {
		t.Errorf("an element with a style attribute: %s", m)
	}
	for _, m := range hrefAttr.FindAllStringSubmatch(page, -1) {
		if !safeTarget.MatchString(m[1]) {
			t.Errorf("unsafe URL %q", m[1])
		}
		if strings.Contains(m[0], "src=") && !strings.HasPrefix(m[1], "/") {
			t.Errorf("an image or script from elsewhere: %q", m[0])
		}
	}
}

func TestHostileSkillIsEscaped(t *testing.T) {
	src, _ := fixture(t, 0)
	h := Handler(src, Options{Title: `<b>"Org"</b>`})
	_, page := get(t, h, "/skill/claude:evil")
	assertSafe(t, page)
	for _, want := range []string{
		`&lt;script&gt;alert(&#39;block&#39;)&lt;/script&gt;`, // a raw HTML block, as text
		`&lt;div onclick=&#34;alert(&#39;div&#39;)&#34;&gt;raw block&lt;/div&gt;`,
		`Inline &lt;img src=x onerror=&#34;alert(&#39;inline&#39;)&#34;&gt;`, // inline HTML, as text
		`click`, // a javascript: link is its text alone
		`<a href="/skill/claude:evil/file/references/guide.md" rel="noopener noreferrer nofollow">ok</a>`,
		`<a href="https://example.com/x" rel="noopener noreferrer nofollow" title="t">web</a>`,
		`<img src="/skill/claude:evil/raw/assets/logo.png" alt="local" loading="lazy">`,
		`&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;`, // the name
		`&lt;img src=x onerror=alert(&#39;front&#39;)&gt;`,   // a frontmatter value
		`<code class="rule">SEC001</code>`,
		`&lt;b&gt;&#34;Org&#34;&lt;/b&gt;`, // the title
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	for _, bad := range []string{"javascript:", "vbscript:", "evil.example", "data:text/html", "/etc/passwd", "secret.txt\"", "svg+xml"} {
		if strings.Contains(strings.ToLower(page), bad) && !strings.Contains(page, ">"+bad) {
			if regexp.MustCompile(`="[^"]*` + regexp.QuoteMeta(bad)).MatchString(page) {
				t.Errorf("an attribute holds %q", bad)
			}
		}
	}
	// The catalogue and the JSON carry the hostile names as data.
	_, list := get(t, h, "/")
	assertSafe(t, list)
	if !strings.Contains(list, `data-group="claude/&#34;&gt;&lt;script&gt;alert(&#39;plugin&#39;)&lt;/script&gt;"`) {
		t.Errorf("the plugin's group is not escaped in its attribute")
	}
	_, js := get(t, h, "/ui/skills.json?q=steals")
	if strings.Contains(js, "<script") || !strings.Contains(js, `\u003cscript\u003e`) {
		t.Errorf("the JSON does not escape markup: %s", js)
	}
	// The file view shows a hostile file as text.
	_, view := get(t, h, "/skill/claude:evil/file/SKILL.md")
	assertSafe(t, view)
	if !strings.Contains(view, `&lt;script&gt;alert(&#39;block&#39;)&lt;/script&gt;`) {
		t.Errorf("the file view does not show the file as text")
	}
}

func TestFileReadsStayInTheSkill(t *testing.T) {
	src, _ := fixture(t, 0)
	h := Handler(src, Options{})
	for _, target := range []string{
		"/skill/claude:pdf/file/../../secret.txt",
		"/skill/claude:pdf/raw/..%2F..%2Fsecret.txt",
		"/skill/claude:pdf/raw/%2e%2e/%2e%2e/secret.txt",
		"/skill/claude:pdf/raw/references/..%2f..%2f..%2fsecret.txt",
		"/skill/claude:pdf/raw/%2Fetc%2Fpasswd",
		"/skill/claude:pdf/raw//etc/passwd",
		"/skill/claude:pdf/raw/leak.txt", // a symlink leading out
		"/skill/claude:pdf/file/leak.txt",
		"/skill/claude:pdf/raw/.git/config", // never served, as in a manifest
		"/skill/claude:pdf/raw/references",  // a folder
		"/skill/claude:pdf/raw/",
		"/skill/claude:pdf/raw/a%00b",
		"/skill/..%2Fevil/raw/SKILL.md",
	} {
		t.Run(target, func(t *testing.T) {
			res, body := get(t, h, target)
			if res.StatusCode == http.StatusOK || strings.Contains(body, "TOP-SECRET") || strings.Contains(body, "SECRET-GIT") {
				t.Errorf("status %d, body %.200q: a read left the skill", res.StatusCode, body)
			}
		})
	}
	// A file inside is served, the binary as itself, the text as text.
	res, body := get(t, h, "/skill/claude:pdf/raw/references/guide.md")
	if res.StatusCode != 200 || body != "# Guide\nline two\n" {
		t.Errorf("guide.md: %d %q", res.StatusCode, body)
	}
	// An unknown binary is a download.
	dir := filepath.Dir(src.snap.Skills()[0].Dir)
	if err := os.WriteFile(filepath.Join(dir, "pdf", "data.bin"), []byte{0, 1, 2, 3}, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ = get(t, h, "/skill/claude:pdf/raw/data.bin")
	if res.Header.Get("Content-Type") != "application/octet-stream" || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") {
		t.Errorf("a binary is served as %q, %q", res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"))
	}
}

func TestSkillPage(t *testing.T) {
	src, _ := fixture(t, 0)
	h := Handler(src, Options{Facts: func(_ context.Context, r *pipeline.Record) Facts {
		return Facts{Origin: &Origin{Lock: "/home/u/.ccski/ccski.lock", Source: "github.com/acme/skills", Commit: "abc123"},
			Hosts:   []HostLoad{{Host: "claude", Loads: true, Switch: "on"}, {Host: "codex", Reason: "not in its folders"}},
			Install: "ccski install github.com/acme/skills --skill " + r.Name}
	}})
	res, page := get(t, h, "/skill/claude:pdf")
	if res.StatusCode != 200 {
		t.Fatalf("status %d", res.StatusCode)
	}
	assertSafe(t, page)
	for _, want := range []string{
		`<article id="readme" class="markdown"><h1>PDF</h1>`,
		`<th align="left">tool</th>`, `<td align="right">fill</td>`, // a GFM table
		`<pre><code class="language-sh">pdftk in.pdf fill_form data.fdf output out.pdf`,
		`<table id="frontmatter"`, `<th scope="row">description</th><td><pre class="value">Fill PDF forms</pre>`,
		`<tr data-path="references/guide.md"><td><a href="/skill/claude:pdf/file/references/guide.md">references/guide.md</a></td><td class="size">17</td>`,
		`<tr data-path="assets/logo.png">`, `href="/skill/claude:pdf/raw/assets/logo.png" download>download</a>`,
		`<tr data-path="leak.txt"><td>leak.txt <span class="file">→ `, // the link is listed, not served
		`id="origin"`, `github.com/acme/skills`, `<code>abc123</code>`,
		`id="hosts"`, `<tr data-host="codex"><td>codex</td><td>no: not in its folders</td>`,
		`<code id="install">ccski install github.com/acme/skills --skill pdf</code>`,
		`id="findings"`, `id="signature">unsigned`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(page, ".git/config") {
		t.Errorf("the files list .git")
	}
	// The digest is the file's SHA-256, as its manifest writes it.
	if !strings.Contains(page, `title="sha256:`) {
		t.Errorf("no digest")
	}
	// Findings with their lines, linked to the line of the file view.
	_, evil := get(t, h, "/skill/claude:evil")
	if !strings.Contains(evil, `<a href="/skill/claude:evil/file/SKILL.md#L7">SKILL.md</a></td><td class="line">7</td><td>&lt;script&gt; in Markdown</td>`) {
		t.Errorf("the finding is not shown with its file and line")
	}
	_, view := get(t, h, "/skill/claude:evil/file/SKILL.md")
	if !strings.Contains(view, `<span class="ln" id="L7">`) {
		t.Errorf("the file view has no line anchors")
	}
	// A disabled skill's page says why, and shows nothing of its files
	// (TestNotServedIsWithheld).
	_, old := get(t, h, "/skill/claude:old")
	if strings.Contains(old, "old body") || !strings.Contains(old, `<span class="badge disabled" title="disabled (its file is .SKILL.md)`) {
		t.Errorf("the disabled skill's page: %.300s", old)
	}
}

// TestNotServedIsWithheld: a skill the server does not serve (hidden by a
// filter, an include or exclude, the organisation's policy, or disabled)
// is listed by its name and why, and the page publishes nothing /mcp
// withholds: no description, body, frontmatter, files or findings, and
// its /file and /raw answer 403.
func TestNotServedIsWithheld(t *testing.T) {
	src, _ := fixture(t, 0)
	var facts int
	h := Handler(src, Options{Facts: func(context.Context, *pipeline.Record) Facts {
		facts++
		return Facts{Install: "ccski install /srv/skills/dup"}
	}})
	for _, id := range []string{"codex:pdf", "claude:old"} {
		res, page := get(t, h, "/skill/"+id)
		if res.StatusCode != http.StatusOK || !strings.Contains(page, `<p class="reason">Not served: `) || !strings.Contains(page, `id="withheld"`) {
			t.Errorf("%s: %d, the page does not say why it is not served: %.400s", id, res.StatusCode, page)
		}
		for _, bad := range []string{"another pdf", "an old skill", "old body", `id="readme"`, `id="frontmatter"`, `id="files"`,
			`id="findings"`, `id="install"`, "/srv/skills", "SKILL.md</a>"} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page of a skill not served shows %q", id, bad)
			}
		}
		for _, file := range []string{"SKILL.md", ".SKILL.md", "nope.md"} {
			for _, kind := range []string{"file", "raw"} {
				res, body := get(t, h, "/skill/"+id+"/"+kind+"/"+file)
				if res.StatusCode != http.StatusForbidden || strings.Contains(body, "description:") || strings.Contains(body, "old body") {
					t.Errorf("%s/%s/%s: %d %.200q, want 403", id, kind, file, res.StatusCode, body)
				}
			}
		}
	}
	if facts != 0 {
		t.Errorf("the facts of a skill not served were asked %d times", facts)
	}
	// Listed with its name and reason, not its description.
	_, list := get(t, h, "/?state=all")
	_, js := get(t, h, "/ui/skills.json?state=all")
	for _, page := range []string{list, js} {
		if !strings.Contains(page, "codex:pdf") || !strings.Contains(page, "shadowed by claude:pdf") {
			t.Errorf("a hidden skill is not listed with its reason: %.300s", page)
		}
		if strings.Contains(page, "another pdf") || strings.Contains(page, "an old skill") {
			t.Errorf("a description of a skill not served is listed")
		}
	}
	// Found by its name, not by its description.
	if _, page := get(t, h, "/?state=all&q=another"); len(idsOf(page)) != 0 {
		t.Errorf("a word of a hidden skill's description finds it: %v", idsOf(page))
	}
	if _, page := get(t, h, "/?state=hidden&q=pdf"); strings.Join(idsOf(page), ",") != "codex:pdf" {
		t.Errorf("a hidden skill's name does not find it: %v", idsOf(page))
	}
	// A served skill's files are still served.
	if res, _ := get(t, h, "/skill/claude:pdf/raw/SKILL.md"); res.StatusCode != http.StatusOK {
		t.Errorf("a served skill's SKILL.md: %d", res.StatusCode)
	}
}

// rows extracts the ids of the li.skill elements of a page.
var skillRow = regexp.MustCompile(`<li class="skill" data-id="([^"]*)"`)

func idsOf(page string) []string {
	var ids []string
	for _, m := range skillRow.FindAllStringSubmatch(page, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

func countOf(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<span id="count">(\d+)</span>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no #count")
	}
	return m[1]
}

func TestCatalogueFiltersAndSearch(t *testing.T) {
	src, _ := fixture(t, 3)
	h := Handler(src, Options{})
	for _, tc := range []struct {
		query string
		ids   []string
	}{
		{"", nil}, // the served skills
		{"?state=all", nil},
		{"?provider=claude", []string{"claude:pdf", "claude:evil"}}, // by plugin, then name
		{"?provider=claude&state=all", []string{"claude:old", "claude:pdf", "claude:evil"}},
		{"?state=served&provider=claude", []string{"claude:pdf", "claude:evil"}},
		{"?state=hidden", []string{"codex:pdf"}},
		{"?state=disabled", []string{"claude:old"}},
		{"?findings=yes", []string{"claude:evil"}},
		{"?findings=error", []string{"claude:evil"}},
		{"?signature=signed", nil},
		{"?q=pdf", []string{"claude:pdf"}},
		{"?q=pdf&state=all", []string{"claude:pdf", "codex:pdf"}}, // the search's, then the hidden copy
		{"?q=number+2", []string{"agents:s000002"}},
		{"?q=pdf&state=served", []string{"claude:pdf"}},
		{"?plugin=" + `%22%3E%3Cscript%3Ealert(%27plugin%27)%3C%2Fscript%3E`, []string{"claude:evil"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, page := get(t, h, "/"+tc.query)
			got := idsOf(page)
			switch tc.query {
			case "":
				if len(got) != 5 || countOf(t, page) != "5" {
					t.Errorf("got %v", got)
				}
				return
			case "?state=all":
				if len(got) != 7 || countOf(t, page) != "7" {
					t.Errorf("got %v", got)
				}
				return
			}
			if strings.Join(got, ",") != strings.Join(tc.ids, ",") || countOf(t, page) != fmt.Sprint(len(tc.ids)) {
				t.Errorf("got %v (count %s), want %v", got, countOf(t, page), tc.ids)
			}
			// The JSON answers the same view.
			var js struct {
				Count  int
				Skills []struct{ ID string }
			}
			_, body := get(t, h, "/ui/skills.json"+tc.query)
			if err := json.Unmarshal([]byte(body), &js); err != nil {
				t.Fatal(err)
			}
			if js.Count != len(tc.ids) || len(js.Skills) != len(tc.ids) {
				t.Errorf("json: %s", body)
			}
		})
	}
	if len(src.searched) == 0 {
		t.Errorf("a query did not go to the Source's search")
	}
	// The controls the script and the browser tests rely on.
	_, page := get(t, h, "/?q=pdf&state=served")
	for _, want := range []string{`<input id="q" name="q" type="search" value="pdf"`, `autofocus`, `<ul id="skills"`,
		`<section class="group" data-group="claude"><h2>claude</h2>`, `<select id="provider" name="provider">`,
		`<select id="plugin"`, `<select id="location"`, `<select id="state"`, `<option value="served" selected>served</option>`,
		`<select id="integrity"`, `<select id="signature"`, `<select id="findings"`, `<a class="name" href="/skill/claude:pdf">pdf</a>`,
		`<p class="desc">Fill PDF forms</p>`, `<span class="provider">claude</span>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the catalogue lacks %s", want)
		}
	}
	_, page = get(t, h, "/?state=hidden")
	if !strings.Contains(page, `<span class="badge hidden" title="shadowed by claude:pdf &lt;b&gt;higher&lt;/b&gt;">hidden</span>`) {
		t.Errorf("a hidden skill's badge does not say why")
	}
}

func TestCataloguePages(t *testing.T) {
	src, _ := fixture(t, 250)
	h := Handler(src, Options{})
	_, page := get(t, h, "/?provider=agents")
	ids := idsOf(page)
	if len(ids) != pageSize || ids[0] != "agents:s000000" || countOf(t, page) != "250" {
		t.Fatalf("first page: %d rows from %v, count %s", len(ids), ids[:1], countOf(t, page))
	}
	if !strings.Contains(page, `<a id="more" class="more" href="/?offset=100&amp;provider=agents" data-offset="100">`) {
		t.Errorf("no link to the next page")
	}
	_, page = get(t, h, "/?provider=agents&offset=200")
	if ids := idsOf(page); len(ids) != 50 || ids[0] != "agents:s000200" || strings.Contains(page, `id="more"`) {
		t.Errorf("last page: %d rows", len(ids))
	}
	var js struct {
		Count, Offset, Next int
		Skills              []row
	}
	_, body := get(t, h, "/ui/skills.json?provider=agents&offset=100&limit=120")
	if err := json.Unmarshal([]byte(body), &js); err != nil {
		t.Fatal(err)
	}
	if js.Count != 250 || js.Offset != 100 || js.Next != 220 || len(js.Skills) != 120 || js.Skills[0].ID != "agents:s000100" {
		t.Errorf("json page: count %d offset %d next %d rows %d", js.Count, js.Offset, js.Next, len(js.Skills))
	}
	if q := queryOf(url.Values{"limit": {"100000"}, "offset": {"-5"}}); q.Limit != maxLimit || q.Offset != 0 {
		t.Errorf("limit 100000, offset -5 read as %d, %d", q.Limit, q.Offset)
	}
}

// TestLargeCatalogueRendersOnePage: at 100,000 skills the first page holds
// one page of rows, never the whole list.
func TestLargeCatalogueRendersOnePage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 100,000 records")
	}
	src, _ := fixture(t, 100_000)
	_, page := get(t, Handler(src, Options{}), "/")
	if n := len(idsOf(page)); n != pageSize || countOf(t, page) != "100002" {
		t.Errorf("%d rows, count %s", n, countOf(t, page))
	}
	if len(page) > 200<<10 {
		t.Errorf("the first page is %d KiB", len(page)>>10)
	}
}

// BenchmarkFirstPaint100k is the time and memory of the catalogue's first
// page at 100,000 skills, once the snapshot's catalogue is built (its
// first request builds it: BenchmarkCatalogueBuild100k).
func BenchmarkFirstPaint100k(b *testing.B) {
	src, _ := fixture(b, 100_000)
	h := Handler(src, Options{})
	get(b, h, "/")
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		get(b, h, "/")
	}
	reportCPU(b, start)
}

// BenchmarkFirstPaintCold100k is the first request after a new snapshot
// at 100,000 skills: the list built, then the first page rendered.
func BenchmarkFirstPaintCold100k(b *testing.B) {
	src, _ := fixture(b, 100_000)
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		get(b, Handler(src, Options{}), "/")
	}
	reportCPU(b, start)
}

func BenchmarkCatalogueBuild100k(b *testing.B) {
	src, _ := fixture(b, 100_000)
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		buildCatalogue(src.snap)
	}
	reportCPU(b, start)
}

// TestBinaryDecidedByContent: the file list offers a file as a download
// or a view by its bytes, as the file view and /raw decide, whatever its
// name: an extensionless executable is a download, a text file named
// .bin or .dat a view.
func TestBinaryDecidedByContent(t *testing.T) {
	src, _ := fixture(t, 0)
	dir := src.snap.Skills()[0].Dir
	for name, data := range map[string]string{"tool": "\x7fELF\x02\x01\x01\x00\x00\x00", "data.dat": "a,b\n1,2\n", "notes.bin": "plain text\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := Handler(src, Options{})
	_, page := get(t, h, "/skill/claude:pdf")
	for name, binary := range map[string]bool{"tool": true, "data.dat": false, "notes.bin": false, "assets/logo.png": true, "SKILL.md": false} {
		download := strings.Contains(page, `href="/skill/claude:pdf/raw/`+name+`" download>download</a>`)
		if download != binary {
			t.Errorf("%s listed as a download: %v, want %v", name, download, binary)
		}
		_, view := get(t, h, "/skill/claude:pdf/file/"+name)
		if shown := strings.Contains(view, `<pre id="file"`); shown == binary {
			t.Errorf("%s shown as text by its view: %v, want %v", name, shown, !binary)
		}
		res, _ := get(t, h, "/skill/claude:pdf/raw/"+name)
		if attached := strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment"); attached != (binary && name != "assets/logo.png") {
			t.Errorf("%s served by /raw as an attachment: %v", name, attached)
		}
	}
}
