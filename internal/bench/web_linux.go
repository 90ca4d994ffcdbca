//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/ccski/ccski/internal/bench/benchproc"
	"github.com/ccski/ccski/internal/browsertest"
	"github.com/ccski/ccski/internal/fixture"
)

// readyMark runs in every document the benchmark's tabs open, before the
// page's own script: it notes performance.now() when the page's script
// marks the page ready (body[data-ready="1"], the DOM contract of
// internal/web). It is the debugger's script, so the page's
// Content-Security-Policy does not stop it.
const readyMark = `new MutationObserver(() => {
  if (window.__ccskiReady === undefined && document.body && document.body.dataset.ready === "1") window.__ccskiReady = performance.now();
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-ready"]});`

// webMeasure reads what one load of the page gave: its first contentful
// paint, the time its script marked it ready (both from the navigation's
// start, ms) and the size of its HTML (bytes); null until both are known.
const webMeasure = `(() => {
  const fcp = performance.getEntriesByName("first-contentful-paint")[0];
  const nav = performance.getEntriesByType("navigation")[0];
  if (!fcp || window.__ccskiReady === undefined || !nav) return null;
  return [fcp.startTime, window.__ccskiReady, nav.decodedBodySize];
})()`

// webRows measures the web catalogue's first paint: a `ccski mcp
// --transport http` server on the tree, and headless Chromium
// (internal/browsertest) loading `/` in a new browser context (nothing
// cached, no cookie) -runs times after one untimed load; medians of the
// first contentful paint, of the time until the page's script is ready,
// and the HTML's size. Each load is followed by one of floorPage, the
// same way.
func (s *suite) webRows(ctx context.Context, t *fixture.Tree, state string, res *sizeResult) error {
	srv, err := benchproc.Start(ctx, benchproc.Options{Bin: s.ccski, Tree: t, State: state, Probe: "/readyz", Wait: 2 * time.Minute})
	if err != nil {
		return err
	}
	defer srv.Stop()
	b, err := browsertest.Start(ctx, s.work)
	if err != nil {
		return err
	}
	defer b.Close()
	floor := httptest.NewServer(http.HandlerFunc(floorPage))
	defer floor.Close()
	var fcp, ready, html, fFCP, fReady []float64
	for i := range s.cfg.Runs + 1 {
		f, r, h, err := webLoad(b, "http://"+srv.Addr+"/")
		if err != nil {
			return fmt.Errorf("loading /: %w\nserver stderr:\n%s", err, srv.Stderr)
		}
		ff, fr, _, err := webLoad(b, floor.URL+"/")
		if err != nil {
			return fmt.Errorf("loading the floor page: %w", err)
		}
		if i > 0 {
			fcp, ready, html = append(fcp, f), append(ready, r), append(html, h/1024)
			fFCP, fReady = append(fFCP, ff), append(fReady, fr)
		}
	}
	res.metric("web-fcp").set(median(fcp), median(fFCP))
	res.metric("web-ready").set(median(ready), median(fReady))
	res.metric("web-html").set(median(html), math.NaN())
	return nil
}

// floorPage is the floor of the web rows: the least a page can be, one
// line of text and an external script that marks it ready, served from
// the suite's process. Loaded the same way as the catalogue, its figures
// are the browser's own share (a new renderer, the navigation, a paint).
func floorPage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/ready.js" {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = io.WriteString(w, `document.body.dataset.ready = "1";`)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title>`+
		`<script src="/ready.js" defer></script></head><body><p>ccski skills</p></body></html>`)
}

// webLoad loads url in a new tab of b with a browser context of its own
// and returns its first contentful paint and ready time (ms from the
// navigation's start) and its HTML's size (bytes).
func webLoad(b *browsertest.Browser, url string) (fcp, ready, html float64, err error) {
	tab, cancel, err := b.NewTab()
	if err != nil {
		return 0, 0, 0, err
	}
	defer cancel()
	ctx, cancelWait := context.WithTimeout(tab, 2*time.Minute)
	defer cancelWait()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: readyMark}); err != nil {
		return 0, 0, 0, err
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return 0, 0, 0, err
	}
	for {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](webMeasure))
		if err != nil && !errors.Is(err, chromedp.ErrJSNull) {
			return 0, 0, 0, err
		}
		if len(v) == 3 {
			return v[0], v[1], v[2], nil
		}
		if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
			return 0, 0, 0, fmt.Errorf("the page never painted or never set body[data-ready]: %w", err)
		}
	}
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
