package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSkillsListDigestsKeptAcrossRestarts: ccski mcp keeps the digests of
// skills/list in its cache folder (skills.bin) once a listing's last page
// is served, and a restarted server lists the same digests from it.
func TestSkillsListDigestsKeptAcrossRestarts(t *testing.T) {
	m := newMachine(t)
	addManySkills(t, m, 210) // more than one page
	ctx := mcpContext(t)
	file := filepath.Join(m.Home, ".cache", "ccski", "skills.bin")
	// listAll lists every page on a new server, then waits for the
	// digest file to be written when wait says so.
	listAll := func(wait bool) map[string]string {
		cmd := exec.Command(binary, mcpArgs(m)...)
		cmd.Dir, cmd.Env = m.Workspace, env(m, nil)
		cs, err := extClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		digests := map[string]string{}
		cursor := ""
		for {
			res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range res.Skills {
				for _, f := range e.Resources {
					digests[f.URI] = f.Digest
				}
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
		if wait && !waitUntil(refreshBudget, func() bool { _, err := os.Stat(file); return err == nil }) {
			t.Fatalf("%s not written after a full listing", file)
		}
		return digests
	}
	// Files written within the last two seconds are never cached by
	// their stat: let the tree age first.
	time.Sleep(2100 * time.Millisecond)
	first := listAll(true)
	if len(first) < 210 {
		t.Fatalf("%d files listed, want at least 210", len(first))
	}
	if st, err := os.Stat(file); err != nil || st.Size() == 0 {
		t.Fatalf("digest file: %v", err)
	}
	if diff := cmp.Diff(first, listAll(false)); diff != "" {
		t.Errorf("digests after a restart (-before +after):\n%s", diff)
	}
}
