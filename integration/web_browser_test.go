// The web catalogue (issue 28) in a real browser: `ccski mcp --transport
// http` serves `GET /` on the synthetic machine, and a headless Chromium
// (internal/browsertest) reads it as a person does: the list, search as
// you type and its deep link, a filter, the keyboard, a skill page's
// rendered SKILL.md, a hostile SKILL.md whose script must not run, the
// token cookie, dark and light. With -update, the screenshots under
// docs/img (the README's picture of the page) are written from this run.
// The selectors are the DOM contract of internal/web.
package integration

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/browsertest"
)

// webWait bounds each wait for the page (a broken page fails instead of
// hanging); it is not a timing assertion.
const webWait = 20 * time.Second

// tablesSkill is a skill of the custom folder whose SKILL.md has a GFM
// table and a fenced code block.
const (
	tablesName = "ledger-tables"
	tablesID   = "custom:docs:ledger-tables"
	tablesBody = "# Quarterly ledger\n\nThe figures of each quarter:\n\n" +
		"| quarter | revenue | cost |\n|---|--:|--:|\n| Q1 | 1,200 | 800 |\n| Q2 | 1,450 | 910 |\n\n" +
		"Run the check:\n\n```go\nfunc balance(rows []Row) int { return sum(rows) }\n```\n"
)

// webMachine is the synthetic machine with the tables skill in its custom
// folder.
func webMachine(t *testing.T) *machine.Machine {
	t.Helper()
	m := newMachine(t)
	writeSkill(t, filepath.Join(m.DocsDir, tablesName), tablesName, "Renders the quarterly ledger as a table, with the code that checks it.", tablesBody)
	return m
}

// startWeb starts `ccski mcp --transport http` on m and returns its base
// URL.
func startWeb(t *testing.T, m *machine.Machine, extraEnv map[string]string) string {
	t.Helper()
	return startHTTP(t, m, extraEnv, "--transport", "http", "--no-refresh").base
}

// webPage is one browser tab on a ccski web page.
type webPage struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// newWebPage opens a tab of b, in a browser context of its own (no
// cookies shared with other tabs), on the server at base.
func newWebPage(t *testing.T, b *browsertest.Browser, base string) *webPage {
	t.Helper()
	ctx, cancel, err := b.NewTab()
	if err != nil {
		t.Fatalf("opening a tab: %v\n%s", err, b.Output())
	}
	t.Cleanup(cancel)
	return &webPage{t: t, ctx: ctx, base: base}
}

