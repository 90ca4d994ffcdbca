package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/browsertest"
)

// TestSuite runs the whole suite at 100 skills, once, and checks that
// every metric has a value and a row in the Markdown. It asserts no
// timings: CI machines are shared and slow.
func TestSuite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the suite reads /proc and ru_maxrss: Linux only")
	}
	if testing.Short() {
		t.Skip("builds ccski and spawns it; skipped with -short")
	}
	out := filepath.Join(t.TempDir(), "benchmarks.md")
	cfg, err := parseFlags([]string{"-sizes", "100", "-runs", "1", "-calls", "50", "-out", out, "-workdir", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := run(ctx, cfg, testWriter{t})
	if err != nil {
		t.Fatalf("the suite failed: %v", err)
	}
	var stdout strings.Builder
	if err := writeReport(cfg, rep, &stdout); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)

	if len(rep.sizes) != 1 || rep.sizes[0].N != 100 {
		t.Fatalf("want one size, 100; got %d sizes", len(rep.sizes))
	}
	s := rep.sizes[0]
	if s.Found != s.Tree.Skills {
		t.Errorf("the floor read %d skill files, the fixture has %d", s.Found, s.Tree.Skills)
	}
	if s.Visible == 0 || s.Named == 0 || s.Named > s.Visible {
		t.Errorf("list --json printed %d skills, the skill tool's description names %d", s.Visible, s.Named)
	}
	if s.Listed == 0 || s.Listed > s.Visible || s.Files < s.Listed {
		t.Errorf("skills/list listed %d skills with %d files; list --json printed %d", s.Listed, s.Files, s.Visible)
	}
	if s.Switches == 0 || s.Switched <= 0 {
		t.Errorf("the host switch files hold %d entries and hid %d skills", s.Switches, s.Switched)
	}
	if s.Scanned < s.Found {
		t.Errorf("the scan floor read %d files, fewer than the %d skill files", s.Scanned, s.Found)
	}
	// list --json ran with the trust store its warm-up recorded, in this
	// size's own config folder.
	var suite suite
	suite.cfg, suite.work = cfg, cfg.Workdir
	if _, err := os.Stat(filepath.Join(suite.state(100, "ccski"), "config", "ccski", "trust.json")); err != nil {
		t.Errorf("no trust store in the size's config folder: %v", err)
	}
	keys := metricKeys(false)
	if len(s.Metrics) != len(keys) {
		t.Errorf("%d metrics, want %d", len(s.Metrics), len(keys))
	}
	rows := tableRows(md)
	for i, key := range keys {
		m := s.metric(key)
		if i < len(s.Metrics) && s.Metrics[i] != m {
			t.Errorf("metric %d is %s, want %s", i, s.Metrics[i].Key, key)
		}
		if slices.Contains(webKeys, key) && browsertest.Find() == "" {
			// Without Chromium the web rows say so and are not measured.
			if m.Err != browsertest.ErrNoBrowser.Error() {
				t.Errorf("%s without a browser: error %q", key, m.Err)
			}
			continue
		}
		if m.Err != "" || math.IsNaN(m.CCSki) || math.IsInf(m.CCSki, 0) || m.CCSki < 0 {
			t.Errorf("%s: value %v, error %q", key, m.CCSki, m.Err)
		}
		row, ok := rows[m.Name]
		if !ok {
			t.Errorf("no Markdown row %q", m.Name)
			continue
		}
		if len(row) != 6 {
			t.Errorf("row %q has %d cells, want 6: %q", m.Name, len(row), row)
			continue
		}
		if _, err := number(row[1]); err != nil {
			t.Errorf("row %q: ccski cell %q is not a number", m.Name, row[1])
		}
		if !math.IsNaN(m.Floor) {
			if _, err := number(row[2]); err != nil {
				t.Errorf("row %q: floor cell %q is not a number", m.Name, row[2])
			}
		}
		if !strings.Contains(stdout.String(), "| "+m.Name+" |") {
			t.Errorf("stdout has no row %q", m.Name)
		}
	}
	if got := s.metric("rescan-reads").CCSki; got != 0 {
		t.Errorf("a rescan with nothing changed read %v files", got)
	}
	for _, h := range []string{"# Benchmarks", "## Machine", "## Method", "### N = 100", "## What bounds it"} {
		if !strings.Contains(md, "\n"+h+"\n") && !strings.HasPrefix(md, h+"\n") {
			t.Errorf("no heading %q", h)
		}
	}
	if !strings.Contains(md, "go run ./internal/bench -sizes 100 -runs 1") {
		t.Errorf("the report does not give the command")
	}
	// The edit measurement puts every file back: the fixture is reusable.
	if _, err := os.Stat(markerPath(filepath.Dir(s.Tree.Home))); err != nil {
		t.Errorf("the fixture is not marked complete after the run: %v", err)
	}
}

// tableRows maps each Markdown table row's first cell to its cells.
func tableRows(md string) map[string][]string {
	rows := map[string][]string{}
	for _, l := range strings.Split(md, "\n") {
		if !strings.HasPrefix(l, "| ") || !strings.HasSuffix(l, " |") {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "| "), " |"), " | ")
		rows[cells[0]] = cells
	}
	return rows
}

func number(cell string) (float64, error) {
	return strconv.ParseFloat(strings.NewReplacer(",", "", "×", "").Replace(cell), 64)
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for _, c := range []struct{ p, want float64 }{{0.5, 3}, {0.99, 5}, {0.2, 1}, {0.4, 2}} {
		if got := percentile(xs, c.p); got != c.want {
			t.Errorf("percentile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("median of four = %v, want 2.5", got)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing is not NaN")
	}
}

func TestReplaceDescription(t *testing.T) {
	in := "---\nname: a\ndescription: \"old\"\nlicense: MIT\n---\n\ndescription: body text\n"
	got, err := replaceDescription([]byte(in), "new")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nname: a\ndescription: \"new\"\nlicense: MIT\n---\n\ndescription: body text\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if _, err := replaceDescription([]byte("---\nname: a\n---\ndescription: x\n"), "new"); err == nil {
		t.Error("a description below the frontmatter was replaced")
	}
}

func TestParseIDs(t *testing.T) {
	desc := "Pass the name as it appears in <name>.\n<available_skills>\n<skill>\n<name>claude:a&amp;b</name>\n" +
		"<description>x</description>\n</skill>\n<skill>\n<name>codex:c</name>\n</skill>\n</available_skills>"
	got := parseIDs(desc)
	if strings.Join(got, " ") != "claude:a&b codex:c" {
		t.Errorf("got %q", got)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Sizes, []int{1000, 5000, 10000, 50000}) || cfg.Runs != 5 || cfg.Calls != 10000 ||
		cfg.Out != "docs/benchmarks.md" || cfg.Baseline != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	cfg, err = parseFlags([]string{"-baseline", "HEAD~3", "-calls", "2000"})
	if err != nil || cfg.Baseline != "HEAD~3" || cfg.Calls != 2000 {
		t.Errorf("-baseline HEAD~3 -calls 2000: %+v, %v", cfg, err)
	}
	for _, only := range []string{"search", "start", "memory", "web"} {
		if cfg, err := parseFlags([]string{"-only", only}); err != nil || cfg.Only != only {
			t.Errorf("-only %s: %+v, %v", only, cfg, err)
		}
	}
	for _, bad := range [][]string{{"-sizes", "1k"}, {"-sizes", "5"}, {"-runs", "0"}, {"-calls", "1"}, {"extra"}, {"-only", "calls"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
