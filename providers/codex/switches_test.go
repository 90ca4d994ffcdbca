package codex

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

func TestPlanReadsSkillsConfig(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/.codex/config.toml": `model = "o3"
[[skills.config]]
path = "/abs/pdf/SKILL.md"
enabled = false
[[skills.config]]
name = "sheets"
enabled = false
[[skills.config]]
name = "sheets"
enabled = true
[[skills.config]]
name = "nothing"
[[skills.config]]
path = "relative/SKILL.md"
enabled = false
[[skills.config]]
enabled = "no"
[[Skills.Config]]
name = "upper"
enabled = false
[[skills.Config]]
name = "mixed"
enabled = false
`,
	})
	env := providertest.Env(filepath.Join(base, "home"), nil)
	plan := providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	file := filepath.Join(base, "home", ".codex", "config.toml")
	hs := func(mode string) pipeline.HostSwitch {
		return pipeline.HostSwitch{Host: "codex", Title: "Codex", Mode: mode, File: file, Scope: "user", Setting: "[[skills.config]]"}
	}
	want := []pipeline.SkillSwitch{
		{Path: "/abs/pdf/SKILL.md", HostSwitch: hs("off")},
		{Name: "sheets", HostSwitch: hs("off")},
		{Name: "sheets", HostSwitch: hs("on")},
	}
	if d := cmp.Diff(want, plan.Switches); d != "" {
		t.Errorf("switches (-want +got):\n%s", d)
	}
	if len(plan.Diagnostics) != 2 || !strings.Contains(plan.Diagnostics[0].Message, "absolute path") ||
		!strings.Contains(plan.Diagnostics[1].Message, "true or false") {
		t.Errorf("diagnostics: %+v", plan.Diagnostics)
	}

	testfs.Write(t, base, map[string]string{"home/.codex/config.toml": "a = 1\n[[skills.config\n"})
	plan = providertest.Plan(t, providertest.MustNew(t, New, nil), env)
	if len(plan.Diagnostics) != 1 || plan.Diagnostics[0].Line != 2 {
		t.Errorf("malformed: %+v", plan.Diagnostics)
	}
}

// TestSwitcher: a new table names the skill by name unless Codex reads
// another skill of that name; enabling removes a table that only switches,
// and sets enabled = true in one that holds more.
func TestSwitcher(t *testing.T) {
	base := testfs.TempDir(t)
	config := "# mine\n[[skills.config]]\nname = \"kept\"\nenabled = false\nnote = \"why\"\n"
	testfs.Write(t, base, map[string]string{"home/.codex/config.toml": config})
	env := providertest.Env(filepath.Join(base, "home"), nil)
	rec := func(name, dir string) *pipeline.Record {
		return &pipeline.Record{Name: name, Dir: "/s/" + dir, File: "/s/" + dir + "/SKILL.md", Hosts: []string{"codex"}}
	}
	pdf, pdf2, kept := rec("pdf", "pdf"), rec("pdf", "pdf-other"), rec("kept", "kept")
	all := []*pipeline.Record{pdf, pdf2, kept}
	sw := host.Switcher
	fs := providers.NewFiles()
	set := func(r *pipeline.Record, mode string) {
		t.Helper()
		if _, err := sw.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: r, Mode: mode, All: all}); err != nil {
			t.Fatal(err)
		}
	}
	set(pdf, "off")
	set(kept, "on")
	file := filepath.Join(base, "home", ".codex", "config.toml")
	data, _, _ := fs.Read(file)
	want := "# mine\n[[skills.config]]\nname = \"kept\"\nenabled = true\nnote = \"why\"\n\n[[skills.config]]\npath = \"/s/pdf/SKILL.md\"\nenabled = false\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	set(pdf, "on")
	set(kept, "off")
	if data, _, _ := fs.Read(file); string(data) != config {
		t.Errorf("round trip:\n%s", data)
	}
	if _, err := sw.SetPlugin(providers.PluginRequest{Env: env, Files: fs, Key: "tools@market", On: false}); err != nil {
		t.Fatal(err)
	}
	if data, _, _ := fs.Read(file); !strings.HasSuffix(string(data), "\n[plugins.\"tools@market\"]\nenabled = false\n") {
		t.Errorf("plugin:\n%s", data)
	}
}

// TestSwitcherSharedName: a [[skills.config]] name switches every skill
// Codex reads by that frontmatter name, so a table naming a shared name
// is never edited for one of them: disabling adds a path table, enabling
// one of them is refused. A folder name is no name.
func TestSwitcherSharedName(t *testing.T) {
	tests := []struct {
		name, config string
		rec          string // which record: pdf (shared name) or sheets (folder "sheets", name "Sheet Tools")
		mode         string
		want         string // the file afterwards ("" = unchanged)
		wantErr      string
	}{
		{name: "disable next to an explicit on of the name", rec: "pdf", mode: "off",
			config: "[[skills.config]]\nname = \"pdf\"\nenabled = true\n",
			want:   "[[skills.config]]\nname = \"pdf\"\nenabled = true\n\n[[skills.config]]\npath = \"/s/pdf/SKILL.md\"\nenabled = false\n"},
		{name: "already off by its shared name", rec: "pdf", mode: "off",
			config: "[[skills.config]]\nname = \"pdf\"\nenabled = false\n"},
		{name: "enable refused while the name turns others off", rec: "pdf", mode: "on",
			config:  "[[skills.config]]\nname = \"pdf\"\nenabled = false\n",
			wantErr: `turns off every Codex skill named "pdf", this one and /s/pdf-other/SKILL.md`},
		{name: "enable removes its own path table, keeps the name's", rec: "pdf", mode: "on",
			config: "[[skills.config]]\nname = \"pdf\"\nenabled = true\n\n[[skills.config]]\npath = \"/s/pdf/SKILL.md\"\nenabled = false\n",
			want:   "[[skills.config]]\nname = \"pdf\"\nenabled = true\n"},
		{name: "a folder name is not its name", rec: "sheets", mode: "off",
			config: "[[skills.config]]\nname = \"sheets\"\nenabled = true\n",
			want:   "[[skills.config]]\nname = \"sheets\"\nenabled = true\n\n[[skills.config]]\nname = \"Sheet Tools\"\nenabled = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, map[string]string{"home/.codex/config.toml": tt.config})
			env := providertest.Env(filepath.Join(base, "home"), nil)
			rec := func(name, dir string) *pipeline.Record {
				return &pipeline.Record{Name: name, Dir: "/s/" + dir, File: "/s/" + dir + "/SKILL.md", Hosts: []string{"codex"}}
			}
			recs := map[string]*pipeline.Record{"pdf": rec("pdf", "pdf"), "sheets": rec("Sheet Tools", "sheets")}
			all := []*pipeline.Record{recs["pdf"], rec("pdf", "pdf-other"), recs["sheets"]}
			fs := providers.NewFiles()
			_, err := host.Switcher.SetSkill(providers.SkillRequest{Env: env, Files: fs, Record: recs[tt.rec], Mode: tt.mode, All: all})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.config
			}
			if data, _, _ := fs.Read(filepath.Join(base, "home", ".codex", "config.toml")); string(data) != want {
				t.Errorf("got %q, want %q", data, want)
			}
		})
	}
}

// TestSetPluginForms: [plugins."p@m"] enabled is written in the file's
// line endings, and next to the dotted keys that define the plugin's
// table when the file has no [plugins."p@m"] header (a header would
// define it twice, which Codex refuses).
func TestSetPluginForms(t *testing.T) {
	tests := []struct{ name, config, want string }{
		{"CRLF, new table", "model = \"o3\"\r\n", "model = \"o3\"\r\n\r\n[plugins.\"tools@market\"]\r\nenabled = false\r\n"},
		{"CRLF, existing table", "[plugins.\"tools@market\"]\r\nenabled = true\r\n", "[plugins.\"tools@market\"]\r\nenabled = false\r\n"},
		{"dotted in [plugins]", "[plugins]\n\"tools@market\".other = 1\n", "[plugins]\n\"tools@market\".other = 1\n\"tools@market\".enabled = false\n"},
		{"dotted at the top", "plugins.\"tools@market\".enabled = true\n", "plugins.\"tools@market\".enabled = false\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, map[string]string{"home/.codex/config.toml": tt.config})
			env := providertest.Env(filepath.Join(base, "home"), nil)
			fs := providers.NewFiles()
			if _, err := host.Switcher.SetPlugin(providers.PluginRequest{Env: env, Files: fs, Key: "tools@market"}); err != nil {
				t.Fatal(err)
			}
			if data, _, _ := fs.Read(filepath.Join(base, "home", ".codex", "config.toml")); string(data) != tt.want {
				t.Errorf("got %q, want %q", data, tt.want)
			}
		})
	}
}