// do runs actions on the tab and fails the test on an error.
func (p *webPage) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, webWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// js evaluates expr in the page and decodes its value into T. Runtime
// evaluation is the debugger's: the page's Content-Security-Policy does
// not apply to it, so it also reads markers a blocked script would have
// set.
func js[T any](p *webPage, expr string, opts ...chromedp.EvaluateOption) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, webWait)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, opts...))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// until evaluates expr (which must give a boolean) until it is true. It
// polls from Go rather than with chromedp.Poll, whose predicate is built
// with new Function, which the page's policy forbids.
func (p *webPage) until(what, expr string) {
	p.t.Helper()
	deadline := time.Now().Add(webWait)
	for {
		ctx, cancel := context.WithTimeout(p.ctx, webWait)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		cancel()
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %s never held (last error %v); the page:\n%s", what, expr, err, p.text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// text is the page's visible text, for failure messages.
func (p *webPage) text() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : document.documentElement.outerHTML`))
	if err != nil {
		return err.Error()
	}
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	return s
}

// open loads path and waits until the page's script has wired it
// (body[data-ready="1"]).
func (p *webPage) open(path string) {
	p.t.Helper()
	p.do("opening "+path, chromedp.Navigate(p.base+path))
	p.waitReady()
}

func (p *webPage) waitReady() {
	p.t.Helper()
	p.until("the page's script", `document.body !== null && document.body.dataset.ready === "1"`)
}

// updated is body[data-updated], the number of list updates so far.
func (p *webPage) updated() int {
	p.t.Helper()
	return js[int](p, `Number(document.body.dataset.updated || 0)`)
}

// waitUpdated waits for a list update after the before'th.
func (p *webPage) waitUpdated(before int) {
	p.t.Helper()
	p.until("a list update", fmt.Sprintf(`Number(document.body.dataset.updated || 0) > %d`, before))
}

// shown is the sorted data-id of every li.skill of the list.
func (p *webPage) shown() []string {
	p.t.Helper()
	ids := js[[]string](p, `Array.from(document.querySelectorAll("ul#skills li.skill"), li => li.dataset.id)`)
	slices.Sort(ids)
	return ids
}

// layout is the list as shown, in order: "[group]" for each section's
// data-group, then the data-id of each of its skills.
func (p *webPage) layout() []string {
	p.t.Helper()
	return js[[]string](p, `Array.from(document.querySelectorAll("ul#skills section.group, ul#skills li.skill"),
		e => e.matches("section") ? "[" + e.dataset.group + "]" : e.dataset.id)`)
}

// count is the number #count shows.
func (p *webPage) count() int {
	p.t.Helper()
	s := js[string](p, `(document.querySelector("#count") || {}).textContent || ""`)
	digits := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
	n, err := strconv.Atoi(digits)
	if err != nil {
		p.t.Fatalf("#count holds %q, not a number", s)
	}
	return n
}

// path is the page's location without the origin.
func (p *webPage) path() string {
	p.t.Helper()
	return js[string](p, `location.pathname + location.search`)
}

// listedIDs is the ids `ccski list --json` prints on m: what the catalogue
// shows by default.
func listedIDs(t *testing.T, m *machine.Machine) []string { return ids(listRecords(t, m)) }

func TestWebBrowserCatalogue(t *testing.T) {
	m := webMachine(t)
	recs := listRecords(t, m) // the served skills
	want := ids(recs)
	all := listRecords(t, m, "--all") // with the hidden ones
	base := startWeb(t, m, nil)
	b := browsertest.New(t)
	p := newWebPage(t, b, base)

	t.Run("list", func(t *testing.T) {
		p.t = t
		// By default the catalogue shows the served skills: what list
		// --json prints.
		p.open("/")
		if diff := cmp.Diff(want, p.shown()); diff != "" {
			t.Errorf("the list's skills against list --json (-want +got):\n%s", diff)
		}
		if got := p.count(); got != len(want) {
			t.Errorf("#count %d, want %d", got, len(want))
		}
		// The controls and parts of each row the DOM contract names.
		for _, sel := range []string{`input#q[type=search][autofocus]`, `select#provider`, `select#plugin`, `select#location`,
			`select#state`, `select#integrity`, `select#signature`, `select#findings`} {
			if js[int](p, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)) != 1 {
				t.Errorf("no %s", sel)
			}
		}
		if n := js[int](p, `Array.from(document.querySelectorAll("li.skill")).filter(li => !li.querySelector(".desc") || !li.querySelector(".provider")).length`); n != 0 {
			t.Errorf("%d li.skill without .desc or .provider", n)
		}
		names := js[[]string](p, `Array.from(document.querySelectorAll("li.skill a.name"), a => a.textContent.trim())`)
		for _, r := range recs {
			if !slices.Contains(names, r.Name) {
				t.Errorf("no a.name reads %q (%s); names: %q", r.Name, r.ID, names)
			}
		}
		hrefs := js[[]string](p, `Array.from(document.querySelectorAll("li.skill"), li => li.dataset.id + " " + new URL(li.querySelector("a.name").href).pathname)`)
		for _, h := range hrefs {
			id, path, _ := strings.Cut(h, " ")
			if want := "/skill/" + url.PathEscape(id); path != want {
				t.Errorf("%s links to %s, want %s", id, path, want)
			}
		}
		groups := js[int](p, `document.querySelectorAll("section.group[data-group] > h2").length`)
		if groups < 2 {
			t.Errorf("%d provider groups (section.group > h2); the machine has several providers", groups)
		}

		// state=all adds the hidden and disabled ones, each with a badge
		// giving the reason in its title, and nothing of its content: no
		// description (the server does not serve them).
		p.open("/?state=all")
		if diff := cmp.Diff(ids(all), p.shown()); diff != "" {
			t.Errorf("/?state=all against list --json --all (-want +got):\n%s", diff)
		}
		var dropped []string
		for _, r := range all {
			if slices.Contains(want, r.ID) {
				continue
			}
			dropped = append(dropped, r.ID)
			badges := js[[]string](p, fmt.Sprintf(`Array.from(document.querySelectorAll('li.skill[data-id=%q] .badge'), b => b.textContent.trim() + "=" + (b.title || ""))`, r.ID))
			if !slices.ContainsFunc(badges, func(b string) bool {
				label, reason, _ := strings.Cut(b, "=")
				return (label == "hidden" || label == "disabled") && reason != ""
			}) {
				t.Errorf("%s, not served, has no hidden or disabled badge with its reason: %q", r.ID, badges)
			}
			if desc := js[string](p, fmt.Sprintf(`(document.querySelector('li.skill[data-id=%q] .desc') || {}).textContent || ""`, r.ID)); r.Description != "" && strings.Contains(desc, r.Description) {
				t.Errorf("%s, not served, is listed with its description %q", r.ID, desc)
			}
		}
		if len(dropped) == 0 {
			t.Fatalf("the machine has no hidden or disabled skill; the test needs one")
		}
		// The page of one says why it is not served, and shows neither
		// its SKILL.md, its frontmatter nor its files, which answer 403.
		id := dropped[0]
		p.open("/skill/" + url.PathEscape(id))
		if got := js[string](p, `[document.querySelectorAll("#withheld, p.reason").length, document.querySelectorAll("article#readme, table#frontmatter, table#files").length].join(",")`); got != "2,0" {
			t.Errorf("the page of %s, not served: #withheld and p.reason, article#readme, table#frontmatter and table#files: %s", id, got)
		}
		for _, kind := range []string{"raw", "file"} {
			code := js[int](p, fmt.Sprintf(`(() => { const x = new XMLHttpRequest(); x.open("GET", %q, false); x.send(); return x.status })()`, "/skill/"+url.PathEscape(id)+"/"+kind+"/SKILL.md"))
			if code != 403 {
				t.Errorf("/%s/SKILL.md of %s, not served: %d, want 403", kind, id, code)
			}
		}
	})

	// The words "notes" match three skills by name (TestSearch).
	const word = "notes"
	search := run(t, m, "search", word, "--json", "--content", "--limit=0")
	mustOK(t, search)
	var hits []record
	decodeOnly(t, search, &hits)
	wantHits := ids(hits)
	if len(wantHits) == 0 || len(wantHits) >= len(want) {
		t.Fatalf("search %s gave %d of %d skills; the test needs a word that narrows the list", word, len(wantHits), len(want))
	}

	t.Run("search as you type", func(t *testing.T) {
		p.t = t
		p.open("/")
		before := p.updated()
		p.do("typing in #q", chromedp.SendKeys(chromedp.CSS("input#q"), word))
		p.waitUpdated(before)
		// The search runs once typing pauses (a debounce), so on a slow
		// machine it may first run for part of the word: wait for the
		// whole word's view.
		p.until("the list narrowed", fmt.Sprintf(`new URLSearchParams(location.search).get("q") === %q && document.querySelectorAll("ul#skills li.skill").length === %d`, word, len(wantHits)))
		if diff := cmp.Diff(wantHits, p.shown()); diff != "" {
			t.Errorf("typing %q: the list against ccski search (-want +got):\n%s", word, diff)
		}
		if got := p.count(); got != len(wantHits) {
			t.Errorf("#count %d after typing, want %d", got, len(wantHits))
		}
		view := url.Values{"q": {word}}
		if got := p.path(); !strings.HasPrefix(got, "/?") || !sameQuery(got[2:], view) {
			t.Errorf("the URL after typing is %s, want /?%s", got, view.Encode())
		}

		// The deep link reproduces the view.
		deep := newWebPage(t, b, base)
		deep.open("/?" + view.Encode())
		if diff := cmp.Diff(wantHits, deep.shown()); diff != "" {
			t.Errorf("/?%s (-want +got):\n%s", view.Encode(), diff)
		}
		// In the same order and sections: the script groups the ranked
		// rows by the server's rule.
		if diff := cmp.Diff(deep.layout(), p.layout()); diff != "" {
			t.Errorf("typing %q and /?%s show the list in another order or grouping (-deep link +typed):\n%s", word, view.Encode(), diff)
		}
		if got := js[string](deep, `document.querySelector("input#q").value`); got != word {
			t.Errorf("/?%s: #q holds %q", view.Encode(), got)
		}
	})

	t.Run("filter", func(t *testing.T) {
		p.t = t
		provider, wantIDs := narrowestProvider(recs)
		p.open("/")
		options := js[[]string](p, `Array.from(document.querySelectorAll("select#provider option"), o => o.value)`)
		if !slices.Contains(options, provider) {
			t.Fatalf("select#provider has no option %q: %q", provider, options)
		}
		before := p.updated()
		p.do("choosing a provider", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
			`(() => { const s = document.querySelector("select#provider"); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); })()`, provider)))
		p.waitUpdated(before)
		if diff := cmp.Diff(wantIDs, p.shown()); diff != "" {
			t.Errorf("provider %s (-want +got):\n%s", provider, diff)
		}
		q := url.Values{"provider": {provider}}.Encode()
		if got := p.path(); !strings.HasPrefix(got, "/?") || !sameQuery(got[2:], url.Values{"provider": {provider}}) {
			t.Errorf("the URL after the filter is %s, want /?%s", got, q)
		}
		deep := newWebPage(t, b, base)
		deep.open("/?" + q)
		if diff := cmp.Diff(wantIDs, deep.shown()); diff != "" {
			t.Errorf("/?%s (-want +got):\n%s", q, diff)
		}
	})

	t.Run("keyboard", func(t *testing.T) {
		p.t = t
		p.open("/")
		p.do("leaving the search box", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
		if got := js[string](p, `document.activeElement ? document.activeElement.id : ""`); got == "q" {
			t.Fatal("#q still has the focus after blur")
		}
		// A key down with its text, as a keyboard gives it (chromedp's
		// KeyEvent sends the text as a separate char event, which a
		// prevented keydown does not stop).
		p.do("pressing /", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
				ev := input.DispatchKeyEventParams{Type: typ, Key: "/", Code: "Slash", WindowsVirtualKeyCode: 191, NativeVirtualKeyCode: 191}
				if typ == input.DispatchKeyEventTypeKeyDown {
					ev.Text, ev.UnmodifiedText = "/", "/"
				}
				if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, ev); err != nil {
					return err
				}
			}
			return nil
		}))
		p.until("/ focuses the search", `document.activeElement !== null && document.activeElement.id === "q"`)
		if got := js[string](p, `document.querySelector("input#q").value`); got != "" {
			t.Errorf("/ was typed into #q: %q", got)
		}
		p.do("pressing ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
		p.until("ArrowDown selects a skill", `document.querySelector("li.skill.selected") !== null`)
		target := js[string](p, `new URL(document.querySelector("li.skill.selected a.name").href).pathname`)
		first := js[string](p, `document.querySelector("ul#skills li.skill").dataset.id`)
		if sel := js[string](p, `document.querySelector("li.skill.selected").dataset.id`); sel != first {
			t.Errorf("ArrowDown from the search selected %s, want the first skill %s", sel, first)
		}
		ctx, cancel := context.WithTimeout(p.ctx, webWait)
		defer cancel()
		if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.KeyEvent(kb.Enter))); err != nil {
			t.Fatalf("Enter on the selected skill loaded no page: %v", err)
		}
		if got := js[string](p, `location.pathname`); got != target {
			t.Errorf("Enter opened %s, want %s", got, target)
		}
		p.until("the skill page", `document.querySelector("article#readme") !== null`)
	})

	t.Run("skill page", func(t *testing.T) {
		p.t = t
		p.open("/skill/" + url.PathEscape(tablesID))
		cells := js[[]string](p, `Array.from(document.querySelectorAll("article#readme table th, article#readme table td"), c => c.textContent.trim())`)
		wantCells := []string{"quarter", "revenue", "cost", "Q1", "1,200", "800", "Q2", "1,450", "910"}
		if diff := cmp.Diff(wantCells, cells); diff != "" {
			t.Errorf("the rendered table's cells (-want +got):\n%s", diff)
		}
		if align := js[string](p, `getComputedStyle(document.querySelector("article#readme table td:nth-child(2)")).textAlign`); align != "right" && align != "-webkit-right" {
			t.Errorf("the column marked --: is aligned %q, want right", align)
		}
		code := js[string](p, `(document.querySelector("article#readme pre code") || {}).textContent || ""`)
		if !strings.Contains(code, "func balance(rows []Row) int { return sum(rows) }") {
			t.Errorf("no code block with the SKILL.md's code: %q", code)
		}
		if h := js[string](p, `(document.querySelector("article#readme h1") || {}).textContent || ""`); h != "Quarterly ledger" {
			t.Errorf("the heading reads %q", h)
		}
		if n := js[int](p, `document.querySelectorAll("table#files tr[data-path='SKILL.md']").length`); n != 1 {
			t.Errorf("table#files has %d rows for SKILL.md", n)
		}
		if fm := js[string](p, `(document.querySelector("table#frontmatter") || {}).textContent || ""`); !strings.Contains(fm, "ledger-tables") {
			t.Errorf("table#frontmatter does not hold the name: %q", fm)
		}
		if js[int](p, `document.querySelectorAll("#findings").length`) != 1 {
			t.Error("no #findings")
		}
	})
}

