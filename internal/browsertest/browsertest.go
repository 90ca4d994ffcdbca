// Package browsertest starts the headless Chromium that ccski's browser
// tests (integration) and the first-paint benchmark (internal/bench -only
// web) drive through the DevTools protocol (github.com/chromedp/chromedp).
// It is the one place that finds the browser and knows its flags.
//
// The browser is Debian's chromium package (.ci/run installs it with
// chromium-driver); CCSKI_CHROMIUM names another binary. A test skips,
// with a message saying how to install it, only when no browser is
// found; a browser that is found but does not start fails the test.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// EnvBinary names the variable that points at a Chromium binary other
// than the one on PATH.
const EnvBinary = "CCSKI_CHROMIUM"

// Find returns the Chromium binary to drive: $CCSKI_CHROMIUM when set,
// else /usr/bin/chromium (Debian's package) or the first of chromium and
// chromium-browser on PATH. It returns "" when there is none.
func Find() string {
	if p := os.Getenv(EnvBinary); p != "" {
		return p
	}
	if fi, err := os.Stat("/usr/bin/chromium"); err == nil && !fi.IsDir() {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// ErrNoBrowser is returned by Start when Find finds no browser.
var ErrNoBrowser = errors.New("no Chromium found: install Debian's chromium (apt-get install -y chromium chromium-driver, as .ci/run does) or set " + EnvBinary + " to a Chromium binary")

// flags are the switches the browser runs with besides --headless and
// its profile folder: no sandbox (tests may run as root), no GPU, and
// none of the background connections Chromium opens by itself (they are
// refused on a machine without the internet and slow the start).
var flags = []string{
	"no-sandbox", "disable-gpu", "disable-quic", "no-first-run", "no-default-browser-check",
	"disable-background-networking", "disable-component-update", "disable-sync",
	"disable-default-apps", "disable-extensions", "hide-scrollbars", "mute-audio",
}

// Browser is a running headless Chromium. Its Context opens a tab; NewTab
// opens more tabs in the same browser, each with its own cookies.
type Browser struct {
	ctx    context.Context
	cancel context.CancelFunc
	stderr *tail
}

// Start starts Chromium (Find) with a new profile folder under dir. The
// browser lives until Close or until ctx ends.
func Start(ctx context.Context, dir string) (*Browser, error) {
	bin := Find()
	if bin == "" {
		return nil, ErrNoBrowser
	}
	profile, err := os.MkdirTemp(dir, "chromium-profile-")
	if err != nil {
		return nil, err
	}
	stderr := &tail{}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 800),
		chromedp.CombinedOutput(stderr),
	}
	for _, f := range flags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelBrowser := chromedp.NewContext(allocCtx)
	b := &Browser{ctx: bctx, stderr: stderr, cancel: func() {
		cancelBrowser()
		cancelAlloc()
		_ = os.RemoveAll(profile)
	}}
	// The first action starts the browser and binds it to bctx.
	if err := chromedp.Do(bctx); err != nil {
		b.cancel()
		return nil, fmt.Errorf("starting %s: %w\n%s", bin, err, stderr)
	}
	return b, nil
}

// Context is the context of the browser's first tab.
func (b *Browser) Context() context.Context { return b.ctx }

// NewTab opens a tab in a new browser context (an incognito profile: no
// cookies, cache or storage shared with the other tabs) and returns its
// context; cancel closes it.
func (b *Browser) NewTab() (context.Context, context.CancelFunc, error) {
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, cancel, nil
}

// Output is the end of what the browser wrote to stdout and stderr.
func (b *Browser) Output() string { return b.stderr.String() }

// Close stops the browser and removes its profile folder.
func (b *Browser) Close() { b.cancel() }

// New starts a browser for the test t and stops it when t ends. It skips
// t, saying how to install one, only when Find finds no browser; a browser
// that does not start fails t.
func New(t testing.TB) *Browser {
	t.Helper()
	if Find() == "" {
		t.Skip(ErrNoBrowser)
	}
	b, err := Start(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// tail keeps the last 8 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 8<<10 {
		w.buf = w.buf[len(w.buf)-8<<10:]
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.TrimSpace(string(w.buf))
}
