package action

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/engine/live"
	"github.com/ccski/ccski/internal/testfs"
)

// TestClientViewLate: a stdio client whose name comes after discovery
// stopped waiting for it has its host's view in place by the time the
// hook returns (and its initialize is handed on): a skill that host
// turned off, served in the view of all agents until then, is gone.
func TestClientViewLate(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	testfs.Write(t, b.root, map[string]string{
		"home/.agents/skills/shared/SKILL.md": skillText("shared", "Linked for every agent."),
		"home/.claude/settings.json":          `{"skillOverrides": {"shared": "off"}}` + "\n",
	})
	// One folder, linked for Claude Code as install links it.
	if err := os.Symlink(filepath.Join(b.home, ".agents", "skills", "shared"), filepath.Join(b.home, ".claude", "skills", "shared")); err != nil {
		t.Fatal(err)
	}
	c := b.config(t)
	e, err := c.Engine()
	if err != nil {
		t.Fatal(err)
	}
	d := live.New(e, live.Options{})
	if _, _, err := d.First(context.Background()); err != nil {
		t.Fatal(err)
	}
	visible := func() []string {
		var ids []string
		for _, r := range d.Snapshot().Visible {
			ids = append(ids, r.ID)
		}
		return ids
	}
	shared := func(ids []string) bool {
		return slices.ContainsFunc(ids, func(id string) bool { return strings.HasSuffix(id, ":shared") })
	}
	if !shared(visible()) {
		t.Fatalf("the view of all agents does not serve shared, which only Claude Code turned off: %v", visible())
	}
	hook := clientView(c, e, d, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if hook == nil {
		t.Fatal("no client view hook with the agent key at its default")
	}
	hook("claude-code", true)
	if ids := visible(); shared(ids) {
		t.Errorf("once Claude Code's late initialize is handed on, it is still served shared, which it turned off: %v", ids)
	}
}
