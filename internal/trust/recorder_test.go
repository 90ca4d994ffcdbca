package trust

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// syncBuffer is a bytes.Buffer safe for the recorder's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRecorder: the server's background recorder records a first sight,
// then logs a changed skill once per state, not again for the same
// change in a later snapshot.
func TestRecorder(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v1"})
	path := filepath.Join(base, "trust.json")
	var logs syncBuffer
	r := NewRecorder(path, slog.New(slog.NewTextHandler(&logs, nil)))
	r.Delay = 0
	observe := func() {
		rec := record(filepath.Join(base, "proj"), pipeline.LocationProject)
		r.Observe(pipeline.NewSnapshot([]*pipeline.Record{rec}, []*pipeline.Record{rec}, nil, nil, nil))
		r.Wait()
	}
	observe()
	if s, err := Load(path); err != nil || len(s.Skills) != 1 {
		t.Fatalf("the recorder did not record the first sight: %v, %v", s, err)
	}
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v2, changed"})
	observe()
	observe()
	if n := strings.Count(logs.String(), "skill files changed since recorded"); n != 1 {
		t.Errorf("%d log lines for one change, want 1:\n%s", n, logs.String())
	}
	if !strings.Contains(logs.String(), "run ccski trust claude:proj") {
		t.Errorf("the log line does not name ccski trust:\n%s", logs.String())
	}
}

// TestRecorderDrift: Drift gives what the last check found of a changed
// skill, nothing for an unchanged or unchecked one, nor once the change is
// accepted, and a nil recorder says nothing.
func TestRecorderDrift(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v1", "user/SKILL.md": "u"})
	path := filepath.Join(base, "trust.json")
	r := NewRecorder(path, slog.New(slog.DiscardHandler))
	r.Delay = 0
	proj := record(filepath.Join(base, "proj"), pipeline.LocationProject)
	user := record(filepath.Join(base, "user"), pipeline.LocationUser)
	observe := func() {
		recs := []*pipeline.Record{proj, user}
		r.Observe(pipeline.NewSnapshot(recs, recs, nil, nil, nil))
		r.Wait()
	}
	if _, ok := r.Drift(proj); ok {
		t.Errorf("drift before the first check")
	}
	observe()
	if in, ok := r.Drift(proj); ok {
		t.Errorf("drift at first sight: %+v", in)
	}
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v2, changed", "user/SKILL.md": "u2"})
	observe()
	in, ok := r.Drift(proj)
	if !ok || in.State != pipeline.IntegrityChanged || in.Since() != "changed since first seen" ||
		len(in.Changed) != 1 || in.Changed[0] != "SKILL.md" {
		t.Errorf("Drift of the changed skill = %+v, %v", in, ok)
	}
	if in, ok := r.Drift(user); ok {
		t.Errorf("a user skill, never checked, drifts: %+v", in)
	}
	if _, err := Accept(path, (&Checker{Path: path}).Manifests(context.Background(), []*pipeline.Record{proj}),
		time.Now()); err != nil {
		t.Fatal(err)
	}
	observe()
	if in, ok := r.Drift(proj); ok {
		t.Errorf("drift after the change was accepted: %+v", in)
	}
	var none *Recorder
	if _, ok := none.Drift(proj); ok {
		t.Errorf("a nil recorder drifts")
	}
}

// TestRecorderKeepsCachesInFiles: with cache files, the recorder holds no
// digests between checks, and a check with nothing changed reads neither
// a file of the skill nor the store; a change is still seen.
func TestRecorderKeepsCachesInFiles(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v1"})
	testfs.Age(t, base, time.Hour)
	time.Sleep(2100 * time.Millisecond) // change times settle
	path := filepath.Join(base, "trust.json")
	var logs syncBuffer
	r := NewRecorder(path, slog.New(slog.NewTextHandler(&logs, nil)))
	r.Delay = 0
	r.DigestFile, r.ResultsFile = filepath.Join(base, "manifests.bin"), filepath.Join(base, "integrity.bin")
	observe := func() {
		rec := record(filepath.Join(base, "proj"), pipeline.LocationProject)
		r.Observe(pipeline.NewSnapshot([]*pipeline.Record{rec}, []*pipeline.Record{rec}, nil, nil, nil))
		r.Wait()
	}
	observe() // records the first sight: the store changes
	time.Sleep(2100 * time.Millisecond)
	observe() // compares with the new store: results are kept
	if r.checker.Cache != nil || r.checker.Results != nil {
		t.Fatal("the recorder kept its caches in memory after writing them to files")
	}
	reads := storeReads.Load()
	observe()
	if n := storeReads.Load() - reads; n != 0 {
		t.Errorf("a check with nothing changed read the store %d times", n)
	}
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "v2, changed"})
	observe()
	if !strings.Contains(logs.String(), "skill files changed since recorded") {
		t.Errorf("a change after the caches went to files was not seen:\n%s", logs.String())
	}
}
