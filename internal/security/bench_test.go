package security

import (
	"context"
	"io/fs"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/ccski/ccski/internal/fixture"
)

// BenchmarkScan measures the scan over a generated tree (internal/fixture:
// every provider, bodies of 1 to 20 KB, references, broken and disabled
// skills) of 1,000 and 10,000 skills: cold (an empty memory, every file
// read) and a rescan where nothing changed (every file remembered). It
// reports ns/skill besides the time of the whole scan (ns/op), to compare
// with BenchmarkDiscovery in package engine on the same tree.
func BenchmarkScan(b *testing.B) {
	base := b.TempDir()
	trees := map[int][]string{}
	files := func(b *testing.B, n int) []string {
		b.Helper()
		if fs, ok := trees[n]; ok {
			return fs
		}
		b.StopTimer()
		defer b.StartTimer()
		t, err := fixture.Generate(filepath.Join(base, strconv.Itoa(n)), n, 1)
		if err != nil {
			b.Fatal(err)
		}
		var out []string
		for _, root := range []string{t.Home, t.Workspace} {
			err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (d.Name() == "SKILL.md" || d.Name() == ".SKILL.md") {
					out = append(out, p)
				}
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		trees[n] = out
		return out
	}
	for _, n := range []int{1000, 10000} {
		b.Run("n="+strconv.Itoa(n)+"/cold", func(b *testing.B) {
			fs := files(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				NewScanner().Skills(context.Background(), fs)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fs)), "ns/skill")
			b.ReportMetric(float64(len(fs)), "skills")
		})
	}
	b.Run("n=10000/rescan", func(b *testing.B) {
		fs := files(b, 10000)
		s := NewScanner()
		s.Skills(context.Background(), fs)
		read := s.FilesRead()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			s.Skills(context.Background(), fs)
		}
		b.StopTimer()
		if s.FilesRead() != read {
			b.Fatalf("a rescan with nothing changed read %d files", s.FilesRead()-read)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(fs)), "ns/skill")
		b.ReportMetric(float64(len(fs)), "skills")
	})
}
