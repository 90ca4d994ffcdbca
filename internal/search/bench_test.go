package search

import (
	"context"
	"os"
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
//
// CCSKI_SEARCH_TREE=DIR ranks the tree fixture.Generate wrote in DIR once
// (the suite's, e.g. /tmp/w/fixtures/n50000-seed1) as n=tree instead.
func BenchmarkContentSearch(b *testing.B) {
	sizes := []string{"1000", "5000"}
	tree := os.Getenv("CCSKI_SEARCH_TREE")
	if tree != "" {
		sizes = []string{"tree"}
	}
	for _, n := range sizes {
		b.Run("n="+n, func(b *testing.B) {
			t := &fixture.Tree{Home: filepath.Join(tree, "home"), Workspace: filepath.Join(tree, "work", "repo")}
			if tree == "" {
				size, _ := strconv.Atoi(n)
				var err error
				if t, err = fixture.Generate(filepath.Join(b.TempDir(), n), size, 1); err != nil {
					b.Fatal(err)
				}
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
