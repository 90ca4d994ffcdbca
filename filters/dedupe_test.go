package filters

import (
	"fmt"
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
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
	// The plugin's example-skills:pdf and the scoped docs:pdf are not
	// copies of pdf: their qualified names differ.
	want := map[string]DupInfo{
		"claude:pdf":    {Group: 1},
		"codex:PDF":     {Group: 1, Winner: true},
		"cursor:review": {Group: 2, Winner: true},
		"agents:review": {Group: 2},
		"codex:foo":     {Group: 3},
		"claude:foo":    {Group: 3, Winner: true},
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

// TestAutoDedupeQualifiedNames checks that auto keeps one copy per fully
// qualified name: the same-named commands and skills of different plugins,
// and a plugin skill beside a local skill of the same short name, are all
// kept, while one plugin installed from two marketplaces, or a user and a
// project copy, are copies.
func TestAutoDedupeQualifiedNames(t *testing.T) {
	plugin := func(name, market string) *pipeline.PluginInfo {
		return &pipeline.PluginInfo{Plugin: name, Marketplace: market, Version: "1.0.0"}
	}
	cmd := func(id, name string, p *pipeline.PluginInfo, kind pipeline.Kind) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: name, Type: pipeline.TypeCommand, Agent: "claude", Plugin: p, Kind: kind,
			Dir: "/" + id, ModTime: t0}
	}
	skill := func(id, name string, p *pipeline.PluginInfo, kind pipeline.Kind) *pipeline.Record {
		r := cmd(id, name, p, kind)
		r.Type = ""
		return r
	}
	tests := []struct {
		name    string
		records []*pipeline.Record
		kept    []string
		shadow  map[string]string // loser id -> winner id
	}{
		{"commands of two plugins", []*pipeline.Record{
			cmd("claude:/@ship-mate:setup", "ship-mate:setup", plugin("ship-mate", "a"), pipeline.KindPlugin),
			cmd("claude:/@conductor:setup", "conductor:setup", plugin("conductor", "b"), pipeline.KindPlugin),
		}, []string{"claude:/@ship-mate:setup", "claude:/@conductor:setup"}, nil},
		{"a plugin skill and a local skill", []*pipeline.Record{
			skill("claude:@document-skills:docx", "document-skills:docx", plugin("document-skills", "a"), pipeline.KindPlugin),
			skill("claude:docx", "docx", nil, pipeline.KindWorkspaceAgent),
		}, []string{"claude:@document-skills:docx", "claude:docx"}, nil},
		{"a plugin command and a user command of the same short name", []*pipeline.Record{
			cmd("claude:/@tools:review", "tools:review", plugin("tools", "a"), pipeline.KindPlugin),
			cmd("claude:/review", "review", nil, pipeline.KindUserAgent),
		}, []string{"claude:/@tools:review", "claude:/review"}, nil},
		{"one plugin from two marketplaces", []*pipeline.Record{
			cmd("claude@plugin:/@tools:review", "tools:review", plugin("tools", "a"), pipeline.KindPlugin),
			cmd("claude@plugin:/@tools:review#2", "tools:review", plugin("tools", "b"), pipeline.KindPlugin),
		}, []string{"claude@plugin:/@tools:review"},
			map[string]string{"claude@plugin:/@tools:review#2": "claude@plugin:/@tools:review"}},
		{"a user and a project copy", []*pipeline.Record{
			skill("claude@user:pdf", "pdf", nil, pipeline.KindUserAgent),
			skill("claude@project:pdf", "PDF", nil, pipeline.KindWorkspaceAgent),
		}, []string{"claude@project:pdf"}, map[string]string{"claude@user:pdf": "claude@project:pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, dropped := Include(nil, nil).Apply(tt.records)
			if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			got := map[string]string{}
			for _, d := range dropped {
				got[d.Record.ID] = d.By.ID
			}
			if diff := cmp.Diff(tt.shadow, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("shadowed (-want +got):\n%s", diff)
			}
			checkPartition(t, tt.records, out, dropped)
		})
	}
}

