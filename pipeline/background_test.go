package pipeline

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"
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
	// Three different snapshots (Same tells them apart).
	s1, s2, s3 := &Snapshot{Folders: []string{"1"}}, &Snapshot{Folders: []string{"2"}}, &Snapshot{Folders: []string{"3"}}
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

// TestBackgroundSkipsWhatItJudged checks that the snapshot being run, or
// the last one run, offered again (a rescan that changed nothing hands on
// the same snapshot) starts no run and is not kept pending, that another
// snapshot, even one with the same records, does run (its files may have
// changed), and that a snapshot pending is let go as soon as a newer one
// is offered.
func TestBackgroundSkipsWhatItJudged(t *testing.T) {
	rec := &Record{ID: "claude:a", Name: "a"}
	newSnap := func(desc string) *Snapshot {
		return NewSnapshot([]*Record{rec}, []*Record{rec}, nil, nil, []Diagnostic{{Code: desc}})
	}
	var mu sync.Mutex
	var ran []*Snapshot
	started, release := make(chan struct{}, 1), make(chan struct{})
	hold := true
	b := NewBackground(0, func(s *Snapshot) {
		mu.Lock()
		ran = append(ran, s)
		h := hold
		mu.Unlock()
		if h {
			started <- struct{}{}
			<-release
		}
	})
	s1 := newSnap("one")
	b.Offer(s1)
	<-started
	b.Offer(s1) // the snapshot being run
	// A pending snapshot is let go as soon as a newer one is offered.
	pending := newSnap("pending")
	gone := weak.Make(pending)
	b.Offer(pending)
	pending = nil
	s2 := newSnap("two")
	b.Offer(s2)
	runtime.GC()
	if gone.Value() != nil {
		t.Error("a pending snapshot is still held after a newer one was offered")
	}
	b.Offer(s1) // the newest state again: the run going on covers it
	mu.Lock()
	hold = false
	mu.Unlock()
	close(release)
	b.Wait()
	b.Offer(s1) // the last one run
	b.Wait()
	b.Offer(s2) // the one before
	b.Wait()
	again := newSnap("one") // the records of s1, in another snapshot
	b.Offer(again)
	b.Wait()
	mu.Lock()
	defer mu.Unlock()
	if want := []*Snapshot{s1, s2, again}; !slices.Equal(ran, want) {
		t.Errorf("ran %d times on %v, want once on each snapshot offered %v", len(ran), ran, want)
	}
	runtime.KeepAlive(s1)
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

// TestBackgroundRerun checks that Rerun runs the snapshot last run again
// (its files may have changed though its records did not), that a rerun
// asked during a run on the same snapshot follows it once, however often
// it is asked, and that Offer still skips the snapshot run.
func TestBackgroundRerun(t *testing.T) {
	var mu sync.Mutex
	var ran []*Snapshot
	started, release := make(chan struct{}, 1), make(chan struct{})
	hold := true
	b := NewBackground(0, func(s *Snapshot) {
		mu.Lock()
		ran = append(ran, s)
		h := hold
		hold = false
		mu.Unlock()
		if h {
			started <- struct{}{}
			<-release
		}
	})
	s1 := &Snapshot{Folders: []string{"1"}}
	b.Offer(s1)
	<-started
	b.Rerun(s1) // during the run on s1: one more run follows
	b.Rerun(s1) // already pending: not queued twice
	close(release)
	b.Wait()
	b.Offer(s1) // the normal path still skips the last one run
	b.Wait()
	b.Rerun(s1) // asked again after the runs: one more
	b.Wait()
	mu.Lock()
	defer mu.Unlock()
	if want := []*Snapshot{s1, s1, s1}; !slices.Equal(ran, want) {
		t.Errorf("ran %d times, want 3: the first run, one rerun asked during it, one asked after", len(ran))
	}
}
