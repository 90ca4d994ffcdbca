package manifest

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// benchSkills lists the catalogue sizes of BenchmarkManifest. The default
// is 10,000 skills (30,000 files of about 1.7 KB, written once per run);
// -short uses 1,000. Pass -skills=10000,50000 for the larger size.
var benchSkills = flag.String("skills", "10000", "comma-separated numbers of skill folders for BenchmarkManifest, e.g. 10000,50000")

// TestMain removes the benchmark trees after the run.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, tr := range trees {
		os.RemoveAll(tr.root)
	}
	os.Exit(code)
}

// benchTree is a catalogue of n skill folders of three small files each:
// SKILL.md, references/guide.md and scripts/run.py.
type benchTree struct {
	root  string
	dirs  []string // the skill folders
	files []string // every file, for the floors
	bytes int64
}

var (
	treesMu sync.Mutex
	trees   = map[int]*benchTree{}
)

// tree returns the catalogue of n skills, writing it on first use. It
// returns once every file is older than racyWindow, so that a warm Build
// finds them cached, as on a machine whose skills were not just written.
func tree(b *testing.B, n int) *benchTree {
	treesMu.Lock()
	defer treesMu.Unlock()
	if tr := trees[n]; tr != nil {
		return tr
	}
	root, err := os.MkdirTemp("", "ccski-manifest-bench-")
	if err != nil {
		b.Fatal(err)
	}
	tr := &benchTree{root: root}
	trees[n] = tr
	body := strings.Repeat("Use the reference when the form has more than one page. ", 20)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("g%03d", i/1000), fmt.Sprintf("skill-%06d", i))
		files := map[string]string{
			"SKILL.md":            fmt.Sprintf("---\nname: skill-%06d\ndescription: Fills form %d.\n---\n\n%s\n", i, i, body),
			"references/guide.md": strings.Repeat(fmt.Sprintf("Guide line %d for skill %d.\n", i%97, i), 100),
			"scripts/run.py":      fmt.Sprintf("print(%d)\n", i) + strings.Repeat("# comment\n", 80),
		}
		for rel, content := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
			tr.files = append(tr.files, p)
			tr.bytes += int64(len(content))
		}
		tr.dirs = append(tr.dirs, dir)
	}
	time.Sleep(racyWindow + 10*time.Millisecond)
	return tr
}

// BenchmarkManifest builds the manifests of every skill of a catalogue:
// cold (a new Cache: every file hashed) and warm (a filled Cache: walk and
// stat only), one folder after another and with BuildAll; and the floors:
// reading and hashing the same bytes with sha256 (no walk), and walking
// and stating the same folders (no hashing). The page cache is warm in
// every case: "cold" means nothing cached in the Cache.
func BenchmarkManifest(b *testing.B) {
	sizes := strings.Split(*benchSkills, ",")
	if testing.Short() {
		sizes = []string{"1000"}
	}
	for _, s := range sizes {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			b.Fatalf("-skills: %q is not a number of skills", s)
		}
		b.Run(fmt.Sprintf("skills=%d", n), func(b *testing.B) { benchManifest(b, tree(b, n)) })
	}
}

func benchManifest(b *testing.B, tr *benchTree) {
	files := float64(len(tr.files))
	check := func(b *testing.B, m *Manifest, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Files) != 3 {
			b.Fatalf("%d files in a manifest, want 3", len(m.Files))
		}
	}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			c := NewCache()
			for _, d := range tr.dirs {
				m, err := c.Build(d)
				check(b, m, err)
			}
		}
		b.ReportMetric(files, "files/op")
	})
	b.Run("cold-BuildAll", func(b *testing.B) {
		for b.Loop() {
			c := NewCache()
			for _, r := range c.BuildAll(tr.dirs) {
				check(b, r.Manifest, r.Err)
			}
		}
		b.ReportMetric(files, "files/op")
	})
	warm := NewCache()
	warm.BuildAll(tr.dirs)
	hashed := warm.Stats().Hashed
	b.Run("warm", func(b *testing.B) {
		for b.Loop() {
			for _, d := range tr.dirs {
				m, err := warm.Build(d)
				check(b, m, err)
			}
		}
		b.ReportMetric(float64(warm.Stats().Hashed-hashed)/float64(b.N), "hashed/op")
	})
	b.Run("warm-BuildAll", func(b *testing.B) {
		for b.Loop() {
			for _, r := range warm.BuildAll(tr.dirs) {
				check(b, r.Manifest, r.Err)
			}
		}
		b.ReportMetric(float64(warm.Stats().Hashed-hashed)/float64(b.N), "hashed/op")
	})
	b.Run("floor-hash", func(b *testing.B) {
		buf := make([]byte, 64<<10)
		for b.Loop() {
			for _, p := range tr.files {
				f, err := os.Open(p)
				if err != nil {
					b.Fatal(err)
				}
				h := sha256.New()
				if _, err := io.CopyBuffer(h, f, buf); err != nil {
					b.Fatal(err)
				}
				f.Close()
				_ = h.Sum(nil)
			}
		}
		b.ReportMetric(float64(tr.bytes)/files, "bytes/file")
	})
	b.Run("floor-stat", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for _, d := range tr.dirs {
				n += statWalk(b, d)
			}
			if n != len(tr.files) {
				b.Fatalf("the walk stated %d files, want %d", n, len(tr.files))
			}
		}
	})
}

// statWalk lists dir and the folders below it and stats every file, as a
// warm Build must at least; it returns the files stated.
func statWalk(b *testing.B, dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n += statWalk(b, filepath.Join(dir, e.Name()))
			continue
		}
		if _, err := e.Info(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return n
}
