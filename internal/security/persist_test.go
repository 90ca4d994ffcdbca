//go:build linux

package security

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// settle waits until files written just now have settled (their change
// times, which a test cannot set back, are two seconds old).
func settle() { time.Sleep(2100 * time.Millisecond) }

// The memory is saved only where change times are read (Linux).

// TestScannerMemoryFile checks that a scanner's memory saved to a file
// spares a new scanner reading unchanged files, with the same findings,
// and that every change since is read again: an edit that keeps the size
// and puts the modification time back included.
func TestScannerMemoryFile(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"a/SKILL.md":        skillHead + "Clean.\n",
		"a/references/x.md": "# X\n" + strings.Repeat(".", len(injection)) + "\n",
		"b/SKILL.md":        skillHead + injection,
	})
	testfs.Age(t, base, time.Hour)
	settle()
	files := []string{filepath.Join(base, "a", "SKILL.md"), filepath.Join(base, "b", "SKILL.md")}
	cache := filepath.Join(t.TempDir(), "scan.bin")

	s := NewScanner()
	first := s.Skills(context.Background(), files)
	if err := s.SaveFile(cache); err != nil {
		t.Fatal(err)
	}
	s2 := NewScanner()
	s2.LoadFile(cache)
	again := s2.Skills(context.Background(), files)
	if s2.FilesRead() != 0 {
		t.Errorf("a new scanner with the saved memory read %d files, want 0", s2.FilesRead())
	}
	if !slices.EqualFunc(first, again, slices.Equal) {
		t.Errorf("from the saved memory: %v, first scan: %v", again, first)
	}

	// The same size, the modification time put back: the change time
	// still moved.
	x := filepath.Join(base, "a", "references", "x.md")
	st, err := os.Stat(x)
	if err != nil {
		t.Fatal(err)
	}
	edited := "# X\n" + injection + "\n"
	if len(edited) != int(st.Size()) {
		t.Fatalf("the edit is %d bytes, the file %d", len(edited), st.Size())
	}
	if err := os.WriteFile(x, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(x, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	s3 := NewScanner()
	s3.LoadFile(cache)
	got := s3.Skills(context.Background(), files)
	if s3.FilesRead() != 1 {
		t.Errorf("after an edit keeping size and time, %d files were read, want 1", s3.FilesRead())
	}
	if c := codesOf(t, base, got[0]); !slices.Contains(c, "instruction-override a/references/x.md") {
		t.Errorf("the edit's finding is missing: %v", c)
	}
}

// TestScannerMemoryFileRefused checks that a memory written by another
// build, truncated anywhere or followed by other bytes is ignored whole.
func TestScannerMemoryFileRefused(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"x/SKILL.md": skillHead + "Clean.\n"})
	testfs.Age(t, base, time.Hour)
	settle()
	s := NewScanner()
	s.Skills(context.Background(), []string{filepath.Join(base, "x", "SKILL.md")})
	if s.Len() != 2 {
		t.Fatalf("the scanner remembers %d files and folders, want SKILL.md and its folder", s.Len())
	}
	file := filepath.Join(t.TempDir(), "scan.bin")
	if err := s.saveFile(file, "key", time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if back := NewScanner(); back.loadFile(file, "key") != nil || back.Len() != 2 {
		t.Fatalf("round trip: %d entries, want 2", back.Len())
	}
	if back := NewScanner(); back.loadFile(file, "other build") == nil || back.Len() != 0 {
		t.Error("a memory from another build was read")
	}
	cases := map[string][]byte{"a trailing byte": append(slices.Clone(data), 0)}
	for n := range len(data) {
		cases[fmt.Sprintf("truncated to %d of %d bytes", n, len(data))] = data[:n]
	}
	for name, bad := range cases {
		if err := os.WriteFile(file, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if back := NewScanner(); back.loadFile(file, "key") == nil || back.Len() != 0 {
			t.Errorf("a memory with %s was read", name)
		}
	}
}

// TestMonitorKeepsMemoryInFile checks that a monitor with a CacheFile
// keeps no scanner memory between scans, and that the next scan reads
// the memory back from the file instead of every file again.
func TestMonitorKeepsMemoryInFile(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"bad/SKILL.md": skillHead + injection, "clean/SKILL.md": skillHead + "Clean.\n"})
	testfs.Age(t, base, time.Hour)
	settle()
	var buf bytes.Buffer
	m := NewMonitor(scanmode.Warn, slog.New(slog.NewTextHandler(&buf, nil)))
	m.Delay = 0
	m.CacheFile = filepath.Join(t.TempDir(), "scan.bin")
	bad, clean := record("claude:bad", filepath.Join(base, "bad")), record("claude:clean", filepath.Join(base, "clean"))
	snap := pipeline.NewSnapshot([]*pipeline.Record{bad, clean}, []*pipeline.Record{bad, clean}, nil, nil, nil)
	m.Observe(snap)
	m.Wait()
	if m.scanner != nil {
		t.Fatal("the monitor kept its scanner's memory after writing it to the file")
	}
	saved, err := os.Stat(m.CacheFile)
	if err != nil {
		t.Fatalf("no memory file: %v", err)
	}
	savedAt := saved.ModTime()
	// The next scan starts from the file: nothing is read, the finding
	// is the same (so nothing new is logged).
	logged := buf.String()
	s := NewScanner()
	s.LoadFile(m.CacheFile)
	if found := Annotate(context.Background(), s, []*pipeline.Record{bad, clean}); len(found[bad]) != 1 || s.FilesRead() != 0 {
		t.Errorf("from the file: findings %v, %d files read; want 1 finding, 0 read", found, s.FilesRead())
	}
	m.Observe(snap)
	m.Wait()
	if buf.String() != logged || !strings.Contains(logged, "skill=claude:bad") {
		t.Errorf("log after the second scan:\n%s", buf.String())
	}

	// A new monitor (a restarted server) starts from the file too: its
	// first scan reads no file.
	m2 := NewMonitor(scanmode.Warn, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	m2.Delay, m2.CacheFile = 0, m.CacheFile
	m2.Observe(snap)
	m2.Wait()
	info, err := os.Stat(m.CacheFile)
	if err != nil {
		t.Fatal(err)
	}
	// Nothing was read, so nothing was written: the file is the one the
	// first monitor wrote.
	if !info.ModTime().Equal(savedAt) {
		t.Errorf("the restarted monitor's first scan read files again (it rewrote the memory file)")
	}
}

// TestScannerMemoryFileDigests: the digests Judge records are saved with
// the memory, so that a new scanner judges unchanged files without
// reading them, with the same digests.
func TestScannerMemoryFileDigests(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"a/SKILL.md": skillHead + "Clean.\n", "a/assets/logo.png": png})
	testfs.Age(t, base, time.Hour)
	r := record("claude:a", filepath.Join(base, "a"))
	cache := filepath.Join(t.TempDir(), "scan.bin")
	s := NewScanner()
	_, first := Judge(context.Background(), s, []*pipeline.Record{r})
	if err := s.saveFile(cache, "key", time.Now().Add(time.Hour)); err != nil { // an hour on: every stamp has settled
		t.Fatal(err)
	}
	s2 := NewScanner()
	if err := s2.loadFile(cache, "key"); err != nil {
		t.Fatal(err)
	}
	_, again := Judge(context.Background(), s2, []*pipeline.Record{r})
	if s2.FilesRead() != 0 {
		t.Errorf("a new scanner with the saved memory read %d files, want 0", s2.FilesRead())
	}
	if len(first[r]) != 2 || !slices.Equal(first[r], again[r]) {
		t.Errorf("from the saved memory: %+v, first: %+v", again[r], first[r])
	}
}
