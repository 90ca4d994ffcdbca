package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReleaseWhenIdle checks that memory is released once after activity
// and an idle spell, and not while calls keep coming.
func TestReleaseWhenIdle(t *testing.T) {
	s := &Server{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ReleaseWhenIdle(ctx, 40*time.Millisecond) }()

	// Busy: touched every 10 ms, so never idle long enough.
	for i := 0; i < 10; i++ {
		s.Touch()
		time.Sleep(10 * time.Millisecond)
	}
	if !s.dirty.Load() {
		t.Error("memory was released while calls kept coming")
	}
	// Idle: released within a few idle periods.
	deadline := time.Now().Add(2 * time.Second)
	for s.dirty.Load() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.dirty.Load() {
		t.Error("memory was not released after the server went idle")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ReleaseWhenIdle returned %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("ReleaseWhenIdle did not return after cancel")
	}
}

// TestReadsAreWork checks that resource reads count as activity and are
// refused once the server drains, like tool calls.
func TestReadsAreWork(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "Read PDFs."})
	s := New(snapOf(recs), Options{Version: "test"})
	cs := connect(t, s, "2025-11-25", nil)
	uri := recs[0].SkillURI()
	s.dirty.Store(false)
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err != nil {
		t.Fatalf("read before drain: %v", err)
	}
	if !s.dirty.Load() {
		t.Error("a resource read did not count as activity")
	}
	if !s.Drain(time.Second) {
		t.Fatal("Drain with nothing in flight did not finish")
	}
	_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("read after drain: err = %v, want a shutting-down error", err)
	}
}
