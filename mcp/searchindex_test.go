package mcp

import (
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// TestBodyIndexRefreshDoesNotWait checks that a snapshot's update never
// waits for a body index build going on (which holds the index's lock for
// as long as it reads every body: a minute at 100,000 skills on a first
// start, during which the server's other subscribers waited), and that
// the builds it asks for end on the newest snapshot.
func TestBodyIndexRefreshDoesNotWait(t *testing.T) {
	var b bodyIndex
	b.built.Store(true)
	b.mu.Lock() // a build going on
	older, newer := &pipeline.Snapshot{}, &pipeline.Snapshot{}
	done := make(chan struct{})
	go func() {
		nolog := func(string, ...any) {}
		b.refresh(older, false, nolog)
		b.refresh(newer, false, nolog)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("refresh waited for the build going on")
	}
	b.mu.Unlock()
	b.bg.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.snap != newer {
		t.Error("the body index was not left built for the newest snapshot")
	}
}
