package mcp

import (
	"strings"
	"testing"
	"time"
)

// TestDrainWaitsForRunningCall holds a load in flight (its read waits
// until the test lets it go): Drain must time out while it runs, refuse
// new calls meanwhile, and succeed once it finishes.
func TestDrainWaitsForRunningCall(t *testing.T) {
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "slow", desc: "blocks"})
			release := make(chan struct{})
			orig := readSkill
			readSkill = func(string, *judged) (skillText, error) {
				<-release
				return skillText{data: []byte("slow body"), size: 9}, nil
			}
			t.Cleanup(func() { readSkill = orig })
			srv := New(snapOf(recs), Options{})
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)

			type outcome struct {
				text    string
				isError bool
				err     error
			}
			done := make(chan outcome, 1)
			go func() {
				res, err := call(ctx, cs, map[string]any{"name": "slow"})
				if err != nil {
					done <- outcome{err: err}
					return
				}
				text, err := textOf(res)
				done <- outcome{text: text, isError: res.IsError, err: err}
			}()
			if !eventually(5*time.Second, func() bool { return srv.inflight.Load() == 1 }) {
				t.Fatal("the call never started")
			}
			if srv.Drain(50 * time.Millisecond) {
				t.Fatal("Drain returned true with a call in flight")
			}
			res, err := call(ctx, cs, map[string]any{"name": "slow"})
			if err != nil || !res.IsError || !strings.Contains(resultText(t, res), "shutting down") {
				t.Fatalf("call while draining: %v %+v, want a shutting-down error", err, res)
			}

			close(release) // let the running call finish

			if !srv.Drain(5 * time.Second) {
				t.Fatal("Drain returned false after the call finished")
			}
			select {
			case o := <-done:
				if o.err != nil || o.isError || !strings.HasSuffix(o.text, "\n\nslow body") {
					t.Errorf("the call running during Drain: %+v, want a full load", o)
				}
			case <-ctx.Done():
				t.Fatal("the running call never returned")
			}
		})
	}
}
