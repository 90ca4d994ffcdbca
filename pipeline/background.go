package pipeline

import (
	"sync"
	"time"
)

// Background runs work on the newest snapshot it is offered, in the
// background and one run at a time: a server's subscribers (the security
// scan, the trust recorder) use it so that serving never waits for them.
// A snapshot offered while a run is going replaces any not yet started;
// the first run waits Delay, so that the clients' first requests are
// answered before the work takes its share of the processor.
//
// The runs of every Background of a process take turns (see turn): each
// reads what it checks into memory for the length of a run, and a server
// that ran them at once held the memory of all of them at once, which
// set its peak RSS.
type Background struct {
	// Delay is how long the first run waits after the first offer.
	Delay time.Duration

	run     func(*Snapshot)
	mu      sync.Mutex
	started bool
	next    *Snapshot
	running bool
	idle    *sync.Cond
}

// NewBackground returns a Background that runs run, the first time after
// delay.
func NewBackground(delay time.Duration, run func(*Snapshot)) *Background {
	b := &Background{Delay: delay, run: run}
	b.idle = sync.NewCond(&b.mu)
	return b
}

// Offer hands snap to the next run; it never blocks.
func (b *Background) Offer(snap *Snapshot) {
	b.mu.Lock()
	b.next = snap
	start := !b.running
	b.running = true
	b.mu.Unlock()
	if start {
		go b.loop()
	}
}

// Wait returns once no run is going or pending: for tests.
func (b *Background) Wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.running {
		b.idle.Wait()
	}
}

func (b *Background) loop() {
	b.mu.Lock()
	first := !b.started
	b.started = true
	b.mu.Unlock()
	if first && b.Delay > 0 {
		time.Sleep(b.Delay)
	}
	for {
		b.mu.Lock()
		snap := b.next
		b.next = nil
		if snap == nil {
			b.running = false
			b.idle.Broadcast()
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		turn.Lock()
		b.run(snap)
		turn.Unlock()
	}
}

// turn is held by the run of a Background going on, so that the runs of
// a process's Backgrounds never overlap.
var turn sync.Mutex

// Servable returns the skill records of s that an agent can be served:
// the visible skills, and the copies only a dedupe hid (which load by
// their id).
func (s *Snapshot) Servable() []*Record {
	out := make([]*Record, 0, len(s.Visible))
	out = append(out, s.Skills()...)
	for _, d := range s.Drops {
		if d.Loadable() && !d.Record.IsCommand() {
			out = append(out, d.Record)
		}
	}
	return out
}
