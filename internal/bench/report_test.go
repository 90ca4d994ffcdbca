package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// TestTargets checks each of issue 15's targets against values on both
// sides of it, at the sizes it applies to and one it does not.
func TestTargets(t *testing.T) {
	cases := []struct {
		name         string
		key          string
		n, calls     int
		baseline     bool
		ccski, floor float64
		err          string
		want         string
	}{
		{"ready within 2× the floor", "mcp-ready", 1000, 10000, false, 19, 10, "", "met"},
		{"ready beyond 2× the floor", "mcp-ready", 50000, 10000, false, 21, 10, "", "missed"},
		{"ready with the scan blocking, beyond", "mcp-ready-block", 1000, 10000, false, 25, 10, "", "missed"},
		{"ready at 5k within 1.15× (issue 27)", "mcp-ready", 5000, 10000, false, 11.4, 10, "", "met"},
		{"ready at 5k beyond 1.15×", "mcp-ready", 5000, 10000, false, 11.6, 10, "", "missed"},
		{"ready at 100k beyond 1.1×", "mcp-ready", 100000, 10000, false, 11.2, 10, "", "missed"},
		{"skills/list after a restart at 100k within 1.5× the stat floor", "skills-list-restart", 100000, 10000, false, 14.9, 10, "", "met"},
		{"skills/list after a restart at 100k beyond 1.5×", "skills-list-restart", 100000, 10000, false, 15.1, 10, "", "missed"},
		{"skills/list after a restart at 10k has no target", "skills-list-restart", 10000, 10000, false, 80, 10, "", "—"},
		{"first skills/list at 100k beyond 1.5× the hash floor", "skills-list-first", 100000, 10000, false, 16, 10, "", "missed"},
		{"list at 10k within 1.3×", "list-wall", 10000, 10000, false, 13, 10, "", "met"},
		{"list at 10k beyond 1.3×", "list-wall", 10000, 10000, false, 14, 10, "", "missed"},
		{"list at 5k has no target", "list-wall", 5000, 10000, false, 14, 10, "", "—"},
		{"rescan within 1.2× the stat floor", "rescan", 50000, 10000, false, 12, 10, "", "met"},
		{"rescan beyond 1.2×", "rescan", 1000, 10000, false, 12.5, 10, "", "missed"},
		{"rescan that read a file", "rescan-reads", 1000, 10000, false, 1, 0, "", "missed"},
		{"peak RSS at 5k within 30 MiB", "peak-rss", 5000, 10000, false, 29.9, math.NaN(), "", "met"},
		{"peak RSS at 5k beyond 30 MiB", "peak-rss", 5000, 10000, false, 30.5, math.NaN(), "", "missed"},
		{"peak RSS at 10k has no target", "peak-rss", 10000, 10000, false, 80, math.NaN(), "", "—"},
		{"peak RSS of a shorter session has no target", "peak-rss", 5000, 2000, false, 80, math.NaN(), "", "—"},
		{"throughput 10% below the baseline", "call-8-base", 5000, 10000, true, 900, 1000, "", "met"},
		{"throughput more than 10% below", "call-8-base", 5000, 10000, true, 899, 1000, "", "missed"},
		{"throughput above the baseline", "call-8-base", 1000, 10000, true, 1200, 1000, "", "met"},
		{"a failed measurement", "mcp-ready", 1000, 10000, false, math.NaN(), 10, "spawn failed", "error"},
		{"a row without a target", "call-p50", 10000, 10000, false, 0.5, 0.01, "", "—"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &sizeResult{N: c.n, Metrics: newMetrics(c.n, c.calls, c.baseline)}
			m := r.metric(c.key)
			m.set(c.ccski, c.floor)
			m.Err = c.err
			m.evaluate()
			if m.Met != c.want {
				t.Errorf("%s = %v (floor %v) at %d: %q, want %q", c.key, c.ccski, c.floor, c.n, m.Met, c.want)
			}
		})
	}
	if keys := metricKeys(false); strings.Contains(strings.Join(keys, " "), "base") {
		t.Errorf("rows beside a baseline without one: %q", keys)
	}
	if r := (&sizeResult{Metrics: newMetrics(1000, 10000, false)}); r.lookup("call-8-base") != nil {
		t.Error("the baseline row is there without a baseline")
	}
	if got := newMetrics(5000, 2000, false); !strings.Contains(strings.Join(names(got), "\n"), "session of 2,000 calls") {
		t.Errorf("the peak RSS row does not give the session's length: %q", names(got))
	}
}

