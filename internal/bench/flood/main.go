//go:build linux

// Command flood measures `ccski mcp --transport http` under a flood of
// connections: child processes open -conns connections to the server on
// 127.0.0.1 and hold them, sending nothing (-hold idle), the headers and
// part of a body that never ends (-hold body), or a 2026-07-28
// subscriptions/listen stream (-hold listen) (with -reopen, each
// one the server closes is opened again at once, which keeps the kernel's
// accept queue full: see docs for what that costs), while a well-behaved
// client (a go-sdk client of protocol 2025-11-25, in a session) loads
// skills one after another. It reports the client's latencies, worst
// first, its failed calls, and the server's peak resident set (VmHWM of
// /proc/<pid>/status) and open files. The target (issue 21): every answer
// within 1 s, under 200 MiB.
//
//	go run ./internal/bench/flood [-conns 20000] [-procs 4] [-reopen] [-hold idle|body|listen]
//	               [-duration 20s] [-skills 1000] [-ccski BIN] [-workdir DIR]
//
// The flood is split over -procs processes, as a process may open only so
// many files (20,000 on the machines this was written on). Everything is
// on loopback. It is a benchmark, not a test: run it by hand, at full size
// only on a machine with the descriptors to spare; CI does not run it.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
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
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/bench/benchproc"
	"github.com/ccski/ccski/internal/fixture"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		os.Exit(child(os.Args[2:]))
	}
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, cfg, os.Stderr)
	if res != nil {
		res.write(os.Stdout, cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "flood:", err)
		os.Exit(1)
	}
}

// config is one run.
type config struct {
	Conns    int           // connections the flood holds
	Procs    int           // processes it is split over
	Reopen   bool          // open a connection again once the server closes it
	Hold     string        // what each flood connection sends: idle, body or listen
	Duration time.Duration // how long the client calls under the flood
	Skills   int           // skills in the fixture
	Ccski    string        // the binary; "" builds ./cmd/ccski
	Workdir  string        // fixture and binary; "" is a temporary folder
	Command  string        // the command line, for the report
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("flood", flag.ContinueOnError)
	var cfg config
	fs.IntVar(&cfg.Conns, "conns", 20000, "connections the flood opens and holds")
	fs.IntVar(&cfg.Procs, "procs", 4, "processes the flood is split over")
	fs.BoolVar(&cfg.Reopen, "reopen", false, "open each connection the server closes again at once")
	fs.StringVar(&cfg.Hold, "hold", "idle", "what each flood connection sends and holds: idle (nothing), body (headers and part of a body), listen (a subscriptions/listen stream)")
	fs.DurationVar(&cfg.Duration, "duration", 20*time.Second, "how long the well-behaved client calls under the flood")
	fs.IntVar(&cfg.Skills, "skills", 1000, "skills in the generated fixture")
	fs.StringVar(&cfg.Ccski, "ccski", "", "ccski binary to measure (default: build ./cmd/ccski)")
	fs.StringVar(&cfg.Workdir, "workdir", "", "folder for the binary and the fixture (default: a temporary folder, removed afterwards)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if _, ok := holdPayload(cfg.Hold, "127.0.0.1:1"); !ok {
		return cfg, fmt.Errorf("-hold %q: want idle, body or listen", cfg.Hold)
	}
	if cfg.Conns < 1 || cfg.Procs < 1 || cfg.Skills < 20 || cfg.Duration <= 0 {
		return cfg, errors.New("-conns and -procs must be at least 1, -skills at least 20, -duration positive")
	}
	cfg.Command = strings.TrimSpace("go run ./internal/bench/flood " + strings.Join(args, " "))
	return cfg, nil
}

// result is what one run measured.
type result struct {
	Latencies []time.Duration // of the client's calls that were answered
	Failed    []string        // the client's calls that failed, and why
	Reconnect int             // sessions the client had to start again
	Connect   time.Duration   // the client's initialize under the flood
	BaseKiB   float64         // server RSS before the flood
	PeakKiB   float64         // server VmHWM at the end
	PeakFiles int             // most files the server had open at a sample
	Dials     int64           // connections the flood opened
	Refused   int64           // connection attempts that failed
	Streams   int64           // flood connections answered 200 (listen streams)
	Held      int             // flood connections open when the client began
	Dialed    atomic.Int64    // connections the client opened
}

