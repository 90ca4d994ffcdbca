package engine

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// homePlaces are the three places a Claude and a Codex folder can be, by
// the tag their contents are named with: the defaults under the user
// folder, the folders the variables name and the folders the options name.
var homePlaces = []struct{ tag, claude, codex string }{
	{"default", "home/.claude", "home/.codex"},
	{"env", "env-claude", "env-codex"},
	{"opt", "opt-claude", "opt-codex"},
}

// homeTree lays out, in each place, a Claude folder with a user skill, a
// command and an installed plugin (with a skill and a command), and a
// Codex folder with a user skill and a custom prompt, all named after the
// place's tag. The workspace is <base>/repo/ws in the repository
// <base>/repo.
func homeTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	files := map[string]string{"repo/.git/": "", "repo/ws/": ""}
	for _, p := range homePlaces {
		tag := p.tag
		files[p.claude+"/skills/"+tag+"-skill/SKILL.md"] = skillMD(tag+"-skill", "Claude user skill ("+tag+").")
		files[p.claude+"/commands/"+tag+"-cmd.md"] = "Claude command (" + tag + ").\n"
		plugin := p.claude + "/plugins/cache/m/" + tag + "-plugin/1"
		files[plugin+"/skills/"+tag+"-plugin-skill/SKILL.md"] = skillMD(tag+"-plugin-skill", "Plugin skill ("+tag+").")
		files[plugin+"/commands/"+tag+"-plugin-cmd.md"] = "Plugin command (" + tag + ").\n"
		installed, err := json.Marshal(map[string]any{"version": 1, "plugins": map[string]any{
			tag + "-plugin@m": map[string]any{"installPath": "cache/m/" + tag + "-plugin/1", "version": "1"},
		}})
		if err != nil {
			t.Fatal(err)
		}
		files[p.claude+"/plugins/installed_plugins.json"] = string(installed)
		files[p.codex+"/skills/"+tag+"-codex-skill/SKILL.md"] = skillMD(tag+"-codex-skill", "Codex user skill ("+tag+").")
		files[p.codex+"/prompts/"+tag+"-prompt.md"] = "Codex prompt (" + tag + ").\n"
	}
	testfs.Write(t, base, files)
	return base
}

// TestHomesMoveEveryRoot checks that the Claude and Codex folders are
// resolved once, by their owners (providers.HomeOwner), for every
// provider: providers.claude.home moves the
// claude skills root, the commands root and the plugins root together,
// providers.codex.home moves the codex skills root and the prompts root,
// and without the options CLAUDE_CONFIG_DIR and CODEX_HOME still do.
func TestHomesMoveEveryRoot(t *testing.T) {
	tests := []struct {
		name     string
		vars     bool   // set CLAUDE_CONFIG_DIR and CODEX_HOME (to env-*)
		options  bool   // set providers.claude.home and providers.codex.home (to opt-*)
		relative bool   // the options are relative to the workspace
		disable  bool   // the claude and codex providers are disabled
		want     string // the tag of the place every root must be in
	}{
		{name: "defaults", want: "default"},
		{name: "CLAUDE_CONFIG_DIR and CODEX_HOME", vars: true, want: "env"},
		{name: "home options beat the variables", vars: true, options: true, want: "opt"},
		{name: "home options without variables", options: true, want: "opt"},
		{name: "relative home options are taken from the workspace", vars: true, options: true, relative: true, want: "opt"},
		{name: "home options apply with the claude and codex providers disabled", vars: true, options: true,
			disable: true, want: "opt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := homeTree(t)
			abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
			ws := abs("repo/ws")
			vars := map[string]string{}
			if tt.vars {
				vars["CLAUDE_CONFIG_DIR"], vars["CODEX_HOME"] = abs("env-claude"), abs("env-codex")
			}
			cfg := configs.Default(all.Registry())
			claudeOpt, codexOpt := "", ""
			if tt.options {
				claudeOpt, codexOpt = abs("opt-claude"), abs("opt-codex")
				if tt.relative {
					claudeOpt, codexOpt = "../../opt-claude", "../../opt-codex"
				}
			}
			cfg.Providers["claude"] = configs.Provider{Enabled: !tt.disable, Options: &claude.Options{Home: claudeOpt}}
			cfg.Providers["codex"] = configs.Provider{Enabled: !tt.disable, Options: &codex.Options{Home: codexOpt}}
			e, err := New(cfg, providers.NewEnv(abs("home"), ws, func(k string) string { return vars[k] }))
			if err != nil {
				t.Fatalf("New: %v", err)
			}

			var place struct{ tag, claude, codex string }
			for _, p := range homePlaces {
				if p.tag == tt.want {
					place = p
				}
			}
			claudeHome, codexHome := abs(place.claude), abs(place.codex)
			if env := e.Env(); claude.Dir(env) != claudeHome || codex.Dir(env) != codexHome {
				t.Errorf("Env() homes = %q, %q; want %q, %q", claude.Dir(env), codex.Dir(env), claudeHome, codexHome)
			}

			snap, _ := snapshot(t, e)
			// Every user and plugin root of the Claude and Codex providers
			// lies in the chosen folder.
			plugin := filepath.Join(claudeHome, "plugins", "cache", "m", place.tag+"-plugin", "1")
			wantRoots := map[string]bool{
				filepath.Join(claudeHome, "commands"): true,
				filepath.Join(plugin, "skills"):       true,
				filepath.Join(plugin, "commands"):     true,
				filepath.Join(codexHome, "prompts"):   true,
			}
			seen := map[string]bool{}
			for _, r := range snap.Roots {
				if r.Location != pipeline.LocationUser && r.Location != pipeline.LocationPlugin {
					continue
				}
				if r.Agent != "claude" && r.Agent != "codex" {
					continue
				}
				home := claudeHome
				if r.Agent == "codex" {
					home = codexHome
				}
				if !strings.HasPrefix(r.Path, home+string(filepath.Separator)) {
					t.Errorf("%s root %s (source %s) is not in %s", r.Agent, r.Path, r.Provider, home)
				}
				seen[r.Path] = true
			}
			for want := range wantRoots {
				if !seen[want] {
					t.Errorf("no root %s; roots: %+v", want, snap.Roots)
				}
			}

			// The records found are the chosen place's, and all of them.
			var got []string
			for _, r := range snap.All {
				if r.Location == pipeline.LocationUser || r.Location == pipeline.LocationPlugin {
					got = append(got, r.Agent+" "+r.Name)
				}
			}
			sort.Strings(got)
			tag := tt.want
			want := []string{
				"claude " + tag + "-cmd",
				"claude " + tag + "-plugin:" + tag + "-plugin-cmd",
				"claude " + tag + "-plugin:" + tag + "-plugin-skill",
				"codex " + tag + "-prompt",
			}
			if !tt.disable {
				want = append(want, "claude "+tag+"-skill", "codex "+tag+"-codex-skill")
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("user and plugin records (-want +got):\n%s", diff)
			}
			for _, d := range snap.Diagnostics {
				if d.Severity != pipeline.SeverityInfo {
					t.Errorf("unexpected diagnostic: %+v", d)
				}
			}
		})
	}
}