// sameQuery reports whether the query string raw holds exactly want.
func sameQuery(raw string, want url.Values) bool {
	got, err := url.ParseQuery(raw)
	return err == nil && cmp.Equal(map[string][]string(got), map[string][]string(want))
}

// narrowestProvider is the provider with the fewest served skills (but
// more than none) among recs, and their sorted ids.
func narrowestProvider(recs []record) (string, []string) {
	by := map[string][]string{}
	for _, r := range recs {
		by[r.Provider] = append(by[r.Provider], r.ID)
	}
	best := ""
	for p, ids := range by {
		if best == "" || len(ids) < len(by[best]) || (len(ids) == len(by[best]) && p < best) {
			best = p
		}
	}
	slices.Sort(by[best])
	return best, by[best]
}

// canary is a loopback HTTP server that records every request: a hostile
// payload that ran would call it.
type canary struct {
	url  string
	mu   sync.Mutex
	hits []string
}

func newCanary(t *testing.T) *canary {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &canary{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.hits = append(c.hits, r.Method+" "+r.URL.String())
		c.mu.Unlock()
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return c
}

func (c *canary) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.hits)
}

func TestWebBrowserHostileSkill(t *testing.T) {
	m := newMachine(t)
	c := newCanary(t)
	// Every payload would set window.__pwned, change the title and call
	// the canary.
	hit := func(n int) string {
		return fmt.Sprintf(`window.__pwned=%d;document.title='pwned';fetch('%s/%d')`, n, c.url, n)
	}
	body := strings.Join([]string{
		"# Hostile",
		"<script>" + hit(1) + "</script>",
		"Inline: <img src=x onerror=\"" + hit(2) + "\"> and <b onmouseover=\"" + hit(3) + "\" id=\"hover\">hover me</b>.",
		"<a href=\"javascript:" + hit(4) + "\">raw javascript link</a>",
		"[markdown javascript link](javascript:" + url.PathEscape(hit(5)) + ")",
		"<iframe src=\"" + c.url + "/iframe\"></iframe>",
		"![remote](" + c.url + "/image.png)",
	}, "\n\n")
	desc := ">-\n  Hostile <img src=x onerror=\"" + hit(6) + "\"> description"
	dir := filepath.Join(m.DocsDir, "hostile")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: hostile\ndescription: "+desc+"\n---\n\n"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const id = "custom:docs:hostile"
	if !slices.Contains(listedIDs(t, m), id) {
		t.Fatalf("the hostile skill %s is not served: %v", id, listedIDs(t, m))
	}
	base := startWeb(t, m, nil)
	b := browsertest.New(t)

	// Each view is read twice: as served (the policy and the escaping),
	// and with the page's Content-Security-Policy bypassed, which proves
	// the escaping alone keeps the payload inert.
	views := []struct{ name, path, text string }{
		{"catalogue", "/?q=hostile", "<img src=x onerror="},
		{"skill page", "/skill/" + url.PathEscape(id), "<script>window.__pwned=1"},
		{"file view", "/skill/" + url.PathEscape(id) + "/file/SKILL.md", "<script>window.__pwned=1"},
	}
	for _, bypass := range []bool{false, true} {
		for _, v := range views {
			t.Run(fmt.Sprintf("%s bypassCSP=%v", v.name, bypass), func(t *testing.T) {
				p := newWebPage(t, b, base)
				if bypass {
					p.do("bypassing the CSP", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
						_, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
						return err
					}))
				}
				p.do("opening "+v.path, chromedp.Navigate(base+v.path))
				if v.name == "catalogue" {
					p.waitReady()
				} else {
					p.until("the page", `document.readyState === "complete"`)
				}
				text := js[string](p, `document.body.innerText`)
				if !strings.Contains(text, v.text) {
					t.Errorf("the payload %q is not shown as text:\n%s", v.text, text)
				}
				if v.name == "skill page" {
					// Hover the element with the handler and click both links.
					for _, sel := range []string{`//*[contains(text(), "hover me")]`, `//*[contains(text(), "raw javascript link")]`, `//*[contains(text(), "markdown javascript link")]`} {
						p.do("clicking "+sel, chromedp.Click(chromedp.Search(sel)))
					}
					if n := js[int](p, `document.querySelectorAll("article#readme a[href^='javascript:' i]").length`); n != 0 {
						t.Errorf("%d javascript: links in the rendered SKILL.md", n)
					}
					if n := js[int](p, `document.querySelectorAll("article#readme script, article#readme iframe, article#readme [onerror], article#readme [onmouseover]").length`); n != 0 {
						t.Errorf("%d script, iframe or handler elements in the rendered SKILL.md", n)
					}
					for _, src := range js[[]string](p, `Array.from(document.querySelectorAll("article#readme img"), i => i.getAttribute("src"))`) {
						if strings.HasPrefix(src, "http") {
							t.Errorf("a remote image in the rendered SKILL.md: %s", src)
						}
					}
				}
				// Give a payload the chance to run: a task and a frame.
				js[bool](p, `new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true), 50)))`, chromedp.EvalAwaitPromise)
				if pwned := js[string](p, `String(window.__pwned)`); pwned != "undefined" {
					t.Errorf("payload %s ran", pwned)
				}
				if title := js[string](p, `document.title`); title == "pwned" {
					t.Error("a payload set the title")
				}
				if got := js[string](p, `location.protocol`); got != "http:" {
					t.Errorf("the page navigated to a %s URL", got)
				}
			})
		}
	}
	if hits := c.requests(); len(hits) != 0 {
		t.Errorf("the canary was called: %q", hits)
	}

	// The control: the same kind of payload, put in the page unescaped
	// with the policy bypassed, does set the marker and call the canary,
	// so the checks above could see a payload that ran.
	t.Run("control", func(t *testing.T) {
		p := newWebPage(t, b, base)
		p.do("bypassing the CSP", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
			return err
		}))
		p.open("/")
		p.do("inserting a payload", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(
			`document.body.insertAdjacentHTML("beforeend", %q)`, `<img src=x onerror="`+hit(0)+`">`)))
		p.until("the control payload ran", `window.__pwned === 0 && document.title === "pwned"`)
		deadline := time.Now().Add(webWait)
		for !slices.Contains(c.requests(), "GET /0") {
			if time.Now().After(deadline) {
				t.Fatalf("the control payload never reached the canary: %q", c.requests())
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func TestWebBrowserToken(t *testing.T) {
	m := newMachine(t)
	const token = "web-browser-secret"
	base := startWeb(t, m, map[string]string{"CCSKI_AUTH_TOKEN": token})
	b := browsertest.New(t)

	// The token is never taken from the address, right or wrong.
	anon := newWebPage(t, b, base)
	for _, path := range []string{"/", "/?token=wrong", "/?token=" + token} {
		resp, err := chromedp.Run(anon.ctx, chromedp.NavigateResponse(base+path))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Status != http.StatusUnauthorized {
			t.Errorf("%s without signing in: status %d, want 401", path, resp.Status)
		}
	}
	cookies, err := chromedp.Call(anon.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	if len(cookies.Cookies) != 0 {
		t.Errorf("a token in the address set cookies: %+v", cookies.Cookies)
	}

	// A person opens a deep link, gets the sign-in form, types the token
	// and lands on the page asked for.
	p := newWebPage(t, b, base)
	p.do("opening /?q=pdf", chromedp.Navigate(base+"/?q=pdf"))
	p.until("the sign-in form", `document.querySelector("form input#token") !== null`)
	ctx, cancel := context.WithTimeout(p.ctx, webWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil,
		chromedp.SendKeys(chromedp.CSS("input#token"), token+"\n"))); err != nil {
		t.Fatalf("signing in: %v", err)
	}
	p.waitReady()
	if got := p.path(); got != "/?q=pdf" {
		t.Errorf("after signing in the page is at %s, want /?q=pdf (the deep link kept)", got)
	}
	p.open("/")
	if n := len(p.shown()); n == 0 {
		t.Error("the page with the session cookie lists no skill")
	}
	cookies, err = chromedp.Call(p.ctx, network.GetCookies, network.GetCookiesParams{URLs: []string{base}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(base)
	var got *network.Cookie
	for _, c := range cookies.Cookies {
		if c.Name == "ccski_session_"+u.Port() {
			got = c
		}
	}
	if got == nil || !got.HTTPOnly || got.SameSite != network.CookieSameSiteStrict || got.Path != "/" || strings.Contains(got.Value, token) {
		t.Errorf("cookie ccski_session_%s %+v of %+v, want HttpOnly, SameSite=Strict, Path=/, not the token", u.Port(), got, cookies.Cookies)
	}
	if js[string](p, `document.cookie`) != "" {
		t.Error("the page's script can read the session cookie")
	}
	// The cookie alone opens the page again, and the script's list.
	p.open("/")
	n := js[int](p, `fetch("/ui/skills.json").then(r => r.status)`, chromedp.EvalAwaitPromise)
	if n != http.StatusOK {
		t.Errorf("/ui/skills.json with the cookie: %d", n)
	}
}

func TestWebBrowserColourScheme(t *testing.T) {
	m := newMachine(t)
	base := startWeb(t, m, nil)
	b := browsertest.New(t)
	p := newWebPage(t, b, base)
	background := func(scheme string) [3]int {
		t.Helper()
		p.do("emulating "+scheme, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}})
			return err
		}))
		p.open("/")
		// The page's background: body's, or the root's when body has none.
		s := js[string](p, `(() => { const b = getComputedStyle(document.body).backgroundColor;
			return b === "rgba(0, 0, 0, 0)" || b === "transparent" ? getComputedStyle(document.documentElement).backgroundColor : b; })()`)
		var c [3]int
		if _, err := fmt.Sscanf(strings.Replace(s, "rgba", "rgb", 1), "rgb(%d, %d, %d", &c[0], &c[1], &c[2]); err != nil {
			t.Fatalf("%s: background %q: %v", scheme, s, err)
		}
		return c
	}
	light, dark := background("light"), background("dark")
	luma := func(c [3]int) int { return 299*c[0] + 587*c[1] + 114*c[2] }
	if luma(dark) >= luma(light) {
		t.Errorf("dark background %v is not darker than light %v", dark, light)
	}
}