// TestBuildExcludesBeforeDedupe checks that the exclude filter runs
// before the dedupe: excluding the winner of a skill, by id or by
// provider, promotes its next copy, a bare name still removes every copy,
// and every copy a dedupe drops is loadable, since no filter hides it.
func TestBuildExcludesBeforeDedupe(t *testing.T) {
	records := []*pipeline.Record{
		{ID: "cursor:pdf", Name: "pdf", Agent: "cursor", Kind: pipeline.KindWorkspaceAgent, Dir: "/w/.cursor/pdf", ModTime: t0},
		{ID: "gemini:pdf", Name: "pdf", Agent: "gemini", Kind: pipeline.KindUserAgent, Dir: "/u/.gemini/pdf", ModTime: t0},
		{ID: "agents:pdf", Name: "pdf", Agent: "agents", Kind: pipeline.KindUserShared, Dir: "/u/.agents/pdf", ModTime: t0},
	}
	const (
		byCursor = "shadowed by cursor:pdf (higher priority: workspace-agent over %s)"
		byGemini = "shadowed by gemini:pdf (higher priority: user-agent over user-shared)"
	)
	tests := []struct {
		name    string
		exclude string
		visible []string
		drops   []drop
	}{
		{"nothing excluded", "", []string{"cursor:pdf"}, []drop{
			{ID: "gemini:pdf", Stage: "include", By: "cursor:pdf", Reason: fmt.Sprintf(byCursor, "user-agent")},
			{ID: "agents:pdf", Stage: "include", By: "cursor:pdf", Reason: fmt.Sprintf(byCursor, "user-shared")},
		}},
		{"the winner by id promotes the next copy", "cursor:pdf", []string{"gemini:pdf"}, []drop{
			{ID: "cursor:pdf", Stage: "exclude", Reason: "excluded by --exclude cursor:pdf"},
			{ID: "agents:pdf", Stage: "include", By: "gemini:pdf", Reason: byGemini},
		}},
		{"the winner's provider promotes the next copy", "cursor", []string{"gemini:pdf"}, []drop{
			{ID: "cursor:pdf", Stage: "exclude", Reason: "excluded by --exclude cursor"},
			{ID: "agents:pdf", Stage: "include", By: "gemini:pdf", Reason: byGemini},
		}},
		{"a loser leaves the winner", "gemini", []string{"cursor:pdf"}, []drop{
			{ID: "gemini:pdf", Stage: "exclude", Reason: "excluded by --exclude gemini"},
			{ID: "agents:pdf", Stage: "include", By: "cursor:pdf", Reason: fmt.Sprintf(byCursor, "user-shared")},
		}},
		{"a bare name removes every copy", "PDF", []string{}, []drop{
			{ID: "cursor:pdf", Stage: "exclude", Reason: "excluded by --exclude PDF"},
			{ID: "gemini:pdf", Stage: "exclude", Reason: "excluded by --exclude PDF"},
			{ID: "agents:pdf", Stage: "exclude", Reason: "excluded by --exclude PDF"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exc []string
			if tt.exclude != "" {
				exc = []string{tt.exclude}
			}
			stages, err := Build(Settings{Exclude: exc}, records)
			if err != nil {
				t.Fatal(err)
			}
			out, dropped := pipeline.Run(stages, records)
			if diff := cmp.Diff(tt.visible, ids(out)); diff != "" {
				t.Errorf("visible (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.drops, drops(dropped)); diff != "" {
				t.Errorf("drops (-want +got):\n%s", diff)
			}
			for _, d := range dropped {
				if want := d.Stage == "include"; d.Loadable() != want {
					t.Errorf("%s dropped by %s: Loadable() = %v, want %v", d.Record.ID, d.Stage, d.Loadable(), want)
				}
			}
			checkPartition(t, records, out, dropped)
		})
	}
}
