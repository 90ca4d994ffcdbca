//go:build linux

// Command load measures `ccski mcp --transport http` as an organisation's
// skill server: -clients concurrent clients of protocol 2026-07-28 (no
// session; each request stands alone) call tools/call (the skill tool,
// loading one skill after another) for -duration, then skills/list (the
// first page) for as long; it reports calls/s and the p50, p99 and worst
// latency of each. Then it opens -sessions 2025-era sessions (initialize,
// and the GET stream each client holds) and reports the server's resident
// set per 1,000 of them: VmRSS once the server has been idle 2 s
// (it gives freed memory back after 1 s) with the sessions open, minus the
// same before.
//
//	go run ./internal/bench/load [-skills 1000] [-clients 64] [-duration 10s] [-sessions 1000]
//	               [-port 0] [-ccski BIN] [-workdir DIR] [-cpuprofile FILE]
//
// Everything is on loopback. It is a benchmark, not a test: nothing is
// timed against a bound, and CI does not run it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/bench/benchproc"
	"github.com/ccski/ccski/internal/fixture"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, cfg, os.Stderr)
	if res != nil {
		res.write(os.Stdout, cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}

// config is one run.
type config struct {
	Skills   int           // skills in the fixture
	Clients  int           // concurrent stateless clients
	Duration time.Duration // how long each stateless phase lasts
	Sessions int           // 2025-era sessions opened for the memory figure
	Port     int           // loopback port of the server; 0 picks a free one
	Ccski    string        // the binary; "" builds ./cmd/ccski
	Workdir  string        // fixture and binary; "" is a temporary folder
	Profile  string        // the server's CPU profile, written as it exits; "" none
	Command  string        // the command line, for the report
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var cfg config
	fs.IntVar(&cfg.Skills, "skills", 1000, "skills in the generated fixture")
	fs.IntVar(&cfg.Clients, "clients", 64, "concurrent stateless (2026-07-28) clients")
	fs.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long the clients call, for each method")
	fs.IntVar(&cfg.Sessions, "sessions", 1000, "2025-era sessions held open for the memory figure")
	fs.IntVar(&cfg.Port, "port", 0, "loopback port for the server (0: a free one)")
	fs.StringVar(&cfg.Ccski, "ccski", "", "ccski binary to measure (default: build ./cmd/ccski)")
	fs.StringVar(&cfg.Profile, "cpuprofile", "", "write the server's CPU profile to this file (ccski's --cpuprofile)")
	fs.StringVar(&cfg.Workdir, "workdir", "", "folder for the binary and the fixture (default: a temporary folder, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.Skills < 20 || cfg.Clients < 1 || cfg.Duration <= 0 || cfg.Sessions < 1 {
		return cfg, errors.New("-skills must be at least 20, -clients and -sessions at least 1, -duration positive")
	}
	cfg.Command = strings.TrimSpace("go run ./internal/bench/load " + strings.Join(args, " "))
	return cfg, nil
}

// phase is what one method measured.
type phase struct {
	Method    string
	Latencies []time.Duration
	Failed    int
	FirstErr  error
	Elapsed   time.Duration
}

// result is what one run measured.
type result struct {
	Phases      []*phase
	Opened      int     // sessions opened
	BaseKiB     float64 // server VmRSS, idle, before the sessions
	SessionsKiB float64 // the same with the sessions open
	PeakKiB     float64 // server VmHWM at the end
}

func run(ctx context.Context, cfg config, log io.Writer) (*result, error) {
	work := cfg.Workdir
	if work == "" {
		dir, err := os.MkdirTemp("", "ccski-load-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	bin := cfg.Ccski
	if bin == "" {
		bin = filepath.Join(work, "ccski")
		fmt.Fprintf(log, "load: go build -o %s ./cmd/ccski\n", bin)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", bin, "./cmd/ccski")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/ccski (run from the repository root): %v\n%s", err, out)
		}
	}
	tree, err := fixture.Generate(filepath.Join(work, "fixture"), cfg.Skills, 1)
	if err != nil {
		return nil, err
	}
	srv, err := startServer(ctx, bin, tree, filepath.Join(work, "state"), cfg)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	base := "http://" + srv.Addr + "/mcp"
	res := &result{}

	// One client lists the skills, for names to load.
	cs, err := connect(ctx, base, "", newHTTPClient(cfg.Clients))
	if err != nil {
		return nil, fmt.Errorf("connect: %w\nstderr:\n%s", err, srv.Stderr)
	}
	names, err := loadable(ctx, cs)
	_ = cs.Close()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "load: server pid %d at %s serves %d skills; %d clients for %v per method\n",
		srv.Pid(), srv.Addr, len(names), cfg.Clients, cfg.Duration)

	calls := []struct {
		method string
		do     func(context.Context, *sdk.ClientSession, int) error
	}{
		{"tools/call", func(ctx context.Context, cs *sdk.ClientSession, i int) error {
			r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "skill", Arguments: map[string]any{"name": names[i%len(names)]}})
			if err == nil && r.IsError {
				err = fmt.Errorf("tool error: %s", toolText(r))
			}
			return err
		}},
		{"skills/list", func(ctx context.Context, cs *sdk.ClientSession, _ int) error {
			r, err := sdk.CallCustomMethod[*listParams, *listResult](ctx, cs, "skills/list", &listParams{})
			if err == nil && len(r.Skills) == 0 {
				err = errors.New("skills/list: an empty page")
			}
			return err
		}},
	}
	for _, c := range calls {
		p, err := hammer(ctx, cfg, base, c.method, c.do)
		if err != nil {
			return res, err
		}
		res.Phases = append(res.Phases, p)
		fmt.Fprintf(log, "load: %s: %d calls, %d failed\n", p.Method, len(p.Latencies), p.Failed)
	}

	// Memory per 2025-era session.
	idle := func() float64 {
		time.Sleep(2500 * time.Millisecond) // the server releases freed memory after 1 s idle
		return benchproc.StatusKiB(srv.Pid(), "VmRSS")
	}
	res.BaseKiB = idle()
	hc := newHTTPClient(64)
	var sessions []*sdk.ClientSession
	defer func() {
		for _, s := range sessions {
			_ = s.Close()
		}
	}()
	for range cfg.Sessions {
		s, err := connect(ctx, base, "2025-11-25", hc)
		if err != nil {
			return res, fmt.Errorf("session %d: %w\nstderr:\n%s", len(sessions)+1, err, srv.Stderr)
		}
		sessions = append(sessions, s)
	}
	res.Opened = len(sessions)
	res.SessionsKiB = idle()
	res.PeakKiB = benchproc.StatusKiB(srv.Pid(), "VmHWM")
	fmt.Fprintf(log, "load: %d sessions open\n", res.Opened)
	return res, nil
}