func names(ms []*metric) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// sized builds a report with the given sizes, each with every row; set
// fills them.
func sized(sizes []int, set func(i int, r *sizeResult)) *report {
	rep := &report{}
	for i, n := range sizes {
		r := &sizeResult{N: n, Metrics: newMetrics(n, issueCalls, false)}
		set(i, r)
		rep.sizes = append(rep.sizes, r)
	}
	return rep
}

func TestGrowth(t *testing.T) {
	rep := sized([]int{1000, 5000, 10000}, func(i int, r *sizeResult) {
		r.metric("cold").set([]float64{10, 50, 120}[i], []float64{8, 40, 80}[i])
		r.metric("rescan-reads").set(0, 0)
		r.metric("call-8").set([]float64{3000, 2700, 2400}[i], 100000)
		r.metric("heap").set([]float64{3, 15, 30}[i], math.NaN())
		if i == 1 {
			r.metric("heap").Err = "failed"
		}
	})
	rows := map[string]growthRow{}
	for _, g := range rep.growth() {
		rows[g.Key] = g
	}
	if len(rows) != len(rep.sizes[0].Metrics) {
		t.Fatalf("%d growth rows, want one per metric (%d)", len(rows), len(rep.sizes[0].Metrics))
	}
	type step struct {
		from, to     int
		ccski, floor float64
	}
	want := map[string][]step{
		"cold": {{1000, 5000, 5, 5}, {5000, 10000, 2.4, 2}, {1000, 10000, 12, 10}},
		// calls/s with the same floor: a falling rate shows below 1.
		"call-8": {{1000, 5000, 0.9, 1}, {5000, 10000, 2400.0 / 2700, 1}, {1000, 10000, 0.8, 1}},
		// zeros and failed sizes have no growth; no floor, no floor growth.
		"rescan-reads": {{1000, 5000, math.NaN(), math.NaN()}, {5000, 10000, math.NaN(), math.NaN()}, {1000, 10000, math.NaN(), math.NaN()}},
		"heap":         {{1000, 5000, math.NaN(), math.NaN()}, {5000, 10000, math.NaN(), math.NaN()}, {1000, 10000, 10, math.NaN()}},
	}
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-9 }
	for key, steps := range want {
		g := rows[key]
		if len(g.Steps) != len(steps) {
			t.Errorf("%s: %d steps, want %d", key, len(g.Steps), len(steps))
			continue
		}
		for i, w := range steps {
			got := g.Steps[i]
			if got.From != w.from || got.To != w.to || !same(got.CCSki, w.ccski) || !same(got.Floor, w.floor) {
				t.Errorf("%s step %d: %+v, want %+v", key, i, got, w)
			}
		}
	}
	if !math.IsNaN(rows["heap"].Values[1]) || rows["heap"].Values[2] != 30 {
		t.Errorf("heap values %v: the failed size should show no value", rows["heap"].Values)
	}
	md := rep.growthTable()
	for _, s := range []string{
		"| metric | 1k | 5k | 10k | 5k / 1k (5×) | 10k / 5k (2×) | 10k / 1k (10×) |",
		"| cold discovery, in-process (ms) | 10.0 | 50.0 | 120 | 5.00× (floor 5.00×) | 2.40× (floor 2.00×) | 12.00× (floor 10.00×) |",
		"| rescan, nothing changed: files read | 0 | 0 | 0 | — | — | — |",
	} {
		if !strings.Contains(md, s+"\n") {
			t.Errorf("the growth table has no line %q:\n%s", s, md)
		}
	}
	if got := (&report{sizes: rep.sizes[:1]}).growthTable(); got != "" {
		t.Errorf("one size gave a growth table: %q", got)
	}
	// Two sizes: one step, no first-to-last repeat of it.
	if got := (&report{sizes: rep.sizes[:2]}).growthSteps(); len(got) != 1 {
		t.Errorf("two sizes gave %d steps, want 1", len(got))
	}
}

