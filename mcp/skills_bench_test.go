package mcp

import (
	"crypto/sha256"
	"encoding/json"
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
	recs    []*pipeline.Record
	files   []string
	folders []string // every skill folder and folder below one
	bytes   int64
}

// benchListTree writes n skills in a temporary folder of b: SKILL.md,
// references/guide.md and scripts/run.py, about 3 KB in all, aged past
// the digest cache's window for files still being written.
func benchListTree(b *testing.B, n int) *listTree {
	root := b.TempDir()
	tr := &listTree{}
	body := strings.Repeat("Follow the steps in order and check each result. ", 20)
	old := time.Now().Add(-time.Hour)
	for i := range n {
		name := fmt.Sprintf("skill-%05d", i)
		dir := filepath.Join(root, name)
		tr.folders = append(tr.folders, dir, filepath.Join(dir, "references"), filepath.Join(dir, "scripts"))
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
	written := time.Now()
	pipeline.AssignIDs(tr.recs)
	// Chtimes sets the modification time back, but the change time of
	// every file and folder is now: wait until the digest cache's window
	// for files still being written (two seconds) has passed, so that
	// the warm rows measure a cache that trusts every file.
	time.Sleep(time.Until(written.Add(2500 * time.Millisecond)))
	return tr
}

// benchListResult is a skills/list page as the benchmark's client reads
// it: every entry is checked to be JSON and kept as bytes, so that the
// client's own work (maps of every frontmatter) stays out of the figures.
type benchListResult struct {
	sdk.ResultBase
	Skills     []json.RawMessage `json:"skills"`
	NextCursor string            `json:"nextCursor,omitempty"`
}

// listEverything reads every page of skills/list and returns the number
// of entries.
func listEverything(b *testing.B, cs *sdk.ClientSession) int {
	ctx := b.Context()
	p, n := &listSkillsParams{}, 0
	for {
		res, err := sdk.CallCustomMethod[*listSkillsParams, *benchListResult](ctx, cs, "skills/list", p)
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
	if err := sdk.AddSendingCustomMethod[*listSkillsParams, *benchListResult](c, "skills/list"); err != nil {
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
// in-memory transport: first (a new server, nothing hashed yet), warm
// (digests cached: a walk and a stat per file) and restart (a new server
// with the digest file an earlier one saved), next to the floors of
// reading and hashing the same bytes (with as many workers as the
// listing uses) and of only stating every file.
//
//	CCSKI_BENCH_SKILLS=10000,50000 go test -run '^$' -bench SkillsList -benchtime 3x ./mcp/
func BenchmarkSkillsList(b *testing.B) {
	for _, n := range benchSizes() {
		tr := benchListTree(b, n)
		snap := snapOf(tr.recs)
		b.Run(fmt.Sprintf("n=%d/first", n), func(b *testing.B) {
			var cpu cpuMeter
			for b.Loop() {
				b.StopTimer()
				srv := New(snap, Options{Logger: discard()})
				cs := benchClient(b, srv)
				b.StartTimer()
				cpu.start()
				if got := listEverything(b, cs); got != n {
					b.Fatalf("listed %d skills, want %d", got, n)
				}
				cpu.stop()
			}
			b.ReportMetric(float64(len(tr.files)), "files")
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("n=%d/warm", n), func(b *testing.B) {
			srv := New(snap, Options{Logger: discard()})
			cs := benchClient(b, srv)
			listEverything(b, cs)
			var cpu cpuMeter
			for b.Loop() {
				cpu.start()
				if got := listEverything(b, cs); got != n {
					b.Fatalf("listed %d skills, want %d", got, n)
				}
				cpu.stop()
			}
			cpu.report(b)
		})
		// A new server whose digest file (Options.SkillDigests) an
		// earlier one saved: a restart.
		b.Run(fmt.Sprintf("n=%d/restart", n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "skills.bin")
			srv := New(snap, Options{Logger: discard(), SkillDigests: file})
			listEverything(b, benchClient(b, srv))
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
				if _, err := os.Stat(file); err == nil && !srv.skills.saving.Load() {
					break
				}
				if time.Now().After(deadline) {
					b.Fatal("the digest file was not saved")
				}
			}
			var cpu cpuMeter
			for b.Loop() {
				b.StopTimer()
				srv := New(snap, Options{Logger: discard(), SkillDigests: file})
				cs := benchClient(b, srv)
				b.StartTimer()
				cpu.start()
				if got := listEverything(b, cs); got != n {
					b.Fatalf("listed %d skills, want %d", got, n)
				}
				cpu.stop()
			}
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("n=%d/floor-hash", n), func(b *testing.B) {
			var cpu cpuMeter
			for b.Loop() {
				cpu.start()
				hashAll(b, tr.files)
				cpu.stop()
			}
			b.SetBytes(tr.bytes)
			cpu.report(b)
		})
		b.Run(fmt.Sprintf("n=%d/floor-stat", n), func(b *testing.B) {
			var cpu cpuMeter
			for b.Loop() {
				cpu.start()
				for _, f := range tr.files {
					if _, err := os.Stat(f); err != nil {
						b.Fatal(err)
					}
				}
				cpu.stop()
			}
			cpu.report(b)
		})
		// What a listing that is never stale has to stat at least: every
		// file (for its content) and every folder (for files added or
		// removed), here on one goroutine.
		b.Run(fmt.Sprintf("n=%d/floor-stat-tree", n), func(b *testing.B) {
			var cpu cpuMeter
			for b.Loop() {
				cpu.start()
				for _, list := range [][]string{tr.folders, tr.files} {
					for _, f := range list {
						if _, err := os.Lstat(f); err != nil {
							b.Fatal(err)
						}
					}
				}
				cpu.stop()
			}
			cpu.report(b)
		})
	}
}

// cpuMeter adds up the process's CPU time (server and client) over the
// timed part of a benchmark: on a shared machine it moves less with other
// jobs' load than the wall time does.
type cpuMeter struct {
	at, total time.Duration
	ok        bool
}

func (m *cpuMeter) start() { m.at, m.ok = processCPU() }

func (m *cpuMeter) stop() {
	if now, ok := processCPU(); ok && m.ok {
		m.total += now - m.at
	}
}

// report adds the CPU milliseconds per listing to b's results.
func (m *cpuMeter) report(b *testing.B) {
	if m.ok && b.N > 0 {
		b.ReportMetric(float64(m.total.Microseconds())/1000/float64(b.N), "cpu-ms/op")
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

// BenchmarkSkillCall measures one call of the skill tool over an
// in-memory transport, and the SKILL.md read alone (readSkill), for
// SKILL.md files of several sizes, without a gate and under one
// (mcp.scan: block or mcp.require_trusted: the file is then read whole,
// hashed and compared with what the gate judged; see judged.go).
//
//	go test -run '^$' -bench SkillCall ./mcp/
func BenchmarkSkillCall(b *testing.B) {
	line := "Follow the steps in order and check each result before the next one.\n"
	for _, size := range []int{4 << 10, 256 << 10, 1 << 20} {
		dir := filepath.Join(b.TempDir(), "bench-skill")
		body := "---\nname: bench-skill\ndescription: Benchmark skill.\n---\n# Bench\n\n"
		body += strings.Repeat(line, (size-len(body))/len(line)+1)
		body = body[:size]
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		file := filepath.Join(dir, "SKILL.md")
		if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		rec := &pipeline.Record{Name: "bench-skill", Description: "Benchmark skill.", Agent: "claude",
			Location: pipeline.LocationUser, Root: filepath.Dir(dir), Dir: dir, RealDir: dir, File: file}
		pipeline.AssignIDs([]*pipeline.Record{rec})
		judged := judgedFolder(b, dir)
		for _, gate := range []pipeline.Gate{"", pipeline.GateScan} {
			snap := snapOf([]*pipeline.Record{rec})
			name := "no-gate"
			if gate != "" {
				snap.Judged = []pipeline.Judgement{{Gate: gate, Files: map[*pipeline.Record]pipeline.JudgedFiles{rec: judged}}}
				name = "gate"
			}
			b.Run(fmt.Sprintf("size=%dKiB/%s/call", size>>10, name), func(b *testing.B) {
				srv := New(snap, Options{Logger: discard()})
				cs := benchClient(b, srv)
				b.SetBytes(int64(size))
				for b.Loop() {
					res, err := call(b.Context(), cs, map[string]any{"name": "bench-skill"})
					if err != nil || res.IsError {
						b.Fatalf("skill call: %v %+v", err, res)
					}
				}
			})
			b.Run(fmt.Sprintf("size=%dKiB/%s/read", size>>10, name), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					if _, err := readSkill(file, judgedOwn(snap, rec)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
