package integration

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/machine"
)

// runBounded runs ccski with args in the machine's workspace, killed when
// ctx ends: a run that would wait forever (on a FIFO) fails the test
// instead of hanging it.
func runBounded(t *testing.T, ctx context.Context, m *machine.Machine, args ...string) result {
	t.Helper()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = m.Workspace
	cmd.Env = env(m, nil)
	r := runCmd(t, cmd, args)
	if ctx.Err() != nil {
		t.Fatalf("ccski %s did not finish: it waited on a file\n%s", strings.Join(args, " "), r)
	}
	return r
}

// hugeSkill adds ~/.claude/skills/huge, whose SKILL.md is 30 short lines
// and then zeros up to size bytes (a sparse file, cheap to make).
func hugeSkill(t *testing.T, m *machine.Machine, size int64) string {
	t.Helper()
	file := filepath.Join(m.Home, ".claude", "skills", "huge", "SKILL.md")
	var b strings.Builder
	b.WriteString("---\nname: huge\ndescription: A runaway SKILL.md.\n---\n")
	for i := 1; b.Len() < 400 || strings.Count(b.String(), "\n") < 30; i++ {
		b.WriteString("line " + strings.Repeat("x", i%7) + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, size); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestInfoLargeSkillFile: ccski info shows the first lines of a 50 MB
// SKILL.md without reading it whole (the lines after them are not
// counted), and --full refuses it with the file, its size and the limit.
func TestInfoLargeSkillFile(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	file := hugeSkill(t, m, 50<<20)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	r := runBounded(t, ctx, m, std(m, "info", "claude:huge")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "\nline x\n") || strings.Count(r.stdout, "\nline") > 20 {
		t.Errorf("info does not show the first 20 lines:\n%s", r)
	}
	if !strings.Contains(r.stdout, "… (more lines of a 50.0 MB file, use --full to show all)") ||
		!strings.Contains(r.stdout, "Size:       50.0 MB") {
		t.Errorf("info does not say the rest of the 50 MB file is left out:\n%s", r)
	}

	r = runBounded(t, ctx, m, std(m, "info", "claude:huge", "--json")...)
	mustOK(t, r)
	var info struct {
		Size      int64  `json:"size"`
		Content   string `json:"content"`
		Truncated bool   `json:"truncated"`
	}
	decodeOnly(t, r, &info)
	if info.Size != 50<<20 || !info.Truncated || strings.Count(info.Content, "\n") != 20 {
		t.Errorf("info --json: size %d, truncated %v, %d lines; want 52428800, true, 20",
			info.Size, info.Truncated, strings.Count(info.Content, "\n"))
	}

	r = runBounded(t, ctx, m, std(m, "info", "claude:huge", "--full")...)
	if r.code != 1 || !strings.Contains(r.stderr, file) ||
		!strings.Contains(r.stderr, "the file is 50 MiB, over the 16 MiB limit") {
		t.Errorf("info --full of a 50 MB file: want exit 1 naming the file, its size and the limit\n%s", r)
	}
}
