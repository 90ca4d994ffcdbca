package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// ids lists the ids of recs.
func ids(recs []*pipeline.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.ID)
	}
	return out
}

// writeSkills gives the box a user skill (pdf, in Claude's and Codex's
// folders: a duplicate), a project skill (notes, with a long body) and a
// user slash command (deploy).
func (b *box) writeSkills(t *testing.T) {
	t.Helper()
	long := strings.Repeat("a line of the body\n", 30)
	testfs.Write(t, b.root, map[string]string{
		"home/.claude/skills/pdf/SKILL.md":   skillText("pdf", "Claude's copy"),
		"home/.codex/skills/pdf/SKILL.md":    skillText("pdf", "Codex's copy"),
		"proj/.claude/skills/notes/SKILL.md": skillText("notes", strings.TrimSuffix(long, "\n")),
		"home/.claude/commands/deploy.md":    "---\ndescription: Deploy the service.\n---\nDeploy $ARGUMENTS.\n",
	})
}

// TestList returns the visible records of the kind asked for, with the
// trust check on (the project skill's first sight is recorded in the
// store) and, when asked, where ccski installed each skill from.
func TestList(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	ctx := context.Background()
	tests := []struct {
		kind pipeline.Type
		want []string
	}{
		{"", []string{"claude:/deploy", "claude:notes", "claude:pdf"}},
		{pipeline.TypeSkill, []string{"claude:notes", "claude:pdf"}},
		{pipeline.TypeCommand, []string{"claude:/deploy"}},
	}
	for _, tt := range tests {
		res, err := List(ctx, c, ListRequest{Kind: tt.kind})
		if err != nil {
			t.Fatal(err)
		}
		got := ids(res.Records)
		if diff := cmp.Diff(tt.want, slices.Sorted(slices.Values(got))); diff != "" {
			t.Errorf("kind %q (-want +got):\n%s", tt.kind, diff)
		}
		if res.Installed != nil || res.State != "enabled" || res.Priority == nil {
			t.Errorf("kind %q: installed %v, state %q, priority %v: want no lookup, enabled and a ranking",
				tt.kind, res.Installed, res.State, res.Priority)
		}
	}
	res, err := List(ctx, c, ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var notes *pipeline.Record
	for _, r := range res.Records {
		if r.Name == "notes" {
			notes = r
		}
	}
	if _, ok := res.Snapshot.Integrity[notes]; notes == nil || !ok {
		t.Error("the project skill has no integrity: the trust check was off")
	}
	if _, err := os.Stat(c.TrustFile()); err != nil {
		t.Errorf("the first sight of the project skill was not recorded: %v", err)
	}

	testfs.Write(t, b.root, map[string]string{"src/tool/SKILL.md": skillText("tool", "t")})
	if _, err := Install(ctx, c, InstallRequest{Run: Run{Scope: "project"}, Source: filepath.Join(b.root, "src")}); err != nil {
		t.Fatal(err)
	}
	res, err = List(ctx, c, ListRequest{Kind: pipeline.TypeSkill, Installed: true})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, r := range res.Records {
		if in := res.Installed[filepath.Clean(r.Dir)]; in != nil {
			found++
			if r.Name != "tool" || !strings.Contains(in.Source, "src") {
				t.Errorf("%s is recorded as installed from %+v", r.ID, in)
			}
		}
	}
	if found != 1 {
		t.Errorf("%d skills recorded as installed, want tool only", found)
	}
}

// TestInfo resolves a name as the skill tool does, says why a copy is
// hidden, and previews the first 20 lines of the file unless Full.
func TestInfo(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	ctx := context.Background()

	res, err := Info(ctx, c, InfoRequest{Name: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(res.Record.File)
	lines := strings.Count(string(data), "\n")
	if res.Record.ID != "claude:notes" || res.Hidden != "" || res.Size != int64(len(data)) ||
		strings.Count(res.Content, "\n") != 20 || res.More != lines-20 {
		t.Errorf("notes: %s hidden %q size %d, %d lines shown, %d more; want claude:notes, visible, %d bytes, 20 and %d",
			res.Record.ID, res.Hidden, res.Size, strings.Count(res.Content, "\n"), res.More, len(data), lines-20)
	}
	full, err := Info(ctx, c, InfoRequest{Name: "notes", Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if full.Content != string(data) || full.More != 0 {
		t.Errorf("--full shows %d bytes, %d more; want the whole file", len(full.Content), full.More)
	}

	hidden, err := Info(ctx, c, InfoRequest{Name: "codex:pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if hidden.Record.Agent != "codex" || hidden.Hidden == "" || !strings.Contains(hidden.Content, "Codex's copy") {
		t.Errorf("codex:pdf: %s hidden %q; want the Codex copy, with why it is hidden", hidden.Record.ID, hidden.Hidden)
	}

	_, err = Info(ctx, c, InfoRequest{Name: "ndoes"})
	var nf *pipeline.NotFoundError
	if !errors.As(err, &nf) || IsUsage(err) {
		t.Errorf("an unknown name: %v, want a not-found failure", err)
	}
}

// TestSearch ranks the visible records; a negative limit is a usage
// error.
func TestSearch(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	res, err := Search(context.Background(), c, SearchRequest{Query: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Hits) != 1 || res.Hits[0].Record.ID != "claude:notes" {
		t.Errorf("search notes: %d of %d hits, want claude:notes", len(res.Hits), res.Total)
	}
	if _, err := Search(context.Background(), c, SearchRequest{Query: "notes", Limit: -1}); !IsUsage(err) {
		t.Errorf("limit -1: %v, want a usage error", err)
	}
}

// TestSources counts each type and shows commands only when there are
// some or when asked for.
func TestSources(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	tests := []struct {
		kind                     pipeline.Type
		showSkills, showCommands bool
	}{
		{"", true, true},
		{pipeline.TypeSkill, true, false},
		{pipeline.TypeCommand, false, true},
	}
	for _, tt := range tests {
		res, err := Sources(context.Background(), c, SourcesRequest{Kind: tt.kind})
		if err != nil {
			t.Fatal(err)
		}
		if res.ShowSkills != tt.showSkills || res.ShowCommands != tt.showCommands {
			t.Errorf("kind %q: show skills %v, commands %v; want %v, %v", tt.kind, res.ShowSkills, res.ShowCommands,
				tt.showSkills, tt.showCommands)
		}
		if res.Skills.Discovered != 3 || res.Skills.Visible != 2 || res.Commands.Discovered != 1 {
			t.Errorf("kind %q: skills %+v, commands %+v; want 3 discovered and 2 visible, 1 command",
				tt.kind, res.Skills, res.Commands)
		}
		if len(res.Report.Roots) == 0 {
			t.Errorf("kind %q: no roots", tt.kind)
		}
	}
}
