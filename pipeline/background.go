package pipeline

import (
	"sync"
	"time"
	"weak"
)

// Background runs work on the newest snapshot it is offered, in the
// background and one run at a time: a server's subscribers (the security
// scan, the trust recorder) use it so that serving never waits for them.
// A snapshot offered while a run is going replaces any not yet started;
// the first run waits Delay, so that the clients' first requests are
// answered before the work takes its share of the processor.
//
// The snapshot a run is going on, or the last run was on, offered again
// (a rescan that changed nothing keeps the snapshot served) is not run
// again, and does not stay pending: the Background holds no second
// reference to what it already judged. Another snapshot with the same
// records does run: the work may read files the records do not describe
// (the security scan reads every file of a skill), which may have
// changed; for the same reason Rerun runs the very snapshot again, on
// request (a server's discovery asks after every rescan that kept it).
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
	// cur is the snapshot of the run going on; last the one of the last
	// run, held weakly so that it goes once nothing else holds it.
	cur  *Snapshot
	last weak.Pointer[Snapshot]
	idle *sync.Cond
}

// NewBackground returns a Background that runs run, the first time after
// delay.
func NewBackground(delay time.Duration, run func(*Snapshot)) *Background {
	b := &Background{Delay: delay, run: run}
	b.idle = sync.NewCond(&b.mu)
	return b
}

// Offer hands snap to the next run, in place of any snapshot offered
// before and not yet run; it never blocks. The snapshot being run, or
// the last one run, is the newest state already covered: it only drops
// the one pending.
func (b *Background) Offer(snap *Snapshot) { b.offer(snap, false) }

// Rerun hands snap to the next run even when it is the snapshot being
// run or the last one run: for work that reads files the records do not
// describe (a script, a reference), which may have changed while a rescan
// that found nothing changed kept the snapshot (see live.Refresher). As
// with Offer it replaces the snapshot pending and never blocks; snap
// already pending is not queued twice, and a run going on on snap is
// followed by one more, since it may have read a file before its change.
func (b *Background) Rerun(snap *Snapshot) { b.offer(snap, true) }

// offer is Offer, and Rerun when again is set.
func (b *Background) offer(snap *Snapshot, again bool) {
	b.mu.Lock()
	if !again && b.covers(snap) {
		b.next = nil
		b.mu.Unlock()
		return
	}
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
		b.cur = snap
		b.mu.Unlock()
		turn.Lock()
		b.run(snap)
		turn.Unlock()
		b.mu.Lock()
		b.cur, b.last = nil, weak.Make(snap)
		b.mu.Unlock()
	}
}

// covers reports whether a run is going on, or the last run was, on snap.
// b.mu is held.
func (b *Background) covers(snap *Snapshot) bool {
	return snap == b.cur || snap == b.last.Value()
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