// hammer runs cfg.Clients stateless clients calling do for cfg.Duration.
func hammer(ctx context.Context, cfg config, base, method string, do func(context.Context, *sdk.ClientSession, int) error) (*phase, error) {
	p := &phase{Method: method}
	var mu sync.Mutex
	var wg sync.WaitGroup
	clients := make([]*sdk.ClientSession, cfg.Clients)
	for c := range clients {
		cs, err := connect(ctx, base, "", newHTTPClient(1))
		if err != nil {
			return nil, err
		}
		clients[c] = cs
	}
	start := time.Now()
	end := start.Add(cfg.Duration)
	for c, cs := range clients {
		wg.Go(func() {
			defer cs.Close()
			var lat []time.Duration
			failed := 0
			var first error
			for i := c; time.Now().Before(end) && ctx.Err() == nil; i += cfg.Clients {
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				t0 := time.Now()
				err := do(cctx, cs, i)
				d := time.Since(t0)
				cancel()
				if err != nil {
					failed++
					first = cmpOr(first, err)
					continue
				}
				lat = append(lat, d)
			}
			mu.Lock()
			p.Latencies = append(p.Latencies, lat...)
			p.Failed += failed
			p.FirstErr = cmpOr(p.FirstErr, first)
			mu.Unlock()
		})
	}
	wg.Wait()
	p.Elapsed = time.Since(start)
	return p, ctx.Err()
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// listParams and listResult are the skills/list request and the part of
// its answer read here.
type listParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listResult struct {
	sdk.ResultBase
	Skills     []map[string]any `json:"skills"`
	NextCursor string           `json:"nextCursor,omitempty"`
}

// newHTTPClient returns a client keeping up to conns connections to the
// server alive.
func newHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: conns, MaxIdleConnsPerHost: conns,
		DialContext: (&net.Dialer{}).DialContext}}
}

