package mcp

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/engine/live"
)

// TestRescanNothingChangedNotifiesNothing serves a tree through a live
// refresher, as `ccski mcp` does, to a client that counts every
// list_changed notification: rescans that find nothing changed leave the
// server on the very snapshot it serves, update nothing (no name index,
// resource list or body index is built again) and notify nobody, while a
// new skill still reaches the client as tools/list_changed.
func TestRescanNothingChangedNotifiesNothing(t *testing.T) {
	tr := newTree(t)
	writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	// Files written within filestamp.Window of a scan are read again by
	// the next, whose time cannot tell a later write.
	old := time.Now().Add(-time.Hour)
	for _, root := range []string{tr.home, tr.ws} {
		if err := filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Chtimes(p, old, old)
		}); err != nil {
			t.Fatal(err)
		}
	}
	srv := New(nil, Options{})
	ref := refresherFor(srv, newEngine(t, tr.home, tr.ws), live.Options{Interval: time.Hour})
	ctx := testCtx(t, 20*time.Second)
	if _, _, err := ref.First(ctx); err != nil {
		t.Fatal(err)
	}
	var tools, prompts, resources atomic.Int32
	c := sdk.NewClient(&sdk.Implementation{Name: "samesnap-test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { tools.Add(1) },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { prompts.Add(1) },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { resources.Add(1) },
	})
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs := connectClient(t, c, ct, "2025-11-25")
	listAndCallAny(t, ctx, cs)

	served, updates := srv.Snapshot(), srv.updates.Load()
	for i := range 5 {
		if d := ref.Refresh(ctx); !d.Empty() {
			t.Fatalf("rescan %d with nothing changed: %+v", i, d)
		}
	}
	if srv.Snapshot() != served {
		t.Error("rescans with nothing changed replaced the snapshot served")
	}
	if n := srv.updates.Load() - updates; n != 0 {
		t.Errorf("rescans with nothing changed updated the server %d times", n)
	}

	// A change still comes through; the notifications of the rescans
	// before it would have come before its own.
	writeFile(t, tr.userSkill("beta"), skillMD("beta", "Beta skill"))
	ref.Refresh(ctx)
	if srv.Snapshot() == served {
		t.Fatal("a new skill did not replace the snapshot served")
	}
	if !eventually(10*time.Second, func() bool { return tools.Load() > 0 }) {
		t.Fatal("no tools/list_changed after a rescan found a new skill")
	}
	if n := tools.Load(); n != 1 {
		t.Errorf("%d tools/list_changed, want one, for the new skill", n)
	}
	if n := prompts.Load(); n > 1 {
		t.Errorf("%d prompts/list_changed, want at most one, for the new skill", n)
	}
	if n := resources.Load(); n > 1 {
		t.Errorf("%d resources/list_changed, want at most one, for the new skill", n)
	}
}

// TestUnchangedUpdateLetsOutNoFirstNotification: the first snapshot's
// lists are news to nobody, so the list_changed the SDK sends a few
// milliseconds after it registers them is dropped (quietFirst). A second
// Update that changes no list, such as the rescan that follows the first
// once its folders are watched (new records, same skills), used to come
// within those milliseconds and let the first snapshot's notifications
// out: a client that had just changed a file took them for the news of
// its change and read before the rescan that saw it. Only a later change
// of a list is told, once.
func TestUnchangedUpdateLetsOutNoFirstNotification(t *testing.T) {
	base := t.TempDir()
	pdf := skillSpec{provider: "claude", name: "pdf", desc: "PDF files"}
	srv := New(nil, Options{Version: "test", Logger: discard()})
	var tools, prompts, resources atomic.Int32
	cs := connect(t, srv, "2025-11-25", &sdk.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { tools.Add(1) },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { prompts.Add(1) },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { resources.Add(1) },
	})
	ctx := testCtx(t, 30*time.Second)
	// The ping is answered after the server has handled initialized: the
	// session is ready to be told, so nothing below is dropped for that.
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	srv.Update(snapOf(makeRecords(t, base, pdf)))
	srv.Update(snapOf(makeRecords(t, base, pdf)))
	// Nothing to wait for: a notification let out would come within the
	// SDK's delay of 10 ms.
	time.Sleep(300 * time.Millisecond)
	if n, m, k := tools.Load(), prompts.Load(), resources.Load(); n+m+k != 0 {
		t.Errorf("an Update that changed no list let out the first snapshot's notifications: "+
			"%d tools/list_changed, %d prompts/list_changed, %d resources/list_changed", n, m, k)
	}

	tools.Store(0)
	resources.Store(0)
	pdf.desc = "PDF files, edited"
	srv.Update(snapOf(makeRecords(t, base, pdf)))
	if !eventually(10*time.Second, func() bool { return tools.Load() > 0 && resources.Load() > 0 }) {
		t.Fatalf("an edited description was told by %d tools/list_changed and %d resources/list_changed, want one of each",
			tools.Load(), resources.Load())
	}
	time.Sleep(100 * time.Millisecond)
	if n, k := tools.Load(), resources.Load(); n != 1 || k != 1 {
		t.Errorf("an edited description: %d tools/list_changed, %d resources/list_changed, want one of each", n, k)
	}
}
