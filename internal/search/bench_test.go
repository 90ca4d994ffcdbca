package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// benchQueries are what an agent asks skills_search: words of names,
// descriptions and bodies, a typo, and a word nowhere.
var benchQueries = []string{"skill-00042", "pdf", "文档 result", "lorem", "check input", "skil-00100",
	"kubernetes", "step write", "データ", "handles task"}

// BenchmarkContentSearch ranks the visible skills of a generated tree
// against benchQueries with their bodies, reading them (read) and from
// the index (index), and measures building the index (build) and an
// Update of the same records (update: nothing stated) and of records
// made again (restat: every file stated, none read).
func BenchmarkContentSearch(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			t, err := fixture.Generate(filepath.Join(b.TempDir(), strconv.Itoa(n)), n, 1)
			if err != nil {
				b.Fatal(err)
			}
			e, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(t.Home, t.Workspace, func(string) string { return "" }))
			if err != nil {
				b.Fatal(err)
			}
			snap, _, err := e.Snapshot(context.Background())
			if err != nil {
				b.Fatal(err)
			}
			recs := snap.Skills()
			// The tree was written just now: judge its stamps settled.
			clock = func() time.Time { return time.Now().Add(time.Hour) }
			defer func() { clock = time.Now }()
			ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
			if err != nil {
				b.Fatal(err)
			}
			ix.Prime() // as the server does
			b.Logf("%d skills; index %+v", len(recs), ix.Stats())
			for _, mode := range []string{"read", "index"} {
				b.Run(mode, func(b *testing.B) {
					opt := Options{Content: true, Limit: 10, SnippetLen: 160}
					if mode == "index" {
						opt.Index = ix
					}
					for i := range b.N {
						Rank(recs, benchQueries[i%len(benchQueries)], opt)
					}
				})
			}
			b.Run("build", func(b *testing.B) {
				for range b.N {
					(*Index)(nil).Update(context.Background(), recs, Source{})
				}
			})
			b.Run("update", func(b *testing.B) {
				for range b.N {
					ix.Update(context.Background(), recs, Source{})
				}
			})
			b.Run("restat", func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					remade := make([]*pipeline.Record, len(recs))
					for i, r := range recs {
						c := *r
						remade[i] = &c
					}
					b.StartTimer()
					ix.Update(context.Background(), remade, Source{})
				}
			})
		})
	}
}
