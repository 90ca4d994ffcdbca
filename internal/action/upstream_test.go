package action

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestMCPTokenGoesOnlyWhereTheUserSaid installs from an MCP server with
// CCSKI_PROVIDERS__REMOTE__TOKEN set: the server named on the command line gets the
// token; the same lock restored in a clone, where only the project's lock
// names the server, sends none, unless the user's config lists it.
func TestMCPTokenGoesOnlyWhereTheUserSaid(t *testing.T) {
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": {"SKILL.md": skillText("pdf", "Use it.")}})
	b := newBox(t)
	b.vars["CCSKI_PROVIDERS__REMOTE__TOKEN"] = "s3cret"
	ctx := context.Background()
	rep, err := Install(ctx, b.config(t), InstallRequest{Run: Run{Scope: "project"}, Source: "mcp+" + up.URL(), Skills: []string{"pdf"}})
	if err != nil || rep.Failed() > 0 {
		t.Fatalf("install: %v %+v", err, rep)
	}
	sent := func() (with, without int) {
		up.Lock()
		defer up.Unlock()
		for _, a := range up.Auth {
			if a == "Bearer s3cret" {
				with++
			} else {
				without++
			}
		}
		up.Auth = nil
		return with, without
	}
	if with, without := sent(); with == 0 || without > 0 {
		t.Fatalf("the server named on the command line got the token on %d requests and not on %d; want every one", with, without)
	}

	// A clone of the project: the lock names the server.
	restore := func() {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(b.proj, ".agents")); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(b.proj, ".claude")); err != nil {
			t.Fatal(err)
		}
		rep, err := Install(ctx, b.config(t), InstallRequest{Run: Run{Scope: "project"}, Frozen: true})
		if err != nil || rep.Failed() > 0 {
			t.Fatalf("frozen restore: %v %+v", err, rep.Results)
		}
	}
	restore()
	if with, _ := sent(); with > 0 {
		t.Errorf("a server only the project's lock names got the token on %d requests", with)
	}
	testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "providers:\n  remote:\n    servers: [\"" + up.URL() + "\"]\n"})
	restore()
	if with, without := sent(); with == 0 || without > 0 {
		t.Errorf("a server of providers.remote.servers got the token on %d requests and not on %d; want every one", with, without)
	}
}
