// Command bench is ccski's benchmark suite: at each size it generates a
// deterministic skill tree (internal/fixture), measures ccski beside the
// physical floor (internal/bench/floor: walk the same roots, read the first 4 KB of
// every SKILL.md) and writes the results as Markdown: a table per size
// with issue 15's targets, the growth of every row across the sizes, and
// ccski beside published figures of other tools.
//
//	go run ./internal/bench [-sizes 1000,5000,10000,50000] [-runs 5] [-calls 10000]
//	               [-out docs/benchmarks.md | -] [-seed 1] [-workdir DIR]
//	               [-baseline REV] [-only search|start|memory|web]
//
// It builds the ccski and floor binaries once into the work folder, keeps
// the generated trees there (so a rerun with the same -workdir skips
// generation), and reports medians over -runs repetitions. With -baseline
// it also builds ccski at git revision REV and runs the same MCP sessions
// with it, interleaved, so that a loss of throughput or a gain in memory
// shows within one run. `make bench` runs it at 1k, 5k, 10k and 50k
// skills; `make bench-smoke` at 200.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
)

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, cfg, os.Stderr)
	if rep != nil {
		if werr := writeReport(cfg, rep, os.Stdout); werr != nil {
			fmt.Fprintln(os.Stderr, "bench:", werr)
			os.Exit(1)
		}
		if cfg.Out != "-" {
			fmt.Fprintf(os.Stderr, "bench: wrote %s\n", cfg.Out)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// writeReport writes the Markdown report to cfg.Out and the tables to
// stdout (the whole report when cfg.Out is "-").
func writeReport(cfg config, rep *report, stdout io.Writer) error {
	md := rep.Markdown()
	if cfg.Out == "-" {
		_, err := io.WriteString(stdout, md)
		return err
	}
	if err := os.WriteFile(cfg.Out, []byte(md), 0o644); err != nil {
		return err
	}
	_, err := io.WriteString(stdout, rep.Tables())
	return err
}

// config is what one run of the suite measures.
type config struct {
	Sizes   []int  // numbers of skills
	Runs    int    // repetitions; medians are reported
	Calls   int    // tools/call requests per MCP session: half sequential, half 8 in flight
	Seed    uint64 // fixture seed
	Out     string // Markdown destination; "-" is stdout
	Workdir string // binaries and fixtures; "" is a temporary folder
	Command string // the command line, for the report
	// Baseline is a git revision whose ccski runs the same MCP sessions
	// beside the current one; "" for none.
	Baseline string
	// Only measures one group of rows ("search": the skills_search
	// rows; "start": the time to serve, list --json, mcp ready,
	// skills/list and edit → list_changed; "memory": the live heap,
	// list --json and the MCP sessions with their peak RSS; "web": the
	// web catalogue's first paint in headless Chromium); "" measures
	// every row.
	Only string
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizes := fs.String("sizes", "1000,5000,10000,50000", "comma-separated numbers of skills")
	cfg := config{}
	fs.IntVar(&cfg.Runs, "runs", 5, "repetitions per measurement; medians are reported")
	fs.IntVar(&cfg.Calls, "calls", 10000, "tools/call requests per MCP session (half one at a time, half 8 in flight)")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "fixture seed: the same seed and size give the same tree")
	fs.StringVar(&cfg.Out, "out", "docs/benchmarks.md", `where to write the Markdown report; "-" for stdout`)
	fs.StringVar(&cfg.Workdir, "workdir", "", "folder for binaries and cached fixtures (default: a temporary folder, removed afterwards)")
	fs.StringVar(&cfg.Baseline, "baseline", "", "git revision of a ccski to run the MCP sessions beside, for throughput and memory")
	fs.StringVar(&cfg.Only, "only", "", `measure only one group of rows: "search" (the skills_search rows), "start" (list --json, mcp ready, skills/list, edit → list_changed) "memory" (live heap, list --json, the MCP sessions and their peak RSS) or "web" (the web catalogue's first paint in headless Chromium)`)
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 20 {
			return cfg, fmt.Errorf("-sizes: %q is not a number of skills (at least 20)", s)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	if cfg.Only != "" && cfg.Only != "search" && cfg.Only != "start" && cfg.Only != "memory" && cfg.Only != "web" {
		return cfg, fmt.Errorf(`-only: %q is not a group of rows ("search", "start", "memory" or "web")`, cfg.Only)
	}
	if cfg.Runs < 1 || cfg.Calls < 2 {
		return cfg, fmt.Errorf("-runs must be at least 1 and -calls at least 2")
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	cfg.Command = strings.TrimSpace("go run ./internal/bench " + strings.Join(quoted, " "))
	return cfg, nil
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,/:+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
