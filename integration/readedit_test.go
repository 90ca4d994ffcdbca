package integration

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadAfterEditServesNewBytes: a 2026-07-28 client reads a skill's
// files, the files are edited, the server rescans (the watcher) and says
// the list changed; reading them again gives the new bytes, and they are
// the bytes skills/list states (digest and size) and the scan judged
// (mcp.scan: block serves only the bytes it scanned). The server used to
// mark resources/read answers cacheable for the whole refresh interval
// (ttlMs, SEP-2549), so the go-sdk client, which keeps such answers by
// URI until a resources/updated for that URI that never comes, served the
// old bytes again.
func TestReadAfterEditServesNewBytes(t *testing.T) {
	m := bareMachine(t, nil)
	cfg := filepath.Join(m.Home, ".config", "ccski", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("mcp:\n  scan: block\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(m.Home, ".claude", "skills", "guide")
	skill := writeSkill(t, dir, "guide", "The house style guide, v1.", "Follow the guide, v1.")
	ref := filepath.Join(dir, "references", "api.md")
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ref, []byte("API v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const skillURI = "skill://claude/guide/SKILL.md"
	const refURI = "skill://claude/guide/references/api.md"

	ctx := mcpContext(t)
	var changes atomic.Int64
	cl := sdk.NewClient(&sdk.Implementation{Name: "ccski-read-edit", Version: "0"}, &sdk.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changes.Add(1) },
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) {},
	})
	if err := sdk.AddSendingCustomMethod[*extListParams, *extListResult](cl, "skills/list"); err != nil {
		t.Fatal(err)
	}
	// A refresh interval of an hour: the rescan after the edit is the
	// watcher's, and the list TTL the server states is an hour long.
	cmd := exec.Command(binary, mcpArgs(m, "--refresh-interval", "1h")...)
	cmd.Dir, cmd.Env = m.Workspace, env(m, nil)
	session, err := cl.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second},
		&sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	// served reads every file and checks each is what skills/list states.
	served := func() (map[string]string, error) {
		list, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, session, "skills/list", &extListParams{})
		if err != nil {
			return nil, err
		}
		listed := map[string]string{}
		for _, e := range list.Skills {
			for _, f := range e.Resources {
				listed[f.URI] = f.Digest
			}
		}
		out := map[string]string{}
		for _, uri := range []string{skillURI, refURI} {
			res, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
			if err != nil {
				return out, fmt.Errorf("read %s: %w", uri, err)
			}
			if res.TTLMs != 0 {
				t.Errorf("read %s: ttlMs %d: a client may serve these bytes again after the file changed", uri, res.TTLMs)
			}
			text := res.Contents[0].Text
			if got := sha([]byte(text)); got != listed[uri] {
				return out, fmt.Errorf("read %s gives bytes of %s; skills/list states %s", uri, got, listed[uri])
			}
			out[uri] = text
		}
		return out, nil
	}
	before, err := served()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before[skillURI], "v1") || before[refURI] != "API v1\n" {
		t.Fatalf("first read: %q", before)
	}

	n := changes.Load()
	writeSkill(t, dir, "guide", "The house style guide, v2.", "Follow the guide, v2.")
	if err := os.WriteFile(ref, []byte("API v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(refreshBudget, func() bool { return changes.Load() > n }) {
		t.Fatalf("no resources/list_changed within %v after the edit of %s", refreshBudget, skill)
	}
	// Two files are written, and a rescan may run between them, or while
	// one is written: the list_changed it sends may come before the
	// rescan that sees both. Until then a read may be refused (what the
	// scan judged is not what the file holds) or give bytes of the first
	// rescan; it must come to the new bytes, not stay on the old ones.
	var after map[string]string
	if !waitUntil(refreshBudget, func() bool {
		after, err = served()
		return err == nil && strings.Contains(after[skillURI], "v2") && after[refURI] == "API v2\n"
	}) {
		t.Errorf("after the edit and list_changed, read gives %q (%v); want the new bytes", after, err)
	}
}
