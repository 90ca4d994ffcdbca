package browsertest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserRunsScriptAndSeparatesTabs loads a page that sets a cookie
// and runs its script, in the browser New starts, and checks that a tab
// of NewTab does not see the first tab's cookie.
func TestBrowserRunsScriptAndSeparatesTabs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.SetCookie(w, &http.Cookie{Name: "c", Value: "1", Path: "/"})
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><title>start</title><script src="/s.js"></script>`))
		case "/s.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write([]byte(`document.title = "ran";`))
		case "/cookie":
			_, _ = w.Write([]byte(r.Header.Get("Cookie")))
		}
	}))
	defer srv.Close()

	b := New(t)
	ctx := b.Context()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || title != "ran" {
		t.Fatalf("title %q, %v: the page's script did not run\n%s", title, err, b.Output())
	}
	cookies, err := chromedp.Call(ctx, network.GetCookies, network.GetCookiesParams{})
	if err != nil || len(cookies.Cookies) != 1 {
		t.Fatalf("cookies %v, %v; want the page's one", cookies.Cookies, err)
	}

	tab, cancel, err := b.NewTab()
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	resp, err := chromedp.Run(tab, chromedp.NavigateResponse(srv.URL+"/cookie"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 {
		t.Fatalf("status %d", resp.Status)
	}
	body, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		t.Errorf("a new tab sent the cookie %q of the first tab's browser context", body)
	}
}
