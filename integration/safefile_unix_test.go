//go:build unix

package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateFIFOSkillFile: a FIFO named SKILL.md in a folder given to
// ccski validate is reported unreadable at once, and the other skills are
// still checked. The run used to wait forever for a writer.
func TestValidateFIFOSkillFile(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	dir := filepath.Join(t.TempDir(), "skills")
	writeSkill(t, filepath.Join(dir, "ok"), "ok", "A plain skill.", "# ok\n")
	fifo := filepath.Join(dir, "pipe", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(fifo), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	r := runBounded(t, ctx, m, "validate", dir, "--json")
	if r.code != 1 {
		t.Fatalf("want exit 1 (an unreadable skill is an error)\n%s", r)
	}
	var rep struct {
		Summary struct {
			Skills int `json:"skills"`
		} `json:"summary"`
		Findings []struct {
			Code    string `json:"code"`
			File    string `json:"file"`
			Message string `json:"message"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Code == "unreadable" && strings.HasSuffix(f.File, filepath.Join("pipe", "SKILL.md")) &&
			strings.Contains(f.Message, "named pipe (FIFO), not a regular file") {
			found = true
		}
	}
	if !found || rep.Summary.Skills != 2 {
		t.Errorf("want an unreadable finding naming the FIFO among 2 skills\n%s", r)
	}
}

// TestMCPSkillToolFIFO: a SKILL.md replaced by a FIFO after the server
// listed it is refused by the skill tool at once, naming what it is; the
// call used to wait for a writer forever.
func TestMCPSkillToolFIFO(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--no-refresh")
	var file string
	for _, r := range listRecords(t, m) {
		if r.ID == "claude:xlsx" {
			file = r.File
		}
	}
	if file == "" {
		t.Fatal("claude:xlsx not in ccski list")
	}
	mustListSkills(t, ctx, s.cs)
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(file, 0o644); err != nil {
		t.Fatal(err)
	}
	callCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	res, err := callSkill(callCtx, s.cs, map[string]any{"name": "claude:xlsx"})
	if callCtx.Err() != nil {
		t.Fatalf("the skill tool waited on the FIFO\nstderr:\n%s", s.stderr)
	}
	if err != nil {
		t.Fatal(err)
	}
	text, _ := resultText(res)
	if !res.IsError || !strings.Contains(text, "claude:xlsx") || !strings.Contains(text, "named pipe (FIFO), not a regular file") {
		t.Errorf("isError=%v %q, want an error naming the skill and saying the file is a FIFO", res.IsError, text)
	}
	if _, err := loadSkill(ctx, s.cs, "commit-helper"); err != nil {
		t.Errorf("the server does not serve other skills after the FIFO: %v", err)
	}
}
