package claude

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestPlanReadsSkillOverrides: skillOverrides of every settings file,
// in Claude Code's order (user, then each workspace folder's project and
// local files, farthest first); bad values and files are warnings.
func TestPlanReadsSkillOverrides(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json":           `{"skillOverrides": {"pdf": "off", "bad": "maybe", "notes": "name-only"}}`,
		"repo/.claude/settings.local.json":     `{"skillOverrides": {"pdf": "on"}}`,
		"repo/sub/.claude/settings.json":       "{\n  \"skillOverrides\": [\"x\"]\n}",
		"repo/sub/.claude/settings.local.json": "{\n  \"a\": 1\n  \"b\": 2\n}",
		"repo/sub/.claude/skills/x/SKILL.md":   "",
		"home/.claude/skills/notes/SKILL.md":   "",
		"repo/.claude/settings.json":           `{"skillOverrides": null}`,
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	env := providertest.Env(abs("home"), nil, abs("repo/sub"), abs("repo"))
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	sw := func(name, mode, file, scope string) pipeline.SkillSwitch {
		return pipeline.SkillSwitch{Folder: name, HostSwitch: pipeline.HostSwitch{Host: "claude", Title: "Claude Code",
			Mode: mode, File: abs(file), Scope: scope, Setting: "skillOverrides"}}
	}
	want := []pipeline.SkillSwitch{
		sw("notes", "name-only", "home/.claude/settings.json", "user"),
		sw("pdf", "off", "home/.claude/settings.json", "user"),
		sw("pdf", "on", "repo/.claude/settings.local.json", "local"),
	}
	if d := cmp.Diff(want, plan.Switches); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
	var got []string
	for _, d := range plan.Diagnostics {
		got = append(got, providertest.Rel(t, base, d.Path)+":"+d.Message)
	}
	wantDiags := []string{`"bad"`, "skillOverrides in settings.json must be an object", "not valid JSON (line 3"}
	if len(got) != len(wantDiags) {
		t.Fatalf("diagnostics: %q", got)
	}
	for i, w := range wantDiags {
		if !strings.Contains(got[i], w) {
			t.Errorf("diagnostic %d = %q, want it to hold %q", i, got[i], w)
		}
	}
	if len(plan.Manifests) != 5 {
		t.Errorf("manifests: %v, want the five settings files", plan.Manifests)
	}
}

// TestSwitcher: disabling writes the scope's file; enabling with no scope
// clears every file; a later file that overrides the switch is an error
// and leaves the edit out; a plugin is written where it is decided.
func TestSwitcher(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json":         `{"enabledPlugins": {"p@m": true}}`,
		"home/.claude/skills/notes/SKILL.md": "",
		"repo/.claude/settings.json":         `{"enabledPlugins": {"p@m": false}, "skillOverrides": {"notes": "on"}}`,
		"repo/.claude/skills/rel/SKILL.md":   "",
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	env := providertest.Env(abs("home"), nil, abs("repo"))
	user := &pipeline.Record{Name: "Notes", Dir: abs("home/.claude/skills/notes"), Location: pipeline.LocationUser,
		Root: abs("home/.claude/skills"), Hosts: []string{"claude"}}
	proj := &pipeline.Record{Name: "rel", Dir: abs("repo/.claude/skills/rel"), Location: pipeline.LocationProject,
		Root: abs("repo/.claude/skills"), Hosts: []string{"claude"}}
	sw := host.Switcher

	fs := providers.NewFiles()
	edits, err := sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: proj, Mode: "off"})
	if err != nil || len(edits) != 1 || edits[0].File != abs("repo/.claude/settings.local.json") || edits[0].Scope != "local" {
		t.Fatalf("project skill: %+v %v", edits, err)
	}
	// The project file says "on" for notes, after the user's file: an
	// error, and the caller rolls the edit back.
	mark := fs.Mark()
	_, err = sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: user, Mode: "off"})
	if err == nil || !strings.Contains(err.Error(), "give --scope project") {
		t.Fatalf("overridden switch: %v", err)
	}
	fs.Rollback(mark)
	edits, err = sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: user, Mode: "off", Scope: "project"})
	if err != nil || !edits[0].Changed {
		t.Fatalf("project scope: %+v %v", edits, err)
	}
	edits, err = sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: user, Mode: "on"})
	if err != nil || len(edits) != 1 || edits[0].File != abs("repo/.claude/settings.json") {
		t.Fatalf("enable clears: %+v %v", edits, err)
	}
	// The plugin is decided by the project file, which is where it goes.
	edits, err = sw.SetPlugin(providers.PluginRequest{Env: env, Files: fs, Key: "p@m", On: true})
	if err != nil || edits[0].File != abs("repo/.claude/settings.json") {
		t.Fatalf("plugin: %+v %v", edits, err)
	}
	var changed []string
	for _, f := range fs.Changed() {
		changed = append(changed, providertest.Rel(t, base, f.Path)+" "+string(f.New))
	}
	want := []string{
		"repo/.claude/settings.local.json {\n  \"skillOverrides\": {\n    \"rel\": \"off\"\n  }\n}\n",
		`repo/.claude/settings.json {"enabledPlugins": {"p@m": true}}`,
	}
	if d := cmp.Diff(want, changed); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
}

