package pipeline

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestApplySwitches(t *testing.T) {
	sw := func(host, mode, file string) HostSwitch {
		return HostSwitch{Host: host, Title: host, Mode: mode, File: file, Scope: "user", Setting: "s"}
	}
	rec := func(name, dir string, hosts ...string) *Record {
		return &Record{Name: name, Dir: "/r/" + dir, File: "/r/" + dir + "/SKILL.md", Hosts: hosts}
	}
	byFolder := rec("Pretty PDF", "pdf", "claude")
	byName := rec("sheets", "sheets", "codex")
	byPath := rec("sheets", "sheets2", "codex")
	shared := rec("shared", "shared", "codex", "gemini")
	cancelled := rec("gone", "gone", "claude")
	otherHost := rec("pdf", "pdf-codex", "codex")
	plugin := rec("pdf", "plugin-pdf", "claude")
	plugin.Plugin = &PluginInfo{Plugin: "p", Marketplace: "m"}
	command := rec("pdf", "cmd", "claude")
	command.Type = TypeCommand
	noHost := rec("pdf", "cursor-pdf")
	// Each host matches by its own key only: Claude Code by folder, Codex
	// and Gemini CLI by frontmatter name.
	claudeNamed := rec("pdf", "pdf-tools", "claude")
	codexFolder := rec("Sheet Tools", "other/sheets", "codex")
	records := []*Record{byFolder, byName, byPath, shared, cancelled, otherHost, plugin, command, noHost, claudeNamed, codexFolder}

	ApplySwitches(records, []SkillSwitch{
		{Folder: "pdf", HostSwitch: sw("claude", ModeOff, "user.json")},
		{Folder: "pdf", HostSwitch: sw("claude", ModeNameOnly, "local.json")}, // later file wins
		{Name: "sheets", HostSwitch: sw("codex", ModeOff, "config.toml")},
		{Path: "/r/sheets2/SKILL.md", HostSwitch: sw("codex", ModeOn, "config.toml")}, // a later "on" cancels
		{Name: "shared", HostSwitch: sw("gemini", ModeOff, "settings.json")},
		{Folder: "gone", HostSwitch: sw("claude", ModeOff, "a.json")},
		{Folder: "gone", HostSwitch: sw("claude", ModeOn, "b.json")},
	})
	want := map[*Record][]HostSwitch{
		byFolder:  {sw("claude", ModeNameOnly, "local.json")},
		byName:    {sw("codex", ModeOff, "config.toml")},
		byPath:    nil,
		shared:    {sw("gemini", ModeOff, "settings.json")},
		cancelled: nil,
		otherHost: nil, // Claude's switch is no Codex skill's
		plugin:    nil, // plugins are switched by plugin
		command:   nil,
		noHost:    nil,
		// The frontmatter name "pdf" is no folder name, and "sheets" is
		// this skill's folder, not its name.
		claudeNamed: nil,
		codexFolder: nil,
	}
	for r, w := range want {
		if d := cmp.Diff(w, r.Off); d != "" {
			t.Errorf("%s (%s): switches (-want +got):\n%s", r.Name, r.Dir, d)
		}
	}
	// Off in the view of every host only when every host turns it off.
	if shared.OffIn("") != nil || len(shared.OffIn("gemini")) != 1 || shared.OffIn("codex") != nil {
		t.Errorf("shared: OffIn all=%v gemini=%v codex=%v", shared.OffIn(""), shared.OffIn("gemini"), shared.OffIn("codex"))
	}
	if byFolder.OffIn("") != nil {
		t.Error("name-only hides the skill")
	}
	if got := DescribeOff(byName.OffIn("")); got != "off in codex (config.toml s, user)" {
		t.Errorf("DescribeOff = %q", got)
	}
}

