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
// the build it starts indexes the newest snapshot only.
func TestBodyIndexRefreshDoesNotWait(t *testing.T) {
	var b bodyIndex
	b.built.Store(true)
	b.mu.Lock() // a build going on
	older, newer := &pipeline.Snapshot{}, &pipeline.Snapshot{}
	done := make(chan struct{})
	go func() {
		// In the turn, as when the server's security scan runs: the
		// builds wait for it, and find the newer snapshot when it ends.
		pipeline.InTurn(func() {
			nolog := func(string, ...any) {}
			b.refresh(older, false, nolog)
			b.refresh(newer, false, nolog)
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("refresh waited for the build going on")
	}
	b.mu.Unlock()
	// The builds queued run in turn; the older one skips its build.
	for {
		pipeline.InTurn(func() {})
		b.mu.Lock()
		snap := b.snap
		b.mu.Unlock()
		if snap == newer {
			break
		}
		if snap == older {
			t.Fatal("the body index was built for a snapshot a newer one had replaced")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
