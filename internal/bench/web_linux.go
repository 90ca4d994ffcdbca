//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"math"
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
// and the HTML's size.
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
	var fcp, ready, html []float64
	for i := range s.cfg.Runs + 1 {
		f, r, h, err := webLoad(b, "http://"+srv.Addr+"/")
		if err != nil {
			return fmt.Errorf("loading /: %w\nserver stderr:\n%s", err, srv.Stderr)
		}
		if i > 0 {
			fcp, ready, html = append(fcp, f), append(ready, r), append(html, h/1024)
		}
	}
	nan := math.NaN()
	res.metric("web-fcp").set(median(fcp), nan)
	res.metric("web-ready").set(median(ready), nan)
	res.metric("web-html").set(median(html), nan)
	return nil
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
