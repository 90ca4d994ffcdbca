package integration

// ccski enable / disable / profile / install-workflow on a fixture home
// laid out as a real install of Claude Code (with a plugin), Codex and
// Gemini CLI: each host's own switch is written, read back by discovery
// and reverted; the user's files keep every other byte; a malformed file
// is left alone with an error naming its line; a write killed half-way
// leaves the old file or the new one.

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/internal/testfs"
)

// switchTree is the fixture: home (the user folder) and ws (a repository).
type switchTree struct {
	home, ws string
}

const (
	switchPluginKey = "linter@tools-market"
	switchPluginID  = "claude:@linter:lint-fix"
)

// The user's own files, written as people leave them: odd spacing,
// unknown keys, comments where the format allows them.
const (
	switchClaudeSettings = `{
    "model":"opus" ,
  "permissions": {"allow": ["Bash(ls:*)"],   "deny": []},
  "futureKey": {"nested": [1, 2, {"x": null}]},
  "enabledPlugins": {
      "linter@tools-market": true
  }
}
`
	switchCodexConfig = `# Codex settings, hand-edited
model = "o3"   # the default model
approval_policy="on-request"

[features]
plugins = true

# An old switch of another skill: keep it.
[[skills.config]]
path = "/nowhere/old/SKILL.md"
enabled = false

[mcp_servers.files]
command = "npx"
args = [
  "-y", # auto-install
  "files-server",
]
`
	switchGeminiSettings = `{
  // Gemini CLI settings
  "ui": {"theme": "GitHub",},
  "general": {
    "vimMode": true, /* yes */
  },
}
`
)

func switchSkill(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n"
}

