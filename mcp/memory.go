package mcp

import (
	"context"
	"runtime/debug"
	"time"
)

// Touch records activity: a tool call, or a refresh that left the previous
// snapshot behind as garbage.
func (s *Server) Touch() {
	s.lastActive.Store(time.Now().UnixNano())
	s.dirty.Store(true)
}

// ReleaseWhenIdle returns freed memory to the operating system once the
// server has been idle for idle after some work, until ctx is done. A
// long-running server's resident size is otherwise set by its worst burst
// (a cold scan, many large replies at once) for as long as it runs; this
// costs one collection per burst and nothing while the server is busy or
// idle. It returns nil.
func (s *Server) ReleaseWhenIdle(ctx context.Context, idle time.Duration) error {
	t := time.NewTicker(idle / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-t.C:
			if s.dirty.Load() && now.Sub(time.Unix(0, s.lastActive.Load())) >= idle && s.inflight.Load() == 0 {
				s.dirty.Store(false)
				debug.FreeOSMemory()
			}
		}
	}
}