// TestSwitcherPrecedence: what enable and disable write, or refuse, given
// the settings files Claude Code reads (user, then the project's, then
// the local one); the skill is known by its folder name "notes" (its
// frontmatter name "pdf" is another skill's folder).
func TestSwitcherPrecedence(t *testing.T) {
	tests := []struct {
		name          string
		user, local   string // settings.json in home and settings.local.json in repo
		mode, scope   string
		wantErr       string
		wantUser      string
		wantLocal     string
		wantUnchanged bool
	}{
		{name: "user off, enable at local scope writes on there",
			user: `{"skillOverrides": {"notes": "off"}}`, mode: "on", scope: "local",
			wantUser: `{"skillOverrides": {"notes": "off"}}`, wantLocal: "{\n  \"skillOverrides\": {\n    \"notes\": \"on\"\n  }\n}\n"},
		{name: "user off and local on: enable at user scope clears the user's",
			user: `{"skillOverrides": {"notes": "off", "pdf": "off"}}`, local: `{"skillOverrides": {"notes": "on"}}`, mode: "on", scope: "user",
			wantUser: `{"skillOverrides": {"pdf": "off"}}`, wantLocal: `{"skillOverrides": {"notes": "on"}}`},
		{name: "local off: enable at user scope is refused",
			local: `{"skillOverrides": {"notes": "off"}}`, mode: "on", scope: "user",
			wantErr: "settings.local.json sets skillOverrides \"notes\" to off, and Claude Code reads it after"},
		{name: "local on: disable at user scope is refused",
			local: `{"skillOverrides": {"notes": "on"}}`, mode: "off", scope: "user",
			wantErr: "give --scope local to change it there"},
		{name: "enable leaves the entry of another skill's folder",
			user: `{"skillOverrides": {"pdf": "off"}}`, mode: "on",
			wantUser: `{"skillOverrides": {"pdf": "off"}}`, wantUnchanged: true},
		{name: "a malformed file is named with its line, not taken as on",
			user: "{\n  \"skillOverrides\": {\"notes\": \"off\"}\n  \"x\": 1\n}", mode: "on",
			wantErr: "settings.json:3:3"},
		{name: "a malformed later file is named when disabling",
			local: "{\n  \"a\": 1,,\n}", mode: "off", scope: "user",
			wantErr: "settings.local.json:2:10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			files := map[string]string{"home/.claude/skills/notes/SKILL.md": "", "repo/.git/": ""}
			if tt.user != "" {
				files["home/.claude/settings.json"] = tt.user
			}
			if tt.local != "" {
				files["repo/.claude/settings.local.json"] = tt.local
			}
			testfs.Write(t, base, files)
			abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
			env := providertest.Env(abs("home"), nil, abs("repo"))
			rec := &pipeline.Record{Name: "pdf", Dir: abs("home/.claude/skills/notes"), Location: pipeline.LocationUser,
				Root: abs("home/.claude/skills"), Hosts: []string{"claude"}}
			fs := providers.NewFiles()
			edits, err := host.Switcher.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: rec, Mode: tt.mode, Scope: tt.scope})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantUnchanged && len(edits) != 0 {
				t.Errorf("edits: %+v, want none", edits)
			}
			for file, want := range map[string]string{"home/.claude/settings.json": tt.wantUser,
				"repo/.claude/settings.local.json": tt.wantLocal} {
				if got, _, _ := fs.Read(abs(file)); string(got) != want {
					t.Errorf("%s: got %q, want %q", file, got, want)
				}
			}
		})
	}
}
