package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/mcp"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// BenchmarkEditRefresh measures what a server does between the watcher's
// poke after an edit and the skill tool's new description: the rescan of
// a tree where one SKILL.md's description changed, and the server's
// update of the new snapshot (mcp.Server.Update, every description in the
// tool's as with --catalog 0). Each op edits one visible skill's
// description, the edits taking turns over a few skills. cpu-ms/op is the
// process's CPU time per op (user and system, the server's update and the
// collector's work included).
//
// The tree is generated with internal/fixture (CCSKI_EDIT_N skills, 5,000
// by default), or is the fixture the benchmark suite generated in the
// folder CCSKI_EDIT_TREE names (its complete.json is read); its files
// are put back when the benchmark ends.
func BenchmarkEditRefresh(b *testing.B) {
	t := editTree(b)
	eng, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
	if err != nil {
		b.Fatal(err)
	}
	r := New(eng, Options{})
	srv := mcp.New(nil, mcp.Options{})
	r.Subscribe(func(s *pipeline.Snapshot) { srv.Update(s) })
	ctx := context.Background()
	snap, _, err := r.First(ctx)
	if err != nil {
		b.Fatal(err)
	}
	// Edit a few visible skills of the user's Claude folder in turn.
	var files [][2][]byte
	var paths []string
	for _, rec := range snap.Skills() {
		if len(paths) == 8 {
			break
		}
		if rec.Agent != "claude" || rec.Location != pipeline.LocationUser {
			continue
		}
		orig, err := os.ReadFile(rec.File)
		if err != nil {
			b.Fatal(err)
		}
		i := bytes.Index(orig, []byte("\ndescription:"))
		if i < 0 {
			continue
		}
		edited := append(append(clone(orig[:i+1]), "description: Edited by BenchmarkEditRefresh."...), orig[bytes.IndexByte(orig[i+1:], '\n')+i+1:]...)
		st, err := os.Stat(rec.File)
		if err != nil {
			b.Fatal(err)
		}
		paths = append(paths, rec.File)
		files = append(files, [2][]byte{orig, edited})
		b.Cleanup(func() {
			_ = os.WriteFile(rec.File, orig, 0o644)
			_ = os.Chtimes(rec.File, st.ModTime(), st.ModTime())
		})
	}
	if len(paths) == 0 {
		b.Fatal("no visible user skill of the claude provider to edit")
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		k := i % len(paths)
		body := files[k][(i/len(paths))%2^1]
		if err := os.WriteFile(paths[k], body, 0o644); err != nil {
			b.Fatal(err)
		}
		if d := r.Refresh(ctx); d.Changed != 1 {
			b.Fatalf("edit %d of %s: %+v, want one skill changed", i, paths[k], d)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(snap.Visible)), "skills")
}

// cpuTime is the CPU time the process has used, user and system: on a
// shared machine a steadier measure of work than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// editTree is BenchmarkEditRefresh's tree.
func editTree(b *testing.B) *fixture.Tree {
	b.Helper()
	if dir := os.Getenv("CCSKI_EDIT_TREE"); dir != "" {
		data, err := os.ReadFile(filepath.Join(dir, "complete.json"))
		if err != nil {
			b.Fatal(err)
		}
		var t fixture.Tree
		if err := json.Unmarshal(data, &t); err != nil {
			b.Fatal(err)
		}
		return &t
	}
	n := 5000
	if s := os.Getenv("CCSKI_EDIT_N"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(fmt.Errorf("CCSKI_EDIT_N=%q: %w", s, err))
		}
		n = v
	}
	t, err := fixture.Generate(b.TempDir(), n, 1)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// BenchmarkQuietRefresh measures a periodic rescan of a tree where nothing
// changed (mcp.refresh_interval on a quiet tree), with a server subscribed
// as in BenchmarkEditRefresh: B/op is what such a rescan allocates, the
// server's update of its snapshot included when it makes one. The tree is
// editTree's; the files are left to age past filestamp.Window first, so
// that the rescans can read none.
func BenchmarkQuietRefresh(b *testing.B) {
	t := editTree(b)
	eng, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
	if err != nil {
		b.Fatal(err)
	}
	r := New(eng, Options{})
	srv := mcp.New(nil, mcp.Options{})
	r.Subscribe(func(s *pipeline.Snapshot) { srv.Update(s) })
	ctx := context.Background()
	snap, _, err := r.First(ctx)
	if err != nil {
		b.Fatal(err)
	}
	time.Sleep(filestamp.Window + 100*time.Millisecond)
	r.Refresh(ctx) // reads what was too new to keep
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := range b.N {
		if d := r.Refresh(ctx); !d.Empty() {
			b.Fatalf("rescan %d of a quiet tree: %+v", i, d)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(snap.Visible)), "skills")
}