func run(ctx context.Context, cfg config, log io.Writer) (*result, error) {
	work := cfg.Workdir
	if work == "" {
		dir, err := os.MkdirTemp("", "ccski-flood-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		work = dir
	}
	bin := cfg.Ccski
	if bin == "" {
		bin = filepath.Join(work, "ccski")
		fmt.Fprintf(log, "flood: go build -o %s ./cmd/ccski\n", bin)
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
	srv, err := startServer(ctx, bin, tree, filepath.Join(work, "state"))
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	res := &result{BaseKiB: benchproc.StatusKiB(srv.Pid(), "VmRSS")}
	fmt.Fprintf(log, "flood: server pid %d at %s, %.1f MiB resident\n", srv.Pid(), srv.Addr, res.BaseKiB/1024)

	// Sample the server's open files while the flood lasts.
	sampling, stopSampling := context.WithCancel(ctx)
	var sampled sync.WaitGroup
	sampled.Go(func() {
		for sampling.Err() == nil {
			if n := openFiles(srv.Pid()); n > res.PeakFiles {
				res.PeakFiles = n
			}
			select {
			case <-sampling.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	})

	kids, err := startFlood(ctx, cfg, srv.Addr, log)
	if err != nil {
		for _, k := range kids {
			k.stop()
		}
		stopSampling()
		sampled.Wait()
		return res, err
	}
	res.Held = openFiles(srv.Pid())
	fmt.Fprintf(log, "flood: %d connections opened by %d processes; the server has %d files open\n", cfg.Conns, cfg.Procs, res.Held)

	callErr := client(ctx, cfg, srv, res, log)
	stopSampling()
	sampled.Wait()
	res.PeakKiB = benchproc.StatusKiB(srv.Pid(), "VmHWM")
	for _, k := range kids {
		d, r, st := k.stop()
		res.Dials += d
		res.Refused += r
		res.Streams += st
	}
	return res, callErr
}

// startServer starts `ccski mcp --transport http` on a free loopback port
// and waits until /healthz answers.
func startServer(ctx context.Context, bin string, t *fixture.Tree, state string) (*benchproc.Server, error) {
	return benchproc.Start(ctx, benchproc.Options{Bin: bin, Tree: t, State: state, Probe: "/healthz", Wait: 30 * time.Second})
}

// client makes calls under the flood for cfg.Duration, one after
// another, starting a new session whenever one fails.
func client(ctx context.Context, cfg config, srv *benchproc.Server, res *result, log io.Writer) error {
	connect := func() (*sdk.ClientSession, error) {
		var d net.Dialer
		hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			res.Dialed.Add(1)
			return d.DialContext(ctx, network, addr)
		}}}
		tr := &sdk.StreamableClientTransport{Endpoint: "http://" + srv.Addr + "/mcp", HTTPClient: hc}
		c := sdk.NewClient(&sdk.Implementation{Name: "well-behaved", Version: "0"}, nil)
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		return c.Connect(cctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	}
	start := time.Now()
	cs, err := connect()
	res.Connect = time.Since(start)
	if err != nil {
		return fmt.Errorf("the client could not connect under the flood: %w\nstderr:\n%s", err, srv.Stderr)
	}
	defer func() { _ = cs.Close() }()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) == 0 {
		return fmt.Errorf("tools/list under the flood: %v", err)
	}
	names := skillNames(tools.Tools[0].Description)
	if len(names) == 0 {
		return errors.New("the skill tool lists no skill")
	}
	fmt.Fprintf(log, "flood: the client connected in %v; calling for %v\n", res.Connect.Round(time.Millisecond), cfg.Duration)
	end := time.Now().Add(cfg.Duration)
	for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		t0 := time.Now()
		r, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: "skill", Arguments: map[string]any{"name": names[i%len(names)]}})
		d := time.Since(t0)
		cancel()
		switch {
		case err != nil:
			res.Failed = append(res.Failed, fmt.Sprintf("call %d after %v: %v", i, d.Round(time.Millisecond), err))
			_ = cs.Close()
			if cs, err = connect(); err != nil {
				return fmt.Errorf("the client could not connect again: %w", err)
			}
			res.Reconnect++
		case r.IsError:
			res.Failed = append(res.Failed, fmt.Sprintf("call %d: tool error %v", i, r.Content))
		default:
			res.Latencies = append(res.Latencies, d)
		}
	}
	return nil
}

