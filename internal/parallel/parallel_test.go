package parallel

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestEachCallsEveryIndexOnce checks that every index is done exactly
// once, whatever the number of workers against the number of items.
func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 4}, {1, 4}, {7, 1}, {100, 3}, {100, 0}, {5, 50}} {
		counts := make([]atomic.Int32, tc.n)
		Each(context.Background(), tc.n, tc.workers, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Errorf("n=%d workers=%d: index %d done %d times, want 1", tc.n, tc.workers, i, c)
			}
		}
	}
}

// TestEachBoundsWorkers checks that no more than workers calls run at
// once: with four goroutines each blocked until all four have started, a
// fifth concurrent call would be seen.
func TestEachBoundsWorkers(t *testing.T) {
	const workers = 4
	var running, most atomic.Int32
	var started sync.WaitGroup
	started.Add(workers)
	var once [workers]sync.Once
	Each(context.Background(), 40, workers, func(i int) {
		now := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		if i < workers {
			once[i].Do(started.Done)
			started.Wait() // the first four overlap
		}
	})
	if got := most.Load(); got != workers {
		t.Errorf("at most %d calls ran at once, want %d", got, workers)
	}
}

// TestEachStopsWhenCancelled checks that no call starts once ctx has
// ended.
func TestEachStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var calls atomic.Int32
	Each(ctx, 1000, 1, func(i int) {
		calls.Add(1)
		if i == 9 {
			cancel()
		}
	})
	if got := calls.Load(); got != 10 {
		t.Errorf("%d calls, want 10: none after the cancel", got)
	}
}

// TestEachWithGivesEachWorkerItsOwnState checks that the state passed to
// a call belongs to one goroutine: the counts kept in it add up to n,
// and with one worker it sees every item.
func TestEachWithGivesEachWorkerItsOwnState(t *testing.T) {
	type tally struct{ seen int }
	var mu sync.Mutex
	states := map[*tally]bool{}
	var total atomic.Int32
	EachWith(context.Background(), 50, 1, func(s *tally, i int) {
		s.seen++
		total.Add(1)
		mu.Lock()
		states[s] = true
		mu.Unlock()
		if i == 49 && s.seen != 50 {
			t.Errorf("the one worker's state saw %d items, want 50", s.seen)
		}
	})
	if len(states) != 1 || total.Load() != 50 {
		t.Errorf("%d states for one worker and %d calls, want 1 and 50", len(states), total.Load())
	}
}
