package usage

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// TestAddCounts checks that loads add up, that the file holds ids and
// numbers only, and that a missing file is an empty count.
func TestAddCounts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ccski", FileName)
	if got, err := Read(path); err != nil || len(got) != 0 {
		t.Fatalf("Read of a missing file = %v, %v; want an empty count", got, err)
	}
	for _, id := range []string{"claude:pdf", "codex:pdf", "claude:pdf"} {
		if err := Add(path, id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(path)
	if err != nil || got["claude:pdf"] != 2 || got["codex:pdf"] != 1 || len(got) != 2 {
		t.Fatalf("Read = %v, %v; want claude:pdf 2, codex:pdf 1", got, err)
	}
	data, _ := os.ReadFile(path)
	want := "{\n  \"version\": 1,\n  \"loads\": {\n    \"claude:pdf\": 2,\n    \"codex:pdf\": 1\n  }\n}\n"
	if string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v, %v; want 0600", st, err)
	}
}

// TestAddConcurrently checks that increments made at once, as by several
// servers, are all kept where the system locks files.
func TestAddConcurrently(t *testing.T) {
	if !safefile.CanLock {
		t.Skip("no file locks here: concurrent increments may be lost, as documented")
	}
	path := filepath.Join(t.TempDir(), FileName)
	const workers, each = 8, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				errs <- Add(path, fmt.Sprintf("skill-%d", (w+i)%3))
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range got {
		total += n
	}
	if total != workers*each {
		t.Errorf("counted %d loads (%v), want %d", total, got, workers*each)
	}
}

// TestCorruptFile checks that a file that cannot be read as a count is an
// error naming it and saying how to start again, and is left alone.
func TestCorruptFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	for _, content := range []string{"not json", `{"version": 9, "loads": {}}`} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, err := range []error{Add(path, "x"), func() error { _, err := Read(path); return err }()} {
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete the file") {
				t.Errorf("%q: error %v, want one naming the file and saying to delete it", content, err)
			}
		}
		if data, _ := os.ReadFile(path); string(data) != content {
			t.Errorf("the file was changed to %q", data)
		}
	}
}

// TestTrim checks that the count keeps the most loaded skills when it
// holds too many.
func TestTrim(t *testing.T) {
	counts := map[string]int{}
	for i := range maxSkills + 3 {
		counts[fmt.Sprintf("s%05d", i)] = 1
	}
	counts["busy"] = 50
	trim(counts)
	if len(counts) != maxSkills || counts["busy"] != 50 {
		t.Errorf("trim kept %d skills (busy: %d), want %d with busy", len(counts), counts["busy"], maxSkills)
	}
}

// TestPath checks where the count lives: ccski's state folder.
func TestPath(t *testing.T) {
	home := t.TempDir()
	got, err := Path(home, func(string) string { return "" })
	if want := filepath.Join(home, ".local", "state", "ccski", FileName); err != nil || got != want {
		t.Errorf("Path = %q, %v; want %q", got, err, want)
	}
}

// TestCounterWaitsOnNothing checks that a Counter's loads never wait on
// the file: they are counted while another process holds its lock, and
// all arrive in the file at Close.
func TestCounterWaitsOnNothing(t *testing.T) {
	if !safefile.CanLock {
		t.Skip("no file locks here")
	}
	path := filepath.Join(t.TempDir(), FileName)
	unlock, err := safefile.LockFile(path+".lock", 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCounter(path, time.Hour, func(err error) { t.Error(err) })
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				c.Add(fmt.Sprintf("skill-%d", (w+i)%3))
			}
		})
	}
	wg.Wait() // with the lock held elsewhere: no Add waited on it
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the file was written while its lock was held (%v)", err)
	}
	unlock()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || sum(got) != workers*each || len(got) != 3 {
		t.Errorf("Read = %v, %v; want %d loads over 3 skills", got, err, workers*each)
	}
	c.Add("late") // after Close: written at once
	if got, _ := Read(path); got["late"] != 1 {
		t.Errorf("a load after Close is not in the file: %v", got)
	}
}

// TestCountersMerge checks that the counts of several processes (here two
// Counters and a plain Add, each locking the file on its own) merge with
// what the file held, none lost.
func TestCountersMerge(t *testing.T) {
	if !safefile.CanLock {
		t.Skip("no file locks here: concurrent writes may be lost, as documented")
	}
	path := filepath.Join(t.TempDir(), "state", FileName)
	if err := Add(path, "old"); err != nil {
		t.Fatal(err)
	}
	a, b := NewCounter(path, time.Millisecond, nil), NewCounter(path, time.Millisecond, nil)
	const each = 200
	var wg sync.WaitGroup
	for _, c := range []*Counter{a, b} {
		wg.Go(func() {
			for i := range each {
				c.Add(fmt.Sprintf("s%d", i%4))
				if i%50 == 0 {
					if err := c.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Go(func() {
		for range each {
			if err := Add(path, "old"); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	for _, c := range []*Counter{a, b} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(path)
	if err != nil || got["old"] != each+1 || sum(got) != 3*each+1 {
		t.Errorf("Read = %v, %v; want old %d and %d loads in all", got, err, each+1, 3*each+1)
	}
}

// TestCounterWritesInBackground checks that loads reach the file without
// a Close, once the interval has passed.
func TestCounterWritesInBackground(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	c := NewCounter(path, time.Millisecond, func(err error) { t.Error(err) })
	defer c.Close()
	c.Add("x")
	c.Add("x")
	for {
		got, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if got["x"] == 2 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCounterKeepsOnError checks that loads a write could not add (a
// corrupt file, left alone) are kept, and written once the file is
// deleted.
func TestCounterKeepsOnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := NewCounter(path, time.Hour, nil)
	c.Add("x")
	if err := c.Flush(); err == nil || !strings.Contains(err.Error(), "delete the file") {
		t.Fatalf("Flush over a corrupt file: %v, want an error saying to delete it", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "not json" {
		t.Fatalf("the corrupt file was changed to %q", data)
	}
	c.Add("x")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(path); err != nil || got["x"] != 2 {
		t.Errorf("Read = %v, %v; want x 2", got, err)
	}
}

func sum(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}