func TestAnchors(t *testing.T) {
	rep := sized([]int{200, 1000, 5000}, func(i int, r *sizeResult) {
		r.metric("mcp-ready").set([]float64{20, 50, 200}[i], 10)
		r.metric("list-wall").set([]float64{15, 40, 180}[i], 10)
	})
	if got := rep.anchorSize(kiroCrewSkills); got != 1 {
		t.Errorf("the size nearest to 1,024 is index %d, want 1 (1,000 skills)", got)
	}
	md := rep.anchorTable()
	for _, s := range []string{
		"ccski at 1,000 skills",
		"**Machines differ**",
		"| Codex CLI, start-up to input | 191 ms | not stated | " + anchorSourceNote + " | 50.0 ms | 3.82× | 40.0 ms | 4.78× |",
		"| KiroCrew, skills loaded | 1,000 ms | 1,024 | " + anchorSourceNote + " | 50.0 ms | 20.00× | 40.0 ms | 25.00× |",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("the anchor table has no %q:\n%s", s, md)
		}
	}
	rep.sizes[1].metric("mcp-ready").Err = "failed"
	if md := rep.anchorTable(); !strings.Contains(md, "| KiroCrew, skills loaded | 1,000 ms | 1,024 | "+anchorSourceNote+" | — | — | 40.0 ms |") {
		t.Errorf("a failed row is not shown as missing:\n%s", md)
	}
	if got := (&report{}).anchorTable(); got != "" {
		t.Errorf("no sizes gave an anchor table: %q", got)
	}
}

func TestManifestFiles(t *testing.T) {
	entry := func(uri string, files ...string) skillEntry {
		e := skillEntry{URI: uri}
		for _, f := range files {
			e.Resources = append(e.Resources, struct {
				URI    string `json:"uri"`
				Digest string `json:"digest"`
				Size   int64  `json:"size"`
			}{URI: f})
		}
		return e
	}
	dirs := map[string]string{"skill://codex/a/SKILL.md": "/s/a", "skill://claude/b%20c/SKILL.md": "/s/b c"}
	files, problems := manifestFiles([]skillEntry{
		entry("skill://codex/a/SKILL.md", "skill://codex/a/SKILL.md", "skill://codex/a/references/guide.md"),
		entry("skill://claude/b%20c/SKILL.md", "skill://claude/b%20c/SKILL.md", "skill://claude/b%20c/x%2F..%2F..%2Fetc", "skill://other/z"),
		entry("skill://codex/unknown/SKILL.md", "skill://codex/unknown/SKILL.md"),
	}, dirs)
	want := []string{"/s/a/SKILL.md", "/s/a/references/guide.md", "/s/b c/SKILL.md"}
	if strings.Join(files, "|") != strings.Join(want, "|") {
		t.Errorf("files %q, want %q", files, want)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "3 skills/list entries or files") {
		t.Errorf("problems %q, want one naming the 3 entries or files left out", problems)
	}
}

// TestWriteSwitches checks that the switch files the suite writes are
// read by ccski: discovery with them hides skills it shows without.
func TestWriteSwitches(t *testing.T) {
	tree, err := fixture.Generate(t.TempDir(), 300, 1)
	if err != nil {
		t.Fatal(err)
	}
	visible := func() int {
		e, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(tree.Home, tree.Workspace, func(string) string { return "" }))
		if err != nil {
			t.Fatal(err)
		}
		snap, _, err := e.Snapshot(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(snap.Skills())
	}
	before := visible()
	files, entries, err := writeSwitches(tree)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || entries == 0 {
		t.Fatalf("wrote %q with %d entries", files, entries)
	}
	var settings struct {
		SkillOverrides map[string]string `json:"skillOverrides"`
	}
	b, err := os.ReadFile(filepath.Join(tree.Home, ".claude", "settings.json"))
	if err == nil {
		err = json.Unmarshal(b, &settings)
	}
	if err != nil || len(settings.SkillOverrides) == 0 {
		t.Errorf("settings.json: %v, %d overrides", err, len(settings.SkillOverrides))
	}
	var codex struct {
		Skills struct {
			Config []map[string]any `toml:"config"`
		} `toml:"skills"`
	}
	if _, err := toml.DecodeFile(filepath.Join(tree.Home, ".codex", "config.toml"), &codex); err != nil || len(codex.Skills.Config) == 0 {
		t.Errorf("config.toml: %v, %d [[skills.config]] tables", err, len(codex.Skills.Config))
	}
	if after := visible(); after >= before {
		t.Errorf("%d visible skills with the switch files, %d without: they switched nothing", after, before)
	}
}
