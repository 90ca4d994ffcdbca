package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/internal/workflow"
)

// TestInstallWorkflow: a dry run only shows the diff; a run writes the
// block into each agent's file; a second run changes nothing.
func TestInstallWorkflow(t *testing.T) {
	b := newBox(t)
	c := b.config(t)
	claude := filepath.Join(b.home, ".claude", "CLAUDE.md")
	testfs.Write(t, b.home, map[string]string{".claude/CLAUDE.md": "# Mine\n"})
	req := WorkflowRequest{Scope: "user", Agents: []string{"claude"}, DryRun: true}
	rep, err := InstallWorkflow(context.Background(), c, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || rep.Results[0].Status != "installed" || rep.Results[0].Path != claude ||
		!strings.Contains(rep.Results[0].Diff, `+<workflow name="ccski">`) || rep.Failed {
		t.Fatalf("dry run: %+v, want claude's file to be installed, with the diff", rep)
	}
	if data, _ := os.ReadFile(claude); string(data) != "# Mine\n" {
		t.Fatalf("a dry run wrote %q", data)
	}
	req.DryRun = false
	if rep, err = InstallWorkflow(context.Background(), c, req); err != nil || rep.Results[0].Status != "installed" {
		t.Fatalf("install: %+v, %v", rep, err)
	}
	want := "# Mine\n\n" + workflow.Block("claude", "Claude Code") + "\n"
	if data, _ := os.ReadFile(claude); string(data) != want {
		t.Errorf("CLAUDE.md is\n%s\nwant\n%s", data, want)
	}
	if rep, err = InstallWorkflow(context.Background(), c, req); err != nil || rep.Results[0].Status != "unchanged" || rep.Results[0].Diff != "" {
		t.Errorf("again: %+v, %v; want unchanged", rep, err)
	}
}

// TestInstallWorkflowRefuses: a block it cannot delimit fails that file,
// which is kept as it is; bad values are usage errors.
func TestInstallWorkflowRefuses(t *testing.T) {
	b := newBox(t)
	c := b.config(t)
	broken := "<workflow name=\"ccski\">\ndraft\n"
	testfs.Write(t, b.proj, map[string]string{"AGENTS.md": broken})
	rep, err := InstallWorkflow(context.Background(), c, WorkflowRequest{Scope: "project", Agents: []string{"codex"}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Failed || rep.Results[0].Status != "failed" || !strings.Contains(rep.Results[0].Error, "never closed") {
		t.Errorf("report %+v: want codex failed, the block never closed", rep)
	}
	if data, _ := os.ReadFile(filepath.Join(b.proj, "AGENTS.md")); string(data) != broken {
		t.Errorf("a refused file was changed: %q", data)
	}
	// Copilot CLI is a host for its plugin switch only: no instructions
	// file, so naming it is a usage error rather than a silent no-op.
	for _, req := range []WorkflowRequest{{Scope: "local"}, {Scope: "user", Agents: []string{"vim"}},
		{Scope: "user", Agents: []string{"copilot"}}} {
		if _, err := InstallWorkflow(context.Background(), c, req); !IsUsage(err) {
			t.Errorf("%+v: got %v, want a usage error", req, err)
		}
	}
}