// skillNames reads the names the skill tool's catalogue lists: those of
// full <skill> entries, and the lines of a <skill_names> block.
func skillNames(desc string) []string {
	var out []string
	inNames := false
	for _, line := range strings.Split(desc, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "<skill_names>":
			inNames = true
		case line == "</skill_names>":
			inNames = false
		case inNames && line != "":
			name, _, _ := strings.Cut(line, " — ")
			out = append(out, name)
		default:
			if name, ok := strings.CutPrefix(line, "<name>"); ok {
				if name, ok = strings.CutSuffix(name, "</name>"); ok {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// kid is one flood process.
type kid struct {
	cmd *exec.Cmd
	out *bufio.Scanner
}

// startFlood starts cfg.Procs child processes that open cfg.Conns
// connections between them, and returns once each has opened its share
// (or tried to for a minute).
func startFlood(ctx context.Context, cfg config, addr string, log io.Writer) ([]*kid, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var kids []*kid
	for i := range cfg.Procs {
		n := cfg.Conns / cfg.Procs
		if i < cfg.Conns%cfg.Procs {
			n++
		}
		cmd := exec.CommandContext(ctx, self, "-child", addr, strconv.Itoa(n), strconv.FormatBool(cfg.Reopen), cfg.Hold)
		cmd.Stderr = log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // no flood outlives the run
		out, err := cmd.StdoutPipe()
		if err != nil {
			return kids, err
		}
		if err := cmd.Start(); err != nil {
			return kids, err
		}
		kids = append(kids, &kid{cmd: cmd, out: bufio.NewScanner(out)})
	}
	for _, k := range kids {
		if !k.out.Scan() { // "opened"
			return kids, fmt.Errorf("a flood process ended: %v", k.out.Err())
		}
	}
	return kids, nil
}

// stop ends the child and returns the connections it opened, the
// attempts that failed and the connections answered 200.
func (k *kid) stop() (dials, refused, streams int64) {
	_ = k.cmd.Process.Signal(syscall.SIGTERM)
	if k.out.Scan() {
		_, _ = fmt.Sscanf(k.out.Text(), "dials %d refused %d streams %d", &dials, &refused, &streams)
	}
	_ = k.cmd.Wait()
	return dials, refused, streams
}

// holdPayload is what a flood connection of kind hold sends to addr.
func holdPayload(hold, addr string) (string, bool) {
	switch hold {
	case "idle":
		return "", true
	case "body":
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", true
	case "listen":
		body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{` +
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientInfo":{"name":"flood","version":"0"},` +
			`"io.modelcontextprotocol/clientCapabilities":{}},` +
			`"notifications":{"toolsListChanged":true}}}`
		return "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n" +
			"Mcp-Method: subscriptions/listen\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)) + body, true
	}
	return "", false
}

// child is a flood process: it opens n connections to addr and holds
// them, reading until the server closes each (then, with reopen, it opens
// it again). It prints "opened" once each connection was tried, and on
// SIGTERM "dials D refused R" and exits.
func child(args []string) int {
	if len(args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: flood -child ADDR N REOPEN HOLD")
		return 2
	}
	addr := args[0]
	n, err1 := strconv.Atoi(args[1])
	reopen, err2 := strconv.ParseBool(args[2])
	payload, ok := holdPayload(args[3], addr)
	if err1 != nil || err2 != nil || !ok {
		fmt.Fprintln(os.Stderr, "flood -child: bad arguments", args)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	var dials, refused, streams atomic.Int64
	var tried sync.WaitGroup
	tried.Add(n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			first := true
			defer func() {
				if first {
					tried.Done()
				}
			}()
			var d net.Dialer
			buf := make([]byte, 512)
			for ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", addr)
				if first {
					first = false
					tried.Done()
				}
				if err != nil {
					refused.Add(1)
					if !reopen {
						return
					}
					time.Sleep(10 * time.Millisecond)
					continue
				}
				dials.Add(1)
				done := context.AfterFunc(ctx, func() { c.Close() })
				if payload != "" {
					_, _ = io.WriteString(c, payload)
				}
				for got := 0; ; {
					k, err := c.Read(buf)
					if got == 0 && k >= 12 && string(buf[:12]) == "HTTP/1.1 200" {
						streams.Add(1)
					}
					got += k
					if err != nil {
						break
					}
				}
				done()
				c.Close()
				if !reopen {
					<-ctx.Done()
					return
				}
			}
		})
	}
	waited := make(chan struct{})
	go func() { tried.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	fmt.Println("opened")
	<-ctx.Done()
	wg.Wait()
	fmt.Printf("dials %d refused %d streams %d\n", dials.Load(), refused.Load(), streams.Load())
	return 0
}

// write prints the result as Markdown.
func (r *result) write(w io.Writer, cfg config) {
	lat := slices.Clone(r.Latencies)
	slices.Sort(lat)
	q := func(p float64) string {
		if len(lat) == 0 {
			return "–"
		}
		return fmtMS(lat[min(len(lat)-1, int(math.Ceil(p*float64(len(lat))))-1)])
	}
	worst := "–"
	if len(lat) > 0 {
		worst = fmtMS(lat[len(lat)-1])
	}
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "missed"
	}
	latOK := len(lat) > 0 && lat[len(lat)-1] <= time.Second && r.Connect <= time.Second && len(r.Failed) == 0
	memOK := r.PeakKiB > 0 && r.PeakKiB <= 200*1024
	fmt.Fprintf(w, "## HTTP connection flood\n\n`%s`\n\n", cfg.Command)
	fmt.Fprintf(w, "%d connections held by %d processes on 127.0.0.1 (holding: %s; reopened when closed: %v), %d skills; "+
		"a go-sdk client (2025-11-25, one session) loading skills one after another for %v.\n\n",
		cfg.Conns, cfg.Procs, cfg.Hold, cfg.Reopen, cfg.Skills, cfg.Duration)
	fmt.Fprintln(w, "| measure | value | target |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| client connect (initialize) | %s | |\n", fmtMS(r.Connect))
	fmt.Fprintf(w, "| calls answered / failed | %d / %d | all answered |\n", len(lat), len(r.Failed))
	fmt.Fprintf(w, "| connections the client opened | %d | |\n", r.Dialed.Load())
	fmt.Fprintf(w, "| call latency p50 / p99 | %s / %s | |\n", q(0.5), q(0.99))
	fmt.Fprintf(w, "| worst call latency | %s | ≤ 1 s (%s) |\n", worst, verdict(latOK))
	fmt.Fprintf(w, "| server RSS before the flood | %.1f MiB | |\n", r.BaseKiB/1024)
	fmt.Fprintf(w, "| server peak RSS (VmHWM) | %.1f MiB | < 200 MiB (%s) |\n", r.PeakKiB/1024, verdict(memOK))
	fmt.Fprintf(w, "| server open files, most sampled | %d | |\n", r.PeakFiles)
	fmt.Fprintf(w, "| flood connections opened / attempts failed | %d / %d | |\n", r.Dials, r.Refused)
	if cfg.Hold == "listen" {
		fmt.Fprintf(w, "| flood streams answered 200 | %d | |\n", r.Streams)
	}
	for _, f := range r.Failed[:min(len(r.Failed), 10)] {
		fmt.Fprintf(w, "\nfailed: %s", f)
	}
	if len(r.Failed) > 0 {
		fmt.Fprintln(w)
	}
}

func fmtMS(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}

// openFiles counts the files process pid has open.
func openFiles(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	return len(ents)
}
