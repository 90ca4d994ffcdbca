package mcp

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// benchSizes are the catalogue sizes of BenchmarkSkillsList:
// CCSKI_BENCH_SKILLS=10000,50000 for the report; 2,000 by default, so a
// plain -bench run stays short on a 2-core machine.
func benchSizes() []int {
	spec := os.Getenv("CCSKI_BENCH_SKILLS")
	if spec == "" {
		spec = "2000"
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 {
			out = append(out, n)
		}
	}
	return out
}

// listTree is n skill folders of three files each, with records.
type listTree struct {
	recs  []*pipeline.Record
	files []string
	bytes int64
}

var (
	listTreesMu sync.Mutex
	listTrees   = map[int]*listTree{}
)

// benchListTree writes (once per size and run) n skills: SKILL.md,
// references/guide.md and scripts/run.py, about 3 KB in all, aged past
// the digest cache's window for files still being written.
func benchListTree(b *testing.B, n int) *listTree {
	listTreesMu.Lock()
	defer listTreesMu.Unlock()
	if tr := listTrees[n]; tr != nil {
		return tr
	}
	root := b.TempDir()
	tr := &listTree{}
	body := strings.Repeat("Follow the steps in order and check each result. ", 20)
	old := time.Now().Add(-time.Hour)
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(root, name)
		for rel, data := range map[string]string{
			"SKILL.md":            "---\nname: " + name + "\ndescription: Benchmark skill " + name + ".\n---\n# " + name + "\n\n" + body,
			"references/guide.md": "# Guide\n\n" + body,
			"scripts/run.py":      "print('" + name + "')\n",
		} {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
			tr.files = append(tr.files, p)
			tr.bytes += int64(len(data))
		}
		tr.recs = append(tr.recs, &pipeline.Record{Name: name, Description: "Benchmark skill " + name + ".",
			Agent: "codex", Location: pipeline.LocationUser, Root: root, Dir: dir, RealDir: dir,
			File: filepath.Join(dir, "SKILL.md")})
	}
	pipeline.AssignIDs(tr.recs)
	listTrees[n] = tr
	return tr
}

// listEverything reads every page of skills/list and returns the number
// of entries.
func listEverything(b *testing.B, cs *sdk.ClientSession) int {
	ctx := b.Context()
	p, n := &listSkillsParams{}, 0
	for {
		res, err := sdk.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, cs, "skills/list", p)
		if err != nil {
			b.Fatal(err)
		}
		n += len(res.Skills)
		if res.NextCursor == "" {
			return n
		}
		p = &listSkillsParams{Cursor: res.NextCursor}
	}
}

func benchClient(b *testing.B, srv *Server) *sdk.ClientSession {
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	if err := sdk.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](c, "skills/list"); err != nil {
		b.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(b.Context(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ss.Close() })
	cs, err := c.Connect(b.Context(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// BenchmarkSkillsList measures a whole skills/list (every page) over an
// in-memory transport: first (a new server, nothing hashed yet) and warm
// (digests cached: a walk and a stat per file), next to the floors of
// reading and hashing the same bytes (with as many workers as the
// listing uses) and of only stating every file.
//
//	CCSKI_BENCH_SKILLS=10000,50000 go test -run '^$' -bench SkillsList -benchtime 3x ./mcp/
func BenchmarkSkillsList(b *testing.B) {
	for _, n := range benchSizes() {
		tr := benchListTree(b, n)
		snap := snapOf(tr.recs)
		b.Run(fmt.Sprintf("n=%d/first", n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				srv := New(snap, Options{Logger: discard()})
				cs := benchClient(b, srv)
				b.StartTimer()
				if got := listEverything(b, cs); got != n {
					b.Fatalf("listed %d skills, want %d", got, n)
				}
			}
			b.ReportMetric(float64(len(tr.files)), "files")
		})
		b.Run(fmt.Sprintf("n=%d/warm", n), func(b *testing.B) {
			srv := New(snap, Options{Logger: discard()})
			cs := benchClient(b, srv)
			listEverything(b, cs)
			for b.Loop() {
				if got := listEverything(b, cs); got != n {
					b.Fatalf("listed %d skills, want %d", got, n)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/floor-hash", n), func(b *testing.B) {
			for b.Loop() {
				hashAll(b, tr.files)
			}
			b.SetBytes(tr.bytes)
		})
		b.Run(fmt.Sprintf("n=%d/floor-stat", n), func(b *testing.B) {
			for b.Loop() {
				for _, f := range tr.files {
					if _, err := os.Stat(f); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// hashAll reads and hashes files with GOMAXPROCS workers.
func hashAll(b *testing.B, files []string) {
	var wg sync.WaitGroup
	next := make(chan string)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			h := sha256.New()
			for f := range next {
				fh, err := os.Open(f)
				if err != nil {
					b.Error(err)
					continue
				}
				h.Reset()
				_, _ = io.Copy(h, fh)
				fh.Close()
			}
		})
	}
	for _, f := range files {
		next <- f
	}
	close(next)
	wg.Wait()
}