// The screenshots of the README, at 360 and 1,440 px wide: neither width
// scrolls sideways; -update writes them to docs/img.
func TestWebBrowserScreenshots(t *testing.T) {
	m := webMachine(t)
	base := startWeb(t, m, nil)
	b := browsertest.New(t)
	shots := []struct {
		file          string
		width, height int64
		path          string
		full          bool // the whole page, not the viewport
	}{
		{"catalogue-360.png", 360, 780, "/", false},
		{"catalogue-1440.png", 1440, 900, "/", false},
		{"skill-1440.png", 1440, 900, "/skill/" + url.PathEscape(tablesID), true},
	}
	for _, s := range shots {
		t.Run(s.file, func(t *testing.T) {
			p := newWebPage(t, b, base)
			p.do("setting the viewport", chromedp.EmulateViewport(s.width, s.height), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}}})
				return err
			}))
			if strings.HasPrefix(s.path, "/skill/") {
				p.do("opening "+s.path, chromedp.Navigate(base+s.path))
				p.until("the skill page", `document.querySelector("article#readme") !== null && document.readyState === "complete"`)
			} else {
				p.open(s.path)
			}
			if w := js[int](p, `document.documentElement.scrollWidth`); w > int(s.width) {
				t.Errorf("at %d px the page is %d px wide: it scrolls sideways", s.width, w)
			}
			p.do("blurring", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur()`))
			ctx, cancel := context.WithTimeout(p.ctx, webWait)
			defer cancel()
			shot := chromedp.CaptureScreenshot()
			if s.full {
				shot = chromedp.FullScreenshot(100) // 100: PNG
			}
			img, err := chromedp.Run(ctx, shot)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(img))
			if err != nil {
				t.Fatalf("the screenshot is not a PNG: %v", err)
			}
			if int64(cfg.Width) != s.width {
				t.Errorf("the screenshot is %d px wide, want %d", cfg.Width, s.width)
			}
			if *update {
				out := filepath.Join("..", "docs", "img", s.file)
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(out, img, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes)", out, len(img))
			}
		})
	}
}
