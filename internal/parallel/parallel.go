// Package parallel runs the iterations of a loop on a pool of goroutines:
// the one worker pool behind ccski's parallel passes (scan's walks and
// reads, validate, the security scan, manifests, the MCP skills list, the
// benchmarks).
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls do(i) once for each i from 0 to n-1, on min(workers, n)
// goroutines (workers <= 0 means runtime.GOMAXPROCS(0)), and returns when
// every call has returned. The goroutines take the next index in turn, so
// that a slow item holds up one goroutine only. Once ctx ends no further
// call starts: the indexes not reached are left undone.
func Each(ctx context.Context, n, workers int, do func(i int)) {
	EachWith(ctx, n, workers, func(_ *struct{}, i int) { do(i) })
}

// EachWith is Each where every goroutine owns a zero S that it passes to
// each of its calls: scratch state (a buffer, a parser) reused from one
// item to the next without a lock.
func EachWith[S any](ctx context.Context, n, workers int, do func(s *S, i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			var s S
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				do(&s, i)
			}
		})
	}
	wg.Wait()
}
