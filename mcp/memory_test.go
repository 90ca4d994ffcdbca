package mcp

import (
	"context"
	"testing"
	"time"
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
