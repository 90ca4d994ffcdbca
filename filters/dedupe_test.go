package filters

import (
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

func TestPathDedupe(t *testing.T) {
	// ~/.agents/skills/pdf is a symlink to ~/.claude/skills/pdf; the
	// scanner resolved both to the same RealDir.
	claude := &pipeline.Record{ID: "claude:pdf", Dir: "/home/u/.claude/skills/pdf", RealDir: "/home/u/.claude/skills/pdf"}
	agents := &pipeline.Record{ID: "agents:pdf", Dir: "/home/u/.agents/skills/pdf", RealDir: "/home/u/.claude/skills/pdf/"}
	// Without RealDir the stage falls back to Dir.
	plain := &pipeline.Record{ID: "codex:pdf", Dir: "/home/u/.codex/skills/pdf"}
	plainAgain := &pipeline.Record{ID: "codex@user:pdf", Dir: "/home/u/.codex/skills/pdf"}
	// The same Dir resolving elsewhere is a different folder.
	other := &pipeline.Record{ID: "gemini:pdf", Dir: "/home/u/.claude/skills/pdf", RealDir: "/srv/pdf"}
	// Records without a folder are never merged.
	bare1 := &pipeline.Record{ID: "x:a"}
	bare2 := &pipeline.Record{ID: "x:b"}

	in := []*pipeline.Record{claude, plain, agents, other, plainAgain, bare1, bare2}
	out, dropped := PathDedupe().Apply(in)
	if diff := cmp.Diff([]string{"claude:pdf", "codex:pdf", "gemini:pdf", "x:a", "x:b"}, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := []drop{
		{ID: "agents:pdf", By: "claude:pdf", Reason: "same folder as claude:pdf"},
		{ID: "codex@user:pdf", By: "codex:pdf", Reason: "same folder as codex:pdf"},
	}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
	checkPartition(t, in, out, dropped)
}

func TestDuplicates(t *testing.T) {
	records := scan()
	got := map[string]DupInfo{}
	for r, info := range Duplicates(records, nil) {
		got[r.ID] = info
	}
	want := map[string]DupInfo{
		"claude:pdf":                 {Group: 1},
		"codex:PDF":                  {Group: 1},
		"claude:@example-skills:pdf": {Group: 1},
		"custom:docs:pdf":            {Group: 1, Winner: true},
		"cursor:review":              {Group: 2, Winner: true},
		"agents:review":              {Group: 2},
		"codex:foo":                  {Group: 3},
		"claude:foo":                 {Group: 3, Winner: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Duplicates (-want +got):\n%s", diff)
	}

	// A different priority picks a different winner in the same group.
	p, err := NewPriority([]pipeline.Kind{pipeline.KindUserShared}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dups := Duplicates(records, p)
	if !dups[records[6]].Winner || dups[records[5]].Winner {
		t.Errorf("with user-shared first, agents:review must win: %+v, %+v", dups[records[6]], dups[records[5]])
	}
	if len(Duplicates(records[3:5], nil)) != 0 {
		t.Error("records with distinct keys must not form groups")
	}
}

// TestPathDedupeCommands checks that commands of one folder are all kept,
// that one command file reached through two roots is kept once, and that
// a command never merges with a skill of the same folder.
func TestPathDedupeCommands(t *testing.T) {
	cmd := func(id, dir, realDir, file string) *pipeline.Record {
		return &pipeline.Record{ID: id, Type: pipeline.TypeCommand, Dir: dir, RealDir: realDir, File: dir + "/" + file}
	}
	deploy := cmd("claude:/deploy", "/w/.claude/commands", "/w/.claude/commands", "deploy.md")
	review := cmd("claude:/review", "/w/.claude/commands", "/w/.claude/commands", "review.md")
	// ~/.claude/commands is a symlink to the workspace's folder.
	deployAgain := cmd("claude@user:/deploy", "/home/u/.claude/commands", "/w/.claude/commands", "deploy.md")
	// A skill whose folder is the command folder (a SKILL.md there).
	skill := &pipeline.Record{ID: "claude:commands", Dir: "/w/.claude/commands", RealDir: "/w/.claude/commands"}

	in := []*pipeline.Record{deploy, review, deployAgain, skill}
	out, dropped := PathDedupe().Apply(in)
	if diff := cmp.Diff([]string{"claude:/deploy", "claude:/review", "claude:commands"}, ids(out)); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	want := []drop{{ID: "claude@user:/deploy", By: "claude:/deploy", Reason: "same file as claude:/deploy"}}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
	checkPartition(t, in, out, dropped)
}
