package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/bench/floor/floorlib"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// BenchmarkDiscovery measures discovery over generated trees of every
// provider: a cold Snapshot (a new engine, so no cache) for each size, and
// a rescan of the large tree on a warm engine, where every file is a cache
// hit. Each tree is generated once, outside the timer, on first use.
func BenchmarkDiscovery(b *testing.B) {
	base := b.TempDir()              // lives until every sub-benchmark is done
	trees := map[int]*fixture.Tree{} // sub-benchmarks run one at a time
	tree := func(b *testing.B, n int) *fixture.Tree {
		b.Helper()
		if t, ok := trees[n]; ok {
			return t
		}
		b.StopTimer()
		defer b.StartTimer()
		t, err := fixture.Generate(filepath.Join(base, strconv.Itoa(n)), n, 1)
		if err != nil {
			b.Fatal(err)
		}
		trees[n] = t
		return t
	}
	newEngine := func(b *testing.B, t *fixture.Tree) *Engine {
		b.Helper()
		e, err := New(configs.Default(all.Registry()), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
		if err != nil {
			b.Fatal(err)
		}
		return e
	}

	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			t := tree(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			skills := 0
			for range b.N {
				b.StopTimer()
				e := newEngine(b, t)
				b.StartTimer()
				snap, _, err := e.Snapshot(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				skills = len(snap.All)
			}
			b.ReportMetric(float64(skills), "skills")
		})
	}

	b.Run("n=10000/rescan", func(b *testing.B) {
		t := tree(b, 10000)
		e := newEngine(b, t)
		snap, _, err := e.Snapshot(context.Background()) // warm the cache
		if err != nil {
			b.Fatal(err)
		}
		skills := len(snap.All)
		b.ReportAllocs()
		b.ResetTimer()
		read := 0
		for range b.N {
			snap, st, err := e.Snapshot(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			read += st.FilesRead
			skills = len(snap.All)
		}
		b.StopTimer()
		if read != 0 {
			b.Fatalf("a rescan with nothing changed read %d files", read)
		}
		b.ReportMetric(float64(read)/float64(b.N), "files-read/op")
		b.ReportMetric(float64(skills), "skills")
	})

	// A rescan as a server does it, with the signatures checked (none of
	// the generated skills carries one: every folder is listed, none
	// hashed): what looking for signatures adds to rescan.
	b.Run("n=10000/rescan-signatures", func(b *testing.B) {
		t := tree(b, 10000)
		e := newEngine(b, t)
		v, err := provenance.DefaultVerifier()
		if err != nil {
			b.Fatal(err)
		}
		e.SetSigning(SigningOptions{Verifier: v})
		if _, _, err := e.Snapshot(context.Background()); err != nil { // warm the caches
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, _, err := e.Snapshot(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	})

	// The floor of a rescan, as the benchmark suite measures it: os.Stat
	// of every folder and skill file the floor walk of the existing roots
	// saw, one goroutine. Compare it with rescan in the same run.
	b.Run("n=10000/rescan-floor", func(b *testing.B) {
		t := tree(b, 10000)
		snap, _, err := newEngine(b, t).Snapshot(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		var roots []string
		for _, r := range snap.Roots {
			if r.Exists {
				roots = append(roots, r.Path)
			}
		}
		dirs, files, err := floorlib.List(roots)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := floorlib.Restat(dirs, files); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(dirs)+len(files)), "stats/op")
	})

	// A rescan and its floor, alternated op by op (and which goes first
	// too), so that both meet the same load on a shared machine:
	// rescan/floor is the median of the ratios of the pairs, the figure
	// the target is set on.
	b.Run("n=10000/rescan-paired", func(b *testing.B) {
		t := tree(b, 10000)
		e := newEngine(b, t)
		snap, _, err := e.Snapshot(context.Background()) // warm the cache
		if err != nil {
			b.Fatal(err)
		}
		var roots []string
		for _, r := range snap.Roots {
			if r.Exists {
				roots = append(roots, r.Path)
			}
		}
		dirs, files, err := floorlib.List(roots)
		if err != nil {
			b.Fatal(err)
		}
		rescan := func() {
			_, st, err := e.Snapshot(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			if st.FilesRead != 0 {
				b.Fatalf("a rescan with nothing changed read %d files", st.FilesRead)
			}
		}
		floor := func() {
			if _, err := floorlib.Restat(dirs, files); err != nil {
				b.Fatal(err)
			}
		}
		timed := func(f func()) time.Duration {
			start := time.Now()
			f()
			return time.Since(start)
		}
		var total [2]time.Duration
		ratios := make([]float64, 0, b.N)
		b.ResetTimer()
		for i := range b.N {
			var r, f time.Duration
			if i%2 == 0 {
				r, f = timed(rescan), timed(floor)
			} else {
				f, r = timed(floor), timed(rescan)
			}
			total[0] += r
			total[1] += f
			ratios = append(ratios, float64(r)/float64(f))
		}
		b.StopTimer()
		slices.Sort(ratios)
		b.ReportMetric(float64(total[0].Nanoseconds())/float64(b.N), "rescan-ns/op")
		b.ReportMetric(float64(total[1].Nanoseconds())/float64(b.N), "floor-ns/op")
		b.ReportMetric(ratios[len(ratios)/2], "rescan/floor")
	})
}
