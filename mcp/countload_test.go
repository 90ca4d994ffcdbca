package mcp

import (
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/usage"
)

// TestLoadsCountedInMemory checks that concurrent skill loads do not each
// rewrite the count's file (the file is written in the background, not by
// the calls: none has been written when the calls return), and that every
// load is in the file once the server has written what it counted.
func TestLoadsCountedInMemory(t *testing.T) {
	old := countInterval
	countInterval = time.Hour // no background write during the test
	t.Cleanup(func() { countInterval = old })
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "lint", desc: "Lint code."},
		skillSpec{provider: "claude", name: "pdf", desc: "Fill PDF forms."})
	path := t.TempDir() + "/state/usage.json"
	srv := New(snapOf(recs), Options{Logger: discard(), Usage: path})
	cs := connect(t, srv, "", nil)
	ctx := testCtx(t, 30*time.Second)
	const calls = 40
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for i := range calls {
		name := []string{"lint", "pdf"}[i%2]
		wg.Go(func() {
			res, err := call(ctx, cs, map[string]any{"name": name})
			if err == nil && res.IsError {
				t, _ := textOf(res)
				err = &callError{t}
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got, err := usage.Read(path); err != nil || len(got) != 0 {
		t.Fatalf("after %d calls the file holds %v (%v): the calls wrote it, want it written in the background", calls, got, err)
	}
	srv.closeCount()
	got, err := usage.Read(path)
	if err != nil || got[recs[0].ID] != calls/2 || got[recs[1].ID] != calls/2 || len(got) != 2 {
		t.Errorf("after the server wrote its count, the file holds %v (%v); want %s and %s with %d loads each",
			got, err, recs[0].ID, recs[1].ID, calls/2)
	}
}

type callError struct{ text string }

func (e *callError) Error() string { return "skill call failed: " + e.text }
