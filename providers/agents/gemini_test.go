package agents

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

func TestPlanReadsGeminiSwitches(t *testing.T) {
	base := testfs.TempDir(t)
	user := "{\n  // mine\n  \"skills\": {\"disabled\": [\"pdf\",],},\n}\n"
	testfs.Write(t, base, map[string]string{
		"home/.gemini/settings.json": user,
		"repo/.gemini/settings.json": `{"skills": {"disabled": "pdf"}}`,
	})
	abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
	env := providertest.Env(abs("home"), nil, abs("repo"))
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	want := []pipeline.SkillSwitch{{Name: "pdf", HostSwitch: pipeline.HostSwitch{Host: "gemini", Title: "Gemini CLI",
		Mode: "off", File: abs("home/.gemini/settings.json"), Scope: "user", Setting: "skills.disabled"}}}
	if d := cmp.Diff(want, plan.Switches); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
	if len(plan.Diagnostics) != 1 || !strings.Contains(plan.Diagnostics[0].Message, "list of skill names") {
		t.Errorf("diagnostics: %+v", plan.Diagnostics)
	}

	// The user's file keeps its comments; the project's, whose list is a
	// string, is refused, naming the file.
	rec := &pipeline.Record{Name: "stars", Location: pipeline.LocationProject, Root: abs("repo/.gemini/skills"),
		Dir: abs("repo/.gemini/skills/stars"), Hosts: []string{"gemini"}}
	sw := geminiHost.Switcher
	fs := providers.NewFiles()
	edits, err := sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: rec, Mode: "off", Scope: "user"})
	if err != nil || edits[0].File != abs("home/.gemini/settings.json") || !edits[0].Changed {
		t.Fatalf("%+v %v", edits, err)
	}
	if data, _, _ := fs.Read(abs("home/.gemini/settings.json")); !strings.Contains(string(data), "// mine") ||
		!strings.Contains(string(data), `"pdf", "stars",`) {
		t.Errorf("user file:\n%s", data)
	}
	_, err = sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: rec, Mode: "off"})
	if err == nil || !strings.Contains(err.Error(), abs("repo/.gemini/settings.json")) || !strings.Contains(err.Error(), "not an array") {
		t.Errorf("project file: %v", err)
	}
	if _, err := sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: rec, Mode: "on", Scope: "user"}); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := fs.Read(abs("home/.gemini/settings.json")); string(data) != user {
		t.Errorf("round trip:\n%s", data)
	}
	if _, err := sw.SetPlugin(providers.PluginRequest{Env: env, Files: fs, Key: "ext@gemini"}); err == nil ||
		!strings.Contains(err.Error(), "gemini extensions enable") {
		t.Errorf("plugin: %v", err)
	}
}

// TestGeminiSwitchKeysAreExact: keys are matched exactly, as Gemini CLI
// matches them: "Skills" and "Disabled" switch nothing.
func TestGeminiSwitchKeysAreExact(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.gemini/settings.json": `{"Skills": {"disabled": ["a"]}, "skills": {"Disabled": ["b"], "disabled": ["c"]}}`,
	})
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), providertest.Env(filepath.Join(base, "home"), nil))
	if len(plan.Switches) != 1 || plan.Switches[0].Name != "c" {
		t.Errorf("switches: %+v", plan.Switches)
	}
}

// TestGeminiSwitcher: disabling adds the skill's frontmatter name to
// skills.disabled of its scope's file (the user's for a personal skill,
// the project's for a project skill); enabling with no scope removes it
// from every file, with a scope from that file only, and is refused when
// another file still lists it.
func TestGeminiSwitcher(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		rec           string // user or project
		mode, scope   string
		wantUser      string
		wantProject   string
		wantErr       string
	}{
		{name: "personal skill off goes to the user's file", rec: "user", mode: "off",
			wantUser: "{\n  \"skills\": {\n    \"disabled\": [\"Pretty Stars\"]\n  }\n}\n"},
		{name: "project skill off goes to the project's file", rec: "project", mode: "off",
			project:     "{\n  \"ui\": {}\n}\n",
			wantProject: "{\n  \"ui\": {},\n  \"skills\": {\n    \"disabled\": [\"Pretty Stars\"]\n  }\n}\n"},
		{name: "enable with no scope clears every file", rec: "user", mode: "on",
			user:    `{"skills": {"disabled": ["Pretty Stars", "x"]}}`,
			project: `{"skills": {"disabled": ["Pretty Stars"]}}`,
			// The list goes, as adding the name would write it back; the
			// object the user wrote inline stays.
			wantUser: `{"skills": {"disabled": ["x"]}}`, wantProject: `{"skills": {}}`},
		{name: "enable at user scope refused while the project lists it", rec: "user", mode: "on", scope: "user",
			user: `{"skills": {"disabled": ["Pretty Stars"]}}`, project: `{"skills": {"disabled": ["Pretty Stars"]}}`,
			wantErr: "still lists it in skills.disabled"},
		{name: "a malformed other file is named with its line", rec: "user", mode: "on", scope: "user",
			project: "{\n  \"skills\": {\"disabled\": [\"a\" \"b\"]}\n}", wantErr: "settings.json:2:"},
		{name: "the folder name is not matched", rec: "user", mode: "on",
			user: `{"skills": {"disabled": ["stars"]}}`, wantUser: `{"skills": {"disabled": ["stars"]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			files := map[string]string{"repo/.git/": ""}
			if tt.user != "" {
				files["home/.gemini/settings.json"] = tt.user
			}
			if tt.project != "" {
				files["repo/.gemini/settings.json"] = tt.project
			}
			testfs.Write(t, base, files)
			abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
			env := providertest.Env(abs("home"), nil, abs("repo"))
			recs := map[string]*pipeline.Record{
				"user": {Name: "Pretty Stars", Location: pipeline.LocationUser, Root: abs("home/.gemini/skills"),
					Dir: abs("home/.gemini/skills/stars"), Hosts: []string{"gemini"}},
				"project": {Name: "Pretty Stars", Location: pipeline.LocationProject, Root: abs("repo/.gemini/skills"),
					Dir: abs("repo/.gemini/skills/stars"), Hosts: []string{"gemini"}},
			}
			fs := providers.NewFiles()
			_, err := geminiHost.Switcher.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: recs[tt.rec],
				Mode: tt.mode, Scope: tt.scope})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for file, want := range map[string]string{"home/.gemini/settings.json": tt.wantUser, "repo/.gemini/settings.json": tt.wantProject} {
				if want == "" {
					want = map[string]string{"home/.gemini/settings.json": tt.user, "repo/.gemini/settings.json": tt.project}[file]
				}
				if got, _, _ := fs.Read(abs(file)); string(got) != want {
					t.Errorf("%s: got %q, want %q", file, got, want)
				}
			}
		})
	}
}