// connect connects a client of protocol pv ("" is the SDK's latest, of
// the stateless era).
func connect(ctx context.Context, endpoint, pv string, hc *http.Client) (*sdk.ClientSession, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "ccski-load", Version: "0"}, nil)
	if err := sdk.AddSendingCustomMethod[*listParams, *listResult](c, "skills/list"); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return c.Connect(cctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc},
		&sdk.ClientSessionOptions{ProtocolVersion: pv})
}

// skillNames lists every skill through skills/list, for the calls to
// load.
func skillNames(ctx context.Context, cs *sdk.ClientSession) ([]string, error) {
	var names []string
	cursor := ""
	for {
		r, err := sdk.CallCustomMethod[*listParams, *listResult](ctx, cs, "skills/list", &listParams{Cursor: cursor})
		if err != nil {
			return nil, fmt.Errorf("skills/list: %w", err)
		}
		for _, s := range r.Skills {
			if fm, ok := s["frontmatter"].(map[string]any); ok {
				if n, ok := fm["name"].(string); ok {
					names = append(names, n)
				}
			}
		}
		if r.NextCursor == "" {
			break
		}
		cursor = r.NextCursor
	}
	if len(names) == 0 {
		return nil, errors.New("skills/list lists no skill")
	}
	return names, nil
}

// loadable returns the names of skills/list that the skill tool loads
// (a name that several skills share is ambiguous), each once.
func loadable(ctx context.Context, cs *sdk.ClientSession) ([]string, error) {
	names, err := skillNames(ctx, cs)
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []string
	for _, n := range slices.Compact(names) {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "skill", Arguments: map[string]any{"name": n}})
		if err == nil && !r.IsError {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("the skill tool loads none of the names skills/list gives")
	}
	return out, nil
}

// startServer starts `ccski mcp --transport http` on a loopback port
// (cfg.Port, or a free one) and waits until /readyz answers (the first
// snapshot is served).
func startServer(ctx context.Context, bin string, t *fixture.Tree, state string, cfg config) (*benchproc.Server, error) {
	o := benchproc.Options{Bin: bin, Tree: t, State: state, Port: cfg.Port, Probe: "/readyz", Wait: 60 * time.Second,
		// Room for every session the run opens, besides the clients'.
		Env: []string{"CCSKI_MCP__MAX_SESSIONS=" + strconv.Itoa(cfg.Sessions+cfg.Clients+16)}}
	if cfg.Profile != "" {
		p, err := filepath.Abs(cfg.Profile)
		if err != nil {
			return nil, err
		}
		o.Args = []string{"--cpuprofile", p}
	}
	return benchproc.Start(ctx, o)
}

// quantile returns the q-quantile of sorted durations (nearest rank).
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func (r *result) write(w io.Writer, cfg config) {
	fmt.Fprintf(w, "`%s`: %d skills, %d concurrent stateless clients for %v per method, then %d 2025-era sessions\n\n",
		cfg.Command, cfg.Skills, cfg.Clients, cfg.Duration, cfg.Sessions)
	fmt.Fprintln(w, "| measure | calls/s | p50 | p99 | worst | failed |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, p := range r.Phases {
		lat := slices.Clone(p.Latencies)
		slices.Sort(lat)
		rate := float64(len(lat)) / p.Elapsed.Seconds()
		fmt.Fprintf(w, "| stateless `%s`, %d clients | %.0f | %s | %s | %s | %d |\n", p.Method, cfg.Clients, rate,
			ms(quantile(lat, .5)), ms(quantile(lat, .99)), ms(quantile(lat, 1)), p.Failed)
	}
	if r.Opened > 0 {
		per := (r.SessionsKiB - r.BaseKiB) / float64(r.Opened) * 1000 / 1024
		fmt.Fprintf(w, "\n| measure | MiB |\n|---|---|\n")
		fmt.Fprintf(w, "| server RSS, idle, before the sessions | %.1f |\n", r.BaseKiB/1024)
		fmt.Fprintf(w, "| the same with %d 2025-era sessions open | %.1f |\n", r.Opened, r.SessionsKiB/1024)
		fmt.Fprintf(w, "| RSS per 1,000 open 2025-era sessions | %.1f |\n", per)
		fmt.Fprintf(w, "| server peak RSS over the run (VmHWM) | %.1f |\n", r.PeakKiB/1024)
	}
	for _, p := range r.Phases {
		if p.FirstErr != nil {
			fmt.Fprintf(w, "\nfirst failure of %s: %v\n", p.Method, p.FirstErr)
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// toolText is the text of a tool result.
func toolText(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
