//go:build unix

package integration

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/browsertest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestWebBrowserUI opens the URL `ccski ui --no-open` prints in headless
// Chromium, as a person does: its one-time code becomes a cookie and
// leaves the address (the token is never in it), the list is the machine's skills (`ccski list --json`), and a
// click on the skill ccski installed from git opens its page with where
// it came from, the hosts that load it and the command that installs it
// elsewhere.
func TestWebBrowserUI(t *testing.T) {
	box := newInstallBox(t)
	repo, shas := newGitSource(t, filepath.Join(box.root, "repo"), map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")})
	mustOK(t, box.run(t, "install", repo.url+"#skills/pdf", "pdf", "--agent", "claude"))
	testfs.Write(t, box.home, map[string]string{".claude/settings.json": "{}", ".codex/config.toml": ""})
	list := box.run(t, "list", "--json")
	mustOK(t, list)
	var recs []record
	if err := json.Unmarshal([]byte(list.stdout), &recs); err != nil {
		t.Fatalf("list --json: %v\n%s", err, list)
	}
	want := ids(recs)
	pdf := ""
	for _, r := range recs {
		if r.Name == "pdf" {
			pdf = r.ID
		}
	}
	if pdf == "" {
		t.Fatalf("list --json has no pdf skill: %v", want)
	}

	s := startUI(t, box, nil, "--no-open")
	u, err := url.Parse(s.url)
	if err != nil || u.Query().Get("code") == "" || u.Query().Has("token") {
		t.Fatalf("printed URL %q: want a one-time code, and no token", s.url)
	}
	b := browsertest.New(t)
	p := newWebPage(t, b, "http://"+u.Host)
	p.open(u.RequestURI())
	if got := p.path(); got != "/" {
		t.Errorf("after the printed URL the page is at %s, want / (the code gone from the address)", got)
	}
	// Discovery runs once the server listens: load again until its
	// snapshot is served.
	deadline := time.Now().Add(webWait)
	for !slices.Equal(p.shown(), want) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Millisecond)
		p.open("/")
	}
	if diff := cmp.Diff(want, p.shown()); diff != "" {
		t.Fatalf("the list against list --json (-want +got):\n%s", diff)
	}

	// A click on the skill's name opens its page.
	link := `li.skill[data-id="` + pdf + `"] a.name`
	ctx, cancel := context.WithTimeout(p.ctx, webWait)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(link)))); err != nil {
		t.Fatalf("clicking %s: %v", link, err)
	}
	if got, want := p.path(), "/skill/"+url.PathEscape(pdf); got != want {
		t.Errorf("the click opened %s, want %s", got, want)
	}
	p.until("the skill page", `document.querySelector("article#readme") !== null`)
	origin := js[string](p, `(document.querySelector("#origin") || {}).innerText || ""`)
	for _, want := range []string{repo.url + "#skills/pdf", shas[0]} {
		if !strings.Contains(origin, want) {
			t.Errorf("#origin lacks %q:\n%s", want, origin)
		}
	}
	if got := js[string](p, `Array.from(document.querySelectorAll("#hosts tr[data-host]"), r => r.dataset.host).join(",")`); !strings.Contains(got, "claude") {
		t.Errorf("#hosts rows: %q, want claude's", got)
	}
	if got, want := js[string](p, `(document.querySelector("code#install") || {}).textContent || ""`), "ccski install "+repo.url+"#skills/pdf pdf"; got != want {
		t.Errorf("code#install %q, want %q", got, want)
	}
}
