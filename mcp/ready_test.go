package mcp

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeBeforeFirstSnapshot checks that a server built without a
// snapshot answers initialize at once, holds tools/list, prompts/get and
// resources/list until the first Update, and then serves them.
func TestServeBeforeFirstSnapshot(t *testing.T) {
	for _, pv := range []string{"", "2025-11-25"} {
		t.Run("pv="+pv, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s := New(nil, Options{Version: "test"})
			ct, st := sdk.NewInMemoryTransports()
			if _, err := s.SDK().Connect(ctx, st, nil); err != nil {
				t.Fatal(err)
			}
			c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
			start := time.Now()
			cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: pv})
			if err != nil {
				t.Fatalf("connect before the first snapshot: %v", err)
			}
			defer cs.Close()
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("initialize took %v before the first snapshot", d)
			}
			type result struct {
				tools int
				err   error
			}
			got := make(chan result, 1)
			go func() {
				res, err := cs.ListTools(ctx, nil)
				n := 0
				if res != nil {
					n = len(res.Tools)
				}
				got <- result{n, err}
			}()
			select {
			case r := <-got:
				t.Fatalf("tools/list answered before the first snapshot: %+v", r)
			case <-time.After(150 * time.Millisecond):
			}
			s.Update(snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "Read PDFs."})))
			select {
			case r := <-got:
				if r.err != nil || r.tools == 0 {
					t.Fatalf("tools/list after the first snapshot: %d tools, %v", r.tools, r.err)
				}
			case <-ctx.Done():
				t.Fatal("tools/list still held after the first snapshot")
			}
			if _, err := cs.ListResources(ctx, nil); err != nil {
				t.Errorf("resources/list: %v", err)
			}
		})
	}
}

// TestFirstSnapshotIsNotAChange checks that a client connected before the
// first snapshot is not told the lists changed when they first appear, and
// is told when a later snapshot changes them.
func TestFirstSnapshotIsNotAChange(t *testing.T) {
	for _, pv := range []string{"", "2025-11-25"} {
		t.Run("pv="+pv, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s := New(nil, Options{Version: "test"})
			changed := make(chan struct{}, 8)
			c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
			})
			ct, st := sdk.NewInMemoryTransports()
			if _, err := s.SDK().Connect(ctx, st, nil); err != nil {
				t.Fatal(err)
			}
			cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: pv})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			base := t.TempDir()
			s.Update(snapOf(makeRecords(t, base, skillSpec{provider: "claude", name: "pdf", desc: "Read PDFs."})))
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case <-changed:
				t.Fatal("tools/list_changed for the first snapshot")
			case <-time.After(300 * time.Millisecond):
			}
			s.Update(snapOf(makeRecords(t, base, skillSpec{provider: "claude", name: "pdf", desc: "Read PDFs."},
				skillSpec{provider: "codex", name: "xlsx", desc: "Sheets."})))
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no tools/list_changed after a later snapshot changed the tools")
			}
		})
	}
}

// TestToolsWaitForToolsOnly checks the first Update's gate: once the
// tools are in, tools/ requests pass while prompts, resources and skills/
// requests still wait for the whole first snapshot.
func TestToolsWaitForToolsOnly(t *testing.T) {
	s := New(nil, Options{Version: "test"})
	passed := func(method string) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			h := s.untilReady(func(context.Context, string, sdk.Request) (sdk.Result, error) { return nil, nil })
			_, _ = h(t.Context(), method, nil)
			close(done)
		}()
		return done
	}
	s.toolsInOnce.Do(func() { close(s.toolsIn) }) // the tools are registered, the rest is not
	select {
	case <-passed("tools/list"):
	case <-time.After(5 * time.Second):
		t.Fatal("tools/list waited for more than the tools")
	}
	held := []<-chan struct{}{passed("resources/list"), passed("prompts/list"), passed("skills/list")}
	for i, ch := range held {
		select {
		case <-ch:
			t.Errorf("request %d passed before the first snapshot was whole", i)
		case <-time.After(100 * time.Millisecond):
		}
	}
	s.readyOnce.Do(func() { close(s.ready) })
	for i, ch := range held {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Errorf("request %d still held after the first snapshot", i)
		}
	}
}