func newSwitchTree(t *testing.T) switchTree {
	t.Helper()
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	tr := switchTree{home: filepath.Join(base, "home"), ws: filepath.Join(base, "work", "repo")}
	plugins := filepath.Join(tr.home, ".claude", "plugins")
	cache := filepath.Join(plugins, "cache", "tools-market", "linter", "2.0.0")
	market := filepath.Join(plugins, "marketplaces", "tools-market")
	testfs.Write(t, base, map[string]string{
		"home/.claude/settings.json": switchClaudeSettings,
		"home/.claude/plugins/installed_plugins.json": mustJSON(t, map[string]any{"version": 2, "plugins": map[string]any{
			switchPluginKey: []any{map[string]any{"scope": "user", "installPath": cache, "version": "2.0.0",
				"installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}}}),
		"home/.claude/plugins/known_marketplaces.json": mustJSON(t, map[string]any{"tools-market": map[string]any{
			"source":          map[string]string{"source": "github", "repo": "example/tools-market"},
			"installLocation": market, "lastUpdated": "2025-01-01T00:00:00.000Z"}}),
		"home/.claude/plugins/marketplaces/tools-market/.claude-plugin/marketplace.json": mustJSON(t, map[string]any{
			"name": "tools-market", "owner": map[string]string{"name": "Tools"},
			"plugins": []any{map[string]any{"name": "linter", "source": "./plugins/linter"}}}),
		"home/.claude/plugins/cache/tools-market/linter/2.0.0/.claude-plugin/plugin.json": `{"name": "linter", "version": "2.0.0"}`,
		"home/.claude/plugins/cache/tools-market/linter/2.0.0/skills/lint-fix/SKILL.md":   switchSkill("lint-fix"),
		"home/.claude/plugins/cache/tools-market/linter/2.0.0/skills/lint-check/SKILL.md": switchSkill("lint-check"),
		"home/.claude/skills/notes/SKILL.md":                                              switchSkill("notes"),
		"home/.codex/config.toml":                                                         switchCodexConfig,
		"home/.codex/skills/sheets/SKILL.md":                                              switchSkill("sheets"),
		"home/.agents/skills/shared/SKILL.md":                                             switchSkill("shared"),
		"home/.gemini/settings.json":                                                      switchGeminiSettings,
		"home/.gemini/skills/stars/SKILL.md":                                              switchSkill("stars"),
		"home/.cursor/skills/cursed/SKILL.md":                                             switchSkill("cursed"),
		"work/repo/.git/":                                                                 "",
		"work/repo/.claude/skills/release/SKILL.md":                                       switchSkill("release"),
	})
	return tr
}

// run runs ccski in the repository with the tree's home.
func (tr switchTree) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, tr.ws, tr.env(), args...)
}

func (tr switchTree) env() []string {
	return env(&machine.Machine{Home: tr.home}, map[string]string{"XDG_CONFIG_HOME": filepath.Join(tr.home, ".config")})
}

// listed returns the ids `ccski list --json` shows, and with all, the
// records' switches by id.
func (tr switchTree) listed(t *testing.T, all bool) (ids []string, off map[string][]string) {
	t.Helper()
	args := []string{"list", "--json", "--kind", "skill"}
	if all {
		args = append(args, "--all")
	}
	r := tr.run(t, args...)
	mustOK(t, r)
	var recs []struct {
		ID  string `json:"id"`
		Off []struct {
			Host, Mode, File, Scope string
		} `json:"off"`
	}
	decodeOnly(t, r, &recs)
	off = map[string][]string{}
	for _, rec := range recs {
		ids = append(ids, rec.ID)
		for _, s := range rec.Off {
			off[rec.ID] = append(off[rec.ID], s.Host+" "+s.Mode+" "+s.Scope)
		}
	}
	return ids, off
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return data
}

// toggleOut is the --json output of enable and disable.
type toggleOut struct {
	Results []struct {
		Skill, Host, Status, File, Scope, Setting, Mode, Note, Error string
	} `json:"results"`
	Files                               []struct{ Path, Diff string } `json:"files"`
	Changed, Unchanged, Skipped, Failed int
}

func (tr switchTree) toggle(t *testing.T, wantCode int, args ...string) toggleOut {
	t.Helper()
	r := tr.run(t, append(args, "--json")...)
	if r.code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var out toggleOut
	decodeOnly(t, r, &out)
	return out
}

// jsoncValue decodes a JSON file that may hold comments and trailing
// commas.
func jsoncValue(t *testing.T, data []byte) map[string]any {
	t.Helper()
	v, _, err := hostedit.JSON{Comments: true}.Get(data, nil)
	if err != nil {
		t.Fatalf("%v in\n%s", err, data)
	}
	return v.(map[string]any)
}

// TestSwitchEachHost: for each host, disable writes the host's own
// switch, discovery reads it back (hidden by default, shown with --all
// as off for that host), the rest of the file means what it meant, and
// enable gives the file back byte for byte.
func TestSwitchEachHost(t *testing.T) {
	tests := []struct {
		name    string
		skill   string // the name given
		id      string // its id
		agent   string
		file    string // relative to home (or "ws:" + relative to the repository)
		off     []string
		visible bool     // still listed by default (another host still reads it)
		want    []string // lines the switched file must hold
	}{
		{name: "Claude Code personal skill", skill: "notes", id: "claude:notes", file: ".claude/settings.json",
			off: []string{"claude off user"}, want: []string{`"skillOverrides": {`, `"notes": "off"`}},
		{name: "Claude Code project skill goes to settings.local.json", skill: "release", id: "claude:release",
			file: "ws:.claude/settings.local.json", off: []string{"claude off local"}, want: []string{`"release": "off"`}},
		{name: "Codex", skill: "sheets", id: "codex:sheets", file: ".codex/config.toml",
			off: []string{"codex off user"}, want: []string{"[[skills.config]]", `name = "sheets"`, "enabled = false"}},
		{name: "Gemini CLI", skill: "stars", id: "gemini:stars", file: ".gemini/settings.json",
			off: []string{"gemini off user"}, want: []string{`"disabled": ["stars"]`}},
		{name: "a shared skill off for Codex only stays listed", skill: "shared", id: "agents:shared", agent: "codex",
			file: ".codex/config.toml", off: []string{"codex off user"}, visible: true, want: []string{`name = "shared"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newSwitchTree(t)
			file := filepath.Join(tr.home, tt.file)
			if rel, ok := strings.CutPrefix(tt.file, "ws:"); ok {
				file = filepath.Join(tr.ws, rel)
			}
			before := readFile(t, file)
			args := []string{"disable", tt.skill}
			if tt.agent != "" {
				args = append(args, "--agent", tt.agent)
			}
			out := tr.toggle(t, 0, args...)
			if out.Changed != 1 || out.Results[0].File != file || out.Results[0].Status != "changed" {
				t.Fatalf("disable: %+v", out)
			}
			after := readFile(t, file)
			for _, w := range tt.want {
				if !bytes.Contains(after, []byte(w)) {
					t.Errorf("%s lacks %q:\n%s", tt.file, w, after)
				}
			}
			// The rest of the file is as it was.
			switch {
			case strings.HasSuffix(file, ".toml"):
				if !bytes.HasPrefix(after, before) {
					t.Errorf("config.toml changed before the new table:\n%s", after)
				}
			case len(before) > 0:
				b, a := jsoncValue(t, before), jsoncValue(t, after)
				delete(a, "skillOverrides")
				if s, ok := a["skills"].(map[string]any); ok {
					delete(s, "disabled")
					if len(s) == 0 {
						delete(a, "skills")
					}
				}
				if fmt.Sprint(a) != fmt.Sprint(b) {
					t.Errorf("other settings changed:\nbefore %v\nafter  %v", b, a)
				}
			}
			ids, _ := tr.listed(t, false)
			if slices.Contains(ids, tt.id) != tt.visible {
				t.Errorf("default list shows %s: %v, want %v (%v)", tt.id, !tt.visible, tt.visible, ids)
			}
			all, off := tr.listed(t, true)
			if !slices.Contains(all, tt.id) || !slices.Equal(off[tt.id], tt.off) {
				t.Errorf("--all: %s switches %v, want %v (listed %v)", tt.id, off[tt.id], tt.off, all)
			}
			// Disabling again changes nothing.
			if again := tr.toggle(t, 0, args...); again.Changed != 0 || again.Unchanged != 1 {
				t.Errorf("disable twice: %+v", again)
			}
			enable := append([]string{"enable"}, args[1:]...)
			if out := tr.toggle(t, 0, enable...); out.Changed != 1 {
				t.Fatalf("enable: %+v", out)
			}
			// A file ccski made is gone again (readFile gives nil).
			got := readFile(t, file)
			if !bytes.Equal(got, before) {
				t.Errorf("after enable %s is not as it was:\n%s\nwant\n%s", tt.file, got, before)
			}
			if ids, _ := tr.listed(t, false); !slices.Contains(ids, tt.id) {
				t.Errorf("after enable %s is not listed: %v", tt.id, ids)
			}
		})
	}
}

// TestSwitchModes: Claude Code's other modes are written and shown, but
// leave the skill listed; a host without them refuses.
func TestSwitchModes(t *testing.T) {
	tr := newSwitchTree(t)
	out := tr.toggle(t, 0, "disable", "notes", "--mode", "name-only")
	if out.Changed != 1 || !strings.Contains(out.Results[0].Setting, `"name-only"`) {
		t.Fatalf("%+v", out)
	}
	ids, off := tr.listed(t, false)
	if !slices.Contains(ids, "claude:notes") || !slices.Equal(off["claude:notes"], []string{"claude name-only user"}) {
		t.Errorf("name-only: listed %v, switches %v", ids, off)
	}
	out = tr.toggle(t, 1, "disable", "sheets", "--mode", "user-invocable-only")
	if out.Failed != 1 || !strings.Contains(out.Results[0].Error, "no user-invocable-only mode") {
		t.Errorf("Codex with a mode it lacks: %+v", out)
	}
	out = tr.toggle(t, 1, "disable", "sheets", "--scope", "project")
	if out.Failed != 1 || !strings.Contains(out.Results[0].Error, "no project scope") {
		t.Errorf("Codex at project scope: %+v", out)
	}
	if got := readFile(t, filepath.Join(tr.home, ".codex", "config.toml")); string(got) != switchCodexConfig {
		t.Errorf("a refused switch wrote config.toml:\n%s", got)
	}
}

// digest hashes every file below dir.
func digest(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fmt.Fprintf(h, "%s\n%s\n", p, readFile(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestSwitchPluginSkill: a plugin's skill is switched through
// enabledPlugins, which turns the whole plugin off, says so, and never
// touches the plugin cache; enable turns it back on from the disabled
// plugin's skill name.
func TestSwitchPluginSkill(t *testing.T) {
	tr := newSwitchTree(t)
	settings := filepath.Join(tr.home, ".claude", "settings.json")
	cache := filepath.Join(tr.home, ".claude", "plugins", "cache")
	cacheBefore := digest(t, cache)
	out := tr.toggle(t, 0, "disable", "linter:lint-fix")
	if out.Changed != 1 || !strings.Contains(out.Results[0].Note, "plugin "+switchPluginKey+" off") ||
		!strings.Contains(out.Results[0].Note, "lint-check") {
		t.Fatalf("disable: %+v", out)
	}
	if want := strings.Replace(switchClaudeSettings, `"linter@tools-market": true`, `"linter@tools-market": false`, 1); string(readFile(t, settings)) != want {
		t.Errorf("settings.json:\n%s\nwant\n%s", readFile(t, settings), want)
	}
	if ids, _ := tr.listed(t, false); slices.Contains(ids, switchPluginID) {
		t.Errorf("the disabled plugin's skill is still listed: %v", ids)
	}
	if digest(t, cache) != cacheBefore {
		t.Error("the plugin cache changed")
	}
	out = tr.toggle(t, 0, "enable", "lint-fix")
	if out.Changed != 1 || out.Results[0].Host != "claude" {
		t.Fatalf("enable: %+v", out)
	}
	if got := readFile(t, settings); string(got) != switchClaudeSettings {
		t.Errorf("after enable:\n%s", got)
	}
	if ids, _ := tr.listed(t, false); !slices.Contains(ids, switchPluginID) {
		t.Errorf("after enable the plugin's skill is not listed: %v", ids)
	}
	if digest(t, cache) != cacheBefore {
		t.Error("the plugin cache changed")
	}
}

// TestSwitchFallback: a skill no host with a switch reads is switched by
// renaming its SKILL.md, and the result says so.
func TestSwitchFallback(t *testing.T) {
	tr := newSwitchTree(t)
	dir := filepath.Join(tr.home, ".cursor", "skills", "cursed")
	out := tr.toggle(t, 0, "disable", "cursed")
	if out.Changed != 1 || out.Results[0].Setting != ".SKILL.md" || !strings.Contains(out.Results[0].Note, "no agent") {
		t.Fatalf("%+v", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".SKILL.md")); err != nil {
		t.Fatal(err)
	}
	tr.toggle(t, 0, "enable", "cursed")
	if got := readFile(t, filepath.Join(dir, "SKILL.md")); string(got) != switchSkill("cursed") {
		t.Errorf("SKILL.md after enable: %q", got)
	}
}

// TestSwitchDryRun: --dry-run prints the diff of each file and writes
// nothing. The files lie outside the folder ccski runs in, so the diff
// names them by their absolute paths (see TestDryRunDiffsAgree).
func TestSwitchDryRun(t *testing.T) {
	tr := newSwitchTree(t)
	r := tr.run(t, "disable", "notes", "sheets", "--dry-run")
	mustOK(t, r)
	for _, w := range []string{
		"--- a" + filepath.ToSlash(filepath.Join(tr.home, ".claude", "settings.json")),
		`+    "notes": "off"`,
		"+[[skills.config]]",
		"dry run: nothing was written",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("dry run output lacks %q:\n%s", w, r.stdout)
		}
	}
	if got := readFile(t, filepath.Join(tr.home, ".claude", "settings.json")); string(got) != switchClaudeSettings {
		t.Error("dry run wrote settings.json")
	}
	if got := readFile(t, filepath.Join(tr.home, ".codex", "config.toml")); string(got) != switchCodexConfig {
		t.Error("dry run wrote config.toml")
	}
}

// TestSwitchMalformedFile: a settings file that does not parse is left
// alone, and the error names the file and the line.
func TestSwitchMalformedFile(t *testing.T) {
	tests := []struct {
		name, file, content, skill, where string
	}{
		{"settings.json", ".claude/settings.json", "{\n  \"model\": \"opus\"\n  \"env\": {}\n}\n", "notes", "settings.json:3:"},
		{"config.toml", ".codex/config.toml", "model = \"o3\"\n[features\nplugins = true\n", "sheets", "config.toml:2:"},
		{"Gemini settings.json", ".gemini/settings.json", "{\n  // c\n  \"ui\": {\"a\" 1}\n}\n", "stars", "settings.json:3:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newSwitchTree(t)
			path := filepath.Join(tr.home, tt.file)
			putFile(t, path, []byte(tt.content))
			r := tr.run(t, "disable", tt.skill)
			if r.code != 1 || !strings.Contains(r.stdout, path) || !strings.Contains(r.stdout, tt.where) {
				t.Errorf("want exit 1 naming %s and %s\n%s", path, tt.where, r)
			}
			if got := readFile(t, path); string(got) != tt.content {
				t.Errorf("the malformed file was changed:\n%s", got)
			}
		})
	}
}

// TestSwitchKilledMidWrite kills `ccski disable` while it rewrites a
// large settings file, at several moments: the file is then the old one
// or the new one, never a mix or a truncated file.
func TestSwitchKilledMidWrite(t *testing.T) {
	tr := newSwitchTree(t)
	settings := filepath.Join(tr.home, ".claude", "settings.json")
	// About 6 MiB of unrelated settings, so that writing takes a while.
	big := `{"enabledPlugins": {"linter@tools-market": true}, "padding": "` + strings.Repeat("x", 6<<20) + `"}` + "\n"
	for i := range 6 {
		putFile(t, settings, []byte(big))
		cmd := exec.Command(binary, "disable", "notes")
		cmd.Dir, cmd.Env = tr.ws, tr.env()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(i*15) * time.Millisecond)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		got := readFile(t, settings)
		var v map[string]any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Fatalf("kill %d: settings.json is broken (%d bytes): %v", i, len(got), err)
		}
		if string(got) != big && !bytes.Contains(got, []byte(`"notes": "off"`)) {
			t.Fatalf("kill %d: settings.json is neither the old nor the new file", i)
		}
	}
	// A later write that runs to the end removes the temporary files the
	// killed ones left beside settings.json (and one planted for certain).
	dir := filepath.Dir(settings)
	putFile(t, filepath.Join(dir, ".settings.json.ccski-planted"), []byte("{"))
	putFile(t, settings, []byte(big))
	mustOK(t, tr.run(t, "disable", "notes"))
	if left, _ := filepath.Glob(filepath.Join(dir, ".settings.json.ccski-*")); len(left) != 0 {
		t.Errorf("temporary files left after a later write: %v", left)
	}
}

// TestSwitchClaudePrecedence: Claude Code reads the user's settings, then
// the project's, then the local ones, and a later file's value wins;
// discovery reads the switches that way, enable --scope writes "on" where
// an earlier file switches the skill off, and a switch a later file
// overrides is refused, naming that file.
func TestSwitchClaudePrecedence(t *testing.T) {
	userOff := strings.Replace(switchClaudeSettings, "\"enabledPlugins\": {",
		"\"skillOverrides\": {\"notes\": \"off\"},\n  \"enabledPlugins\": {", 1)
	t.Run("user off, local on: on", func(t *testing.T) {
		tr := newSwitchTree(t)
		putFile(t, filepath.Join(tr.home, ".claude", "settings.json"), []byte(userOff))
		putFile(t, filepath.Join(tr.ws, ".claude", "settings.local.json"), []byte(`{"skillOverrides": {"notes": "on"}}`))
		if ids, off := tr.listed(t, false); !slices.Contains(ids, "claude:notes") || len(off["claude:notes"]) != 0 {
			t.Errorf("listed %v, switches %v: want claude:notes on", ids, off["claude:notes"])
		}
	})
	t.Run("enable at local scope writes on", func(t *testing.T) {
		tr := newSwitchTree(t)
		user := filepath.Join(tr.home, ".claude", "settings.json")
		putFile(t, user, []byte(userOff))
		out := tr.toggle(t, 0, "enable", "notes", "--scope", "local")
		local := filepath.Join(tr.ws, ".claude", "settings.local.json")
		if out.Changed != 1 || out.Results[0].File != local || !strings.Contains(out.Results[0].Setting, `"on"`) {
			t.Fatalf("%+v", out)
		}
		if got := string(readFile(t, local)); got != "{\n  \"skillOverrides\": {\n    \"notes\": \"on\"\n  }\n}\n" {
			t.Errorf("settings.local.json:\n%s", got)
		}
		if string(readFile(t, user)) != userOff {
			t.Error("the user's settings changed")
		}
		if ids, _ := tr.listed(t, false); !slices.Contains(ids, "claude:notes") {
			t.Errorf("claude:notes is not listed: %v", ids)
		}
	})
	t.Run("disable refused when a later file overrides", func(t *testing.T) {
		tr := newSwitchTree(t)
		local := filepath.Join(tr.ws, ".claude", "settings.local.json")
		putFile(t, local, []byte(`{"skillOverrides": {"notes": "on"}}`))
		out := tr.toggle(t, 1, "disable", "notes", "--scope", "user")
		if out.Failed != 1 || !strings.Contains(out.Results[0].Error, local) || !strings.Contains(out.Results[0].Error, "--scope local") {
			t.Fatalf("%+v", out)
		}
		if got := readFile(t, filepath.Join(tr.home, ".claude", "settings.json")); string(got) != switchClaudeSettings {
			t.Errorf("the refused switch wrote settings.json:\n%s", got)
		}
	})
}

// TestSwitchCodexPluginSkill: a Codex plugin's skill is switched through
// [plugins."p@m"] enabled, in place next to the dotted key that defines
// the plugin's table (a [plugins."p@m"] header there would make a file
// Codex refuses), never by touching the plugin cache; enabling by the
// skill's name gives the file back byte for byte.
func TestSwitchCodexPluginSkill(t *testing.T) {
	tr := newSwitchTree(t)
	cache := filepath.Join(tr.home, ".codex", "plugins", "cache")
	testfs.Write(t, cache, map[string]string{
		"cmk/tidy/1.0.0/.codex-plugin/plugin.json":  `{"name": "tidy", "version": "1.0.0", "skills": "./skills/"}`,
		"cmk/tidy/1.0.0/skills/tidy-up/SKILL.md":    switchSkill("tidy-up"),
		"cmk/tidy/1.0.0/skills/tidy-check/SKILL.md": switchSkill("tidy-check"),
	})
	config := filepath.Join(tr.home, ".codex", "config.toml")
	mine := switchCodexConfig + "\n[plugins]\n\"tidy@cmk\".enabled = true # from the picker\n"
	putFile(t, config, []byte(mine))
	const id = "codex:@tidy:tidy-up"
	if ids, _ := tr.listed(t, false); !slices.Contains(ids, id) {
		t.Fatalf("%s is not listed: %v", id, ids)
	}
	cacheBefore := digest(t, cache)
	out := tr.toggle(t, 0, "disable", id)
	if out.Changed != 1 || out.Results[0].Host != "codex" || !strings.Contains(out.Results[0].Note, "tidy:tidy-check") {
		t.Fatalf("disable: %+v", out)
	}
	if got, want := string(readFile(t, config)), strings.Replace(mine, "enabled = true # from", "enabled = false # from", 1); got != want {
		t.Errorf("config.toml:\n%s\nwant\n%s", got, want)
	}
	if ids, _ := tr.listed(t, false); slices.Contains(ids, id) {
		t.Errorf("the disabled plugin's skill is still listed: %v", ids)
	}
	out = tr.toggle(t, 0, "enable", "tidy-up")
	if out.Changed != 1 || out.Results[0].Host != "codex" {
		t.Fatalf("enable: %+v", out)
	}
	if got := string(readFile(t, config)); got != mine {
		t.Errorf("after enable:\n%s", got)
	}
	if ids, _ := tr.listed(t, false); !slices.Contains(ids, id) {
		t.Errorf("after enable %s is not listed: %v", id, ids)
	}
	if digest(t, cache) != cacheBefore {
		t.Error("the plugin cache changed")
	}
}

// TestProfilesRoundTrip: a profile saved, then changed away from, is
// applied back: use prints what it changes, and a second use changes
// nothing.
func TestProfilesRoundTrip(t *testing.T) {
	tr := newSwitchTree(t)
	tr.toggle(t, 0, "disable", "sheets")
	mustOK(t, tr.run(t, "profile", "save", "focus"))
	_, offBefore := tr.listed(t, true)

	tr.toggle(t, 0, "enable", "sheets")
	tr.toggle(t, 0, "disable", "notes", "stars", "lint-fix")
	r := tr.run(t, "profile", "use", "focus")
	mustOK(t, r)
	for _, w := range []string{"codex:sheets", "claude:notes", "gemini:stars", switchPluginKey} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("profile use does not say it changes %s:\n%s", w, r.stdout)
		}
	}
	if _, offAfter := tr.listed(t, true); fmt.Sprint(offAfter) != fmt.Sprint(offBefore) {
		t.Errorf("after use: switches %v, want %v", offAfter, offBefore)
	}
	if ids, _ := tr.listed(t, false); !slices.Contains(ids, switchPluginID) {
		t.Errorf("the plugin is not back on: %v", ids)
	}
	again := tr.run(t, "profile", "use", "focus", "--json")
	mustOK(t, again)
	var out toggleOut
	decodeOnly(t, again, &out)
	if out.Changed != 0 || len(out.Files) != 0 {
		t.Errorf("second use changed something: %+v", out)
	}
	list := tr.run(t, "profile", "list")
	if mustOK(t, list); !strings.Contains(list.stdout, "focus") {
		t.Errorf("profile list:\n%s", list.stdout)
	}
	if r := tr.run(t, "profile", "use", "nope"); r.code != 1 || !strings.Contains(r.stderr, "saved profiles: focus") {
		t.Errorf("unknown profile:\n%s", r)
	}
}

// TestMCPAgentHonoursSwitches: `ccski mcp --agent claude` does not serve
// a skill Claude Code's settings turn off; with --agent codex it does.
func TestMCPAgentHonoursSwitches(t *testing.T) {
	tr := newSwitchTree(t)
	tr.toggle(t, 0, "disable", "shared", "--agent", "gemini")
	tr.toggle(t, 0, "disable", "notes")
	for _, tc := range []struct {
		agent         string
		notes, shared bool
	}{{"claude", false, true}, {"gemini", true, false}, {"codex", true, true}} {
		t.Run(tc.agent, func(t *testing.T) {
			ctx := mcpContext(t)
			stderr := &lockedBuffer{}
			cmd := exec.Command(binary, "mcp", "--agent", tc.agent, "--no-refresh")
			cmd.Dir, cmd.Env, cmd.Stderr = tr.ws, tr.env(), stderr
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil).Connect(ctx,
				&sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, stderr)
			}
			defer cs.Close()
			es := mustSkills(t, ctx, cs, stderr)
			if _, ok := findEntry(es, "claude:notes"); ok != tc.notes {
				t.Errorf("claude:notes served: %v, want %v (%v)", ok, tc.notes, entryIDs(es))
			}
			if _, ok := findEntry(es, "agents:shared"); ok != tc.shared {
				t.Errorf("agents:shared served: %v, want %v (%v)", ok, tc.shared, entryIDs(es))
			}
			if !tc.notes {
				if msg := loadError(t, ctx, cs, "claude:notes"); !strings.Contains(msg, "off in Claude Code") {
					t.Errorf("loading claude:notes: %q, want it to say it is off in Claude Code", msg)
				}
			}
		})
	}
}

// TestInstallWorkflow: the block goes into each agent's instructions
// file, keeps the rest of it, is replaced in place when it changed, and a
// second run changes nothing.
func TestInstallWorkflow(t *testing.T) {
	tr := newSwitchTree(t)
	claudeMD := filepath.Join(tr.home, ".claude", "CLAUDE.md")
	mine := "# My rules\r\n\r\nBe brief.\r\n"
	putFile(t, claudeMD, []byte(mine))
	agentsMD := filepath.Join(tr.ws, "AGENTS.md")
	stale := "# Repo\n\n<workflow name='ccski'>\nold text\n</workflow>\n\n## More\n"
	putFile(t, agentsMD, []byte(stale))

	r := tr.run(t, "install-workflow", "--json")
	mustOK(t, r)
	var out struct {
		Results []struct{ Agent, Path, Status string }
	}
	decodeOnly(t, r, &out)
	if len(out.Results) != 3 || out.Results[0].Status != "installed" || out.Results[0].Path != claudeMD {
		t.Fatalf("%+v", out)
	}
	got := string(readFile(t, claudeMD))
	if !strings.HasPrefix(got, mine+"\r\n<workflow name=\"ccski\">\r\n") || !strings.HasSuffix(got, "</workflow>\r\n") {
		t.Errorf("CLAUDE.md:\n%q", got)
	}
	// Each agent's block shows ccski in that agent's view.
	for p, agent := range map[string]string{claudeMD: "claude", filepath.Join(tr.home, ".codex", "AGENTS.md"): "codex",
		filepath.Join(tr.home, ".gemini", "GEMINI.md"): "gemini"} {
		if !strings.Contains(string(readFile(t, p)), "`ccski list --agent "+agent+"`") {
			t.Errorf("%s lacks the block for %s:\n%s", p, agent, readFile(t, p))
		}
	}
	// What the block says is true: a skill turned off for Codex only is
	// listed, but not with --agent codex.
	tr.toggle(t, 0, "disable", "shared", "--agent", "codex")
	for agent, want := range map[string]bool{"": true, "codex": false, "gemini": true} {
		args := []string{"list", "--json", "--kind", "skill"}
		if agent != "" {
			args = append(args, "--agent", agent)
		}
		r := tr.run(t, args...)
		mustOK(t, r)
		if got := strings.Contains(r.stdout, `"agents:shared"`); got != want {
			t.Errorf("list --agent %q shows agents:shared: %v, want %v", agent, got, want)
		}
	}
	again := tr.run(t, "install-workflow", "--json")
	decodeOnly(t, again, &out)
	for _, res := range out.Results {
		if res.Status != "unchanged" {
			t.Errorf("second run: %+v", res)
		}
	}

	r = tr.run(t, "install-workflow", "--scope", "project", "--agent", "codex")
	mustOK(t, r)
	got = string(readFile(t, agentsMD))
	if strings.Contains(got, "old text") || !strings.HasPrefix(got, "# Repo\n\n<workflow name=\"ccski\">\n") ||
		!strings.HasSuffix(got, "</workflow>\n\n## More\n") {
		t.Errorf("project AGENTS.md:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "CLAUDE.md")); err == nil {
		t.Error("--agent codex wrote CLAUDE.md")
	}

	// A ccski block that another workflow opens inside of is refused:
	// replacing it up to the next </workflow> would delete the user's
	// text.
	draft := "# Repo\n<workflow name=\"ccski\">\n(draft)\n## Deploy\n<workflow name=\"deploy\">run make deploy</workflow>\n## Keep me\n"
	putFile(t, agentsMD, []byte(draft))
	r = tr.run(t, "install-workflow", "--scope", "project", "--agent", "codex")
	if r.code != 1 || !strings.Contains(r.stdout, "not closed before the <workflow> at line 5") {
		t.Errorf("want exit 1 naming the lines\n%s", r)
	}
	if got := string(readFile(t, agentsMD)); got != draft {
		t.Errorf("the refused file changed:\n%s", got)
	}
}

// TestProfileFallbackState: a profile records which skills are hidden by
// .SKILL.md; use leaves a skill the profile has as .SKILL.md so while it
// turns its host switch back on, and renames back one the profile has as
// SKILL.md.
func TestProfileFallbackState(t *testing.T) {
	tr := newSwitchTree(t)
	notes := filepath.Join(tr.home, ".claude", "skills", "notes")
	if err := os.Rename(filepath.Join(notes, "SKILL.md"), filepath.Join(notes, ".SKILL.md")); err != nil {
		t.Fatal(err)
	}
	mustOK(t, tr.run(t, "profile", "save", "hidden-notes"))

	tr.toggle(t, 0, "disable", "notes")  // Claude Code's switch
	tr.toggle(t, 0, "disable", "cursed") // no host: renamed .SKILL.md
	r := tr.run(t, "profile", "use", "hidden-notes", "--json")
	mustOK(t, r)
	if _, err := os.Stat(filepath.Join(notes, ".SKILL.md")); err != nil {
		t.Errorf("profile use renamed notes' .SKILL.md back: %v", err)
	}
	cursed := filepath.Join(tr.home, ".cursor", "skills", "cursed")
	if _, err := os.Stat(filepath.Join(cursed, "SKILL.md")); err != nil {
		t.Errorf("profile use left cursed hidden: %v", err)
	}
	if got := readFile(t, filepath.Join(tr.home, ".claude", "settings.json")); string(got) != switchClaudeSettings {
		t.Errorf("Claude Code's switch for notes is not back on:\n%s", got)
	}
}
