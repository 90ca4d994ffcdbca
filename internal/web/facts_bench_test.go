package web

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	gen "github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// BenchmarkFacts measures one skill page's facts on generated trees of
// two sizes: per call, the cost should not grow with the tree (it judges
// one record), where doctor's whole view (hostview.For of every host,
// "doctor") does.
func BenchmarkFacts(b *testing.B) {
	for _, n := range []int{500, 5000} {
		tr, err := gen.Generate(filepath.Join(b.TempDir(), "t"), n, 1)
		if err != nil {
			b.Fatal(err)
		}
		env := providers.NewEnv(tr.Home, tr.Workspace, func(string) string { return "" })
		e, err := engine.New(configs.Default(all.Registry()), env)
		if err != nil {
			b.Fatal(err)
		}
		snap, _, err := e.Snapshot(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		skills := snap.Skills()
		facts := NewFacts(FactsConfig{Snapshot: func() *pipeline.Snapshot { return snap }, Env: env})
		facts(context.Background(), skills[0]) // the per-snapshot part, once
		b.Run(fmt.Sprintf("facts/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				facts(context.Background(), skills[i%len(skills)])
				i++
			}
		})
		b.Run(fmt.Sprintf("doctor/%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, h := range hostview.Hosts() {
					hostview.For(context.Background(), h, snap, hostview.Options{Env: env})
				}
			}
		})
	}
}
