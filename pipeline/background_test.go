package pipeline

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServable checks that a snapshot serves its visible skills and the
// skill copies a dedupe hid, but neither commands nor copies hidden for
// another reason.
func TestServable(t *testing.T) {
	a := &Record{ID: "claude:a", Name: "a"}
	cmd := &Record{ID: "claude:/c", Name: "c", Type: TypeCommand}
	hid := &Record{ID: "codex:a", Name: "a"}
	off := &Record{ID: "codex:b", Name: "b"}
	hidCmd := &Record{ID: "codex:/c", Name: "c", Type: TypeCommand}
	drops := []Drop{{Record: hid, By: a}, {Record: off}, {Record: hidCmd, By: cmd}}
	s := NewSnapshot([]*Record{a, cmd, hid, off, hidCmd}, []*Record{a, cmd}, drops, nil, nil)
	if got := s.Servable(); !slices.Equal(got, []*Record{a, hid}) {
		t.Errorf("servable %v, want the visible skill and the copy a dedupe hid", got)
	}
}

// TestBackground checks that offers made while a run goes coalesce into
// one run on the newest snapshot, and that Wait waits for it.
func TestBackground(t *testing.T) {
	var mu sync.Mutex
	var ran []*Snapshot
	started, release := make(chan struct{}), make(chan struct{})
	b := NewBackground(0, func(s *Snapshot) {
		if len(ran) == 0 {
			close(started)
			<-release // hold the first run while more are offered
		}
		mu.Lock()
		ran = append(ran, s)
		mu.Unlock()
	})
	s1, s2, s3 := &Snapshot{}, &Snapshot{}, &Snapshot{}
	b.Offer(s1)
	<-started // the first run has taken s1
	b.Offer(s2)
	b.Offer(s3)
	close(release)
	b.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(ran, []*Snapshot{s1, s3}) {
		t.Errorf("ran on %d snapshots %v, want the first and the newest", len(ran), ran)
	}
}

// TestBackgroundsTakeTurns checks that the runs of two Backgrounds never
// overlap: a second run waits for the first, so that their memory is
// never held at once (a server's security scan and trust recorder).
func TestBackgroundsTakeTurns(t *testing.T) {
	var inFirst, overlapped atomic.Bool
	started, release := make(chan struct{}), make(chan struct{})
	first := NewBackground(0, func(*Snapshot) {
		inFirst.Store(true)
		close(started)
		<-release
		inFirst.Store(false)
	})
	secondDone := make(chan struct{})
	second := NewBackground(0, func(*Snapshot) {
		if inFirst.Load() {
			overlapped.Store(true)
		}
	})
	first.Offer(&Snapshot{})
	<-started
	second.Offer(&Snapshot{})
	go func() { second.Wait(); close(secondDone) }()
	// Give the second run the time to start, as it did before runs took
	// turns; taking turns, it cannot end before the first is released.
	select {
	case <-secondDone:
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	first.Wait()
	<-secondDone
	if overlapped.Load() {
		t.Error("the second Background ran while the first was running")
	}
}