// TestJoinFolders: the records of one folder, read by different hosts
// through different roots, are one skill for switches.
func TestJoinFolders(t *testing.T) {
	sw := func(host, mode string) HostSwitch {
		return HostSwitch{Host: host, Title: host, Mode: mode, File: host + ".json", Scope: "user", Setting: "s"}
	}
	shared := &Record{Name: "notes", Dir: "/ws/.agents/skills/notes", File: "/ws/.agents/skills/notes/SKILL.md",
		Hosts: []string{"codex", "gemini"}}
	// Claude Code reads the folder through a link of another name.
	linked := &Record{Name: "notes", Dir: "/ws/.claude/skills/my-notes", RealDir: "/ws/.agents/skills/notes",
		File: "/ws/.claude/skills/my-notes/SKILL.md", Hosts: []string{"claude"}}
	alone := &Record{Name: "notes", Dir: "/home/.codex/skills/notes", File: "/home/.codex/skills/notes/SKILL.md",
		Hosts: []string{"codex"}}
	records := []*Record{shared, linked, alone}

	ApplySwitches(records, []SkillSwitch{{Folder: "my-notes", HostSwitch: sw("claude", ModeOff)}})
	for _, r := range []*Record{shared, linked} {
		if d := cmp.Diff([]string{"codex", "gemini", "claude"}, r.Readers); d != "" {
			t.Errorf("%s: readers (-want +got):\n%s", r.Dir, d)
		}
		if d := cmp.Diff([]HostSwitch{sw("claude", ModeOff)}, r.Off); d != "" {
			t.Errorf("%s: switches (-want +got):\n%s", r.Dir, d)
		}
		// Off in Claude Code's view by either record; on for the others.
		if r.OffIn("claude") == nil || r.OffIn("codex") != nil || r.OffIn("") != nil {
			t.Errorf("%s: OffIn claude=%v codex=%v all=%v", r.Dir, r.OffIn("claude"), r.OffIn("codex"), r.OffIn(""))
		}
	}
	// A copy in a folder of its own is another skill.
	if alone.Off != nil || !slices.Equal(alone.Readers, []string{"codex"}) {
		t.Errorf("a copy elsewhere got %v %v", alone.Off, alone.Readers)
	}

	// Off for every host that reads the folder: hidden by both records.
	ApplySwitches(records, []SkillSwitch{
		{Folder: "my-notes", HostSwitch: sw("claude", ModeOff)},
		{Name: "notes", HostSwitch: sw("codex", ModeOff)},
		{Name: "notes", HostSwitch: sw("gemini", ModeOff)},
	})
	for _, r := range []*Record{shared, linked} {
		if len(r.OffIn("")) != 3 {
			t.Errorf("%s: off for every reader, OffIn(\"\") = %v", r.Dir, r.OffIn(""))
		}
	}
}

// TestApplySwitchesOn: a host that is not set up here reads nothing: a
// skill off in every host set up is off in the view of every host, and a
// switch of a host that is not set up keeps nothing off where another
// host loads it.
func TestApplySwitchesOn(t *testing.T) {
	sw := func(host string) SkillSwitch {
		return SkillSwitch{Name: "notes", HostSwitch: HostSwitch{Host: host, Mode: ModeOff, File: host + ".json"}}
	}
	shared := &Record{Name: "notes", Dir: "/ws/.agents/skills/notes", Hosts: []string{"codex", "gemini"}}
	linked := &Record{Name: "notes", Dir: "/ws/.claude/skills/notes", RealDir: "/ws/.agents/skills/notes", Hosts: []string{"claude"}}
	claudeSwitch := SkillSwitch{Folder: "notes", HostSwitch: HostSwitch{Host: "claude", Mode: ModeOff, File: "c.json"}}

	// Claude Code alone is set up, and turns it off: off for everyone.
	ApplySwitchesOn([]*Record{shared, linked}, []SkillSwitch{claudeSwitch}, []string{"claude"})
	if !slices.Equal(shared.Readers, []string{"claude"}) || shared.OffIn("") == nil || linked.OffIn("") == nil {
		t.Errorf("Claude Code alone: readers %v, OffIn %v %v", shared.Readers, shared.OffIn(""), linked.OffIn(""))
	}
	// Codex is set up and loads it: on in the shared view, even though
	// Gemini CLI (not set up) has a switch that hides it.
	ApplySwitchesOn([]*Record{shared, linked}, []SkillSwitch{claudeSwitch, sw("gemini")}, []string{"claude", "codex"})
	if shared.OffIn("") != nil || shared.OffIn("claude") == nil || shared.OffIn("gemini") == nil {
		t.Errorf("with Codex: OffIn all=%v claude=%v gemini=%v", shared.OffIn(""), shared.OffIn("claude"), shared.OffIn("gemini"))
	}
	// No host set up reads it: a switch still hides it.
	ApplySwitchesOn([]*Record{shared, linked}, []SkillSwitch{sw("gemini")}, []string{})
	if len(shared.Readers) != 0 || shared.OffIn("") == nil {
		t.Errorf("no host: readers %v, OffIn %v", shared.Readers, shared.OffIn(""))
	}
}
