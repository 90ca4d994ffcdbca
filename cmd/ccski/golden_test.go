package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// machineSrc is the synthetic machine shared with package integration.
const machineSrc = "../../integration/testdata/machine"

func TestMain(m *testing.M) {
	// info prints modification times in local time.
	time.Local = time.UTC
	os.Exit(m.Run())
}

// setupMachine copies the synthetic machine into a temporary folder, makes
// the process look like a fresh shell in its workspace and returns it.
func setupMachine(t *testing.T) *machine.Machine {
	t.Helper()
	src, err := filepath.Abs(machineSrc)
	if err != nil {
		t.Fatal(err)
	}
	m, err := machine.Copy(src, filepath.Join(t.TempDir(), "machine"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "CCSKI_") {
			t.Setenv(name, "") // restored after the test
			os.Unsetenv(name)
		}
	}
	t.Setenv("HOME", m.Home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	t.Setenv("COLUMNS", "80")
	t.Setenv("NO_COLOR", "1")
	t.Chdir(m.Workspace)
	return m
}

// goldenCase is one run of the CLI. Arguments may use $MACHINE, $HOME
// and $STD (the user folder and the --skill-dir of the machine).
type goldenCase struct {
	name string
	args string
	env  map[string]string
	code int
	json bool // stdout is JSON: golden file <name>.json
	// files are written into the machine copy before the run: slash paths
	// relative to its root, with machine.BaseTime as modification time.
	files map[string]string
}

// hostileConfig is a project ccski.yaml that would switch off the user's
// scan and put the server on the network, under a user config asking for
// block: ccski config shows its values as ignored, with the reasons.
var hostileConfig = map[string]string{
	"home/.config/ccski/config.yaml": "mcp: {scan: block, require_trusted: true}\n",
	"work/repo/ccski.yaml": "skill_dirs: [tools/skills, ../../extra]\nexclude: [x]\n" +
		"mcp: {scan: \"off\", require_trusted: false, transport: http, host: 0.0.0.0, max_sessions: 10}\n",
}

// commandFiles add slash commands to the machine: a workspace command that
// shadows a user copy, a nested one without frontmatter, a Codex prompt
// (whose sub-folder is not read) and a malformed one.
var commandFiles = map[string]string{
	"work/repo/.claude/commands/deploy.md":          "---\ndescription: Deploy the service to an environment.\nargument-hint: <env> [--dry-run]\n---\nDeploy to $1.\n",
	"home/.claude/commands/deploy.md":               "---\ndescription: Deploy (user copy).\n---\nDeploy $ARGUMENTS.\n",
	"work/repo/.claude/commands/frontend/review.md": "# Review the frontend\n\nReview $ARGUMENTS.\n",
	"home/.claude/commands/broken.md":               "---\ndescription: \"never closed\n---\nBody.\n",
	"home/.codex/prompts/sp.specify.md":             "---\ndescription: Write a feature specification.\n---\nSpecify: $ARGUMENTS\n",
	"home/.codex/prompts/drafts/ignored.md":         "Codex reads only top-level prompts.\n",
}

// lockFiles are a project lock naming pdf and pptx and a user lock
// naming xlsx, for completing remove and update.
var lockFiles = map[string]string{
	"work/repo/ccski.lock": `{"version": 1, "skills": [` +
		`{"name": "pdf", "source": {"kind": "git", "url": "https://github.com/anthropics/skills.git"}, "path": "pdf", "targets": [{"agent": "agents", "dir": ".agents/skills"}]},` +
		`{"name": "pptx", "source": {"kind": "git", "url": "https://github.com/anthropics/skills.git", "ref": "v2"}, "path": "pptx", "targets": [{"agent": "agents", "dir": ".agents/skills"}]}]}`,
	"home/.config/ccski/ccski.lock": `{"version": 1, "skills": [` +
		`{"name": "xlsx", "source": {"kind": "git", "url": "https://example.com/team/skills.git"}, "path": "xlsx", "targets": [{"agent": "agents", "dir": ".agents/skills"}]}]}`,
}

// profileFiles are two saved profiles, for completing profile use.
var profileFiles = map[string]string{
	"home/.config/ccski/profiles/focus.json":  `{"name": "focus", "saved": "2026-01-02T03:04:05Z", "hosts": {}}`,
	"home/.config/ccski/profiles/review.json": `{"name": "review", "saved": "2026-01-03T03:04:05Z", "hosts": {}}`,
}

// doctorFiles lay out what a host leaves out: a skill nested in
// .claude/skills (Claude Code skips it, Codex would not), a plugin whose
// manifest Claude Code refuses (an agent path without .md), a plugin the
// settings enable that nobody installed, and a skill Codex lists only when
// named (agents/openai.yaml).
var doctorFiles = map[string]string{
	"work/repo/.claude/skills/group/nested-guide/SKILL.md":                             "---\nname: nested-guide\ndescription: A guide nested in a group folder.\n---\nBody.\n",
	"home/.claude/plugins/cache/tool-market/lint-kit/1.2.0/.claude-plugin/plugin.json": `{"name": "lint-kit", "version": "1.2.0", "skills": ["./extra/lint-fix"], "agents": ["./agents/linter"]}`,
	"home/.claude/settings.json": `{"enabledPlugins": {"design-tools@demo-market": true, "doc-tools@demo-market": true, ` +
		`"legacy-tools@demo-market": true, "lint-kit@tool-market": true, "ghost@tool-market": true}}`,
	"work/repo/.agents/skills/release/SKILL.md":           "---\nname: release\ndescription: Cut a release.\n---\nBody.\n",
	"work/repo/.agents/skills/release/agents/openai.yaml": "policy:\n  allow_implicit_invocation: false\n",
}

// doctorEnv keeps the machine's own PATH out of host detection.
var doctorEnv = map[string]string{"PATH": "/nonexistent"}

var goldenCases = []goldenCase{
	// list
	{name: "list", args: "list $STD"},
	{name: "list_all", args: "list --all $STD"},
	{name: "list_disabled", args: "list --disabled $STD"},
	{name: "list_include_codex", args: "list --include=codex $STD"},
	{name: "list_exclude_name", args: "list --exclude=shared-notes $STD"},
	{name: "list_include_plugins", args: "list --include=@plugins $STD"},
	{name: "list_include_plugins_v1", args: "list --include=@plugins --claude-plugins-file=$MACHINE/home/.claude/plugins/installed_plugins_v1.json $STD"},
	{name: "list_no_plugins", args: "list --no-plugins $STD"},
	{name: "list_all_priority_env", args: "list --all --include=all:pdf $STD",
		env: map[string]string{"CCSKI_PRIORITY": "plugin"}},
	{name: "list_json", args: "list --json $STD", json: true},
	{name: "list_commands", args: "list $STD", files: commandFiles},
	{name: "list_kind_command", args: "list --kind command $STD", files: commandFiles},
	{name: "list_kind_command_json", args: "list --kind=command --json $STD", files: commandFiles, json: true},
	{name: "list_kind_command_none", args: "list --kind command $STD"},
	{name: "list_disabled_commands", args: "list --disabled $STD", files: commandFiles},

	// info
	{name: "info", args: "info commit-helper $STD"},
	{name: "info_full", args: "info commit-helper --full $STD"},
	{name: "info_json", args: "info use-when --json $STD", json: true},
	{name: "info_plugin_json", args: "info doc-tools:xlsx --json $STD", json: true},
	{name: "info_hidden", args: "info codex:pdf $STD"},
	{name: "info_hidden_disabled", args: "info old-helper $STD"},
	{name: "info_hidden_same_folder", args: "info agents@project:team-notes#2 --all $STD"},
	{name: "info_hidden_by_id", args: "info claude:xlsx --include=@plugins $STD"},
	{name: "info_not_found", args: "info pdff $STD", code: 1},
	{name: "info_not_found_json", args: "info pdff --json $STD", code: 1, json: true},
	{name: "info_ambiguous", args: "info pdf --all $STD", code: 1},
	{name: "info_ambiguous_json", args: "info pdf --all --json $STD", code: 1, json: true},

	// search
	{name: "search", args: "search notes $STD"},
	{name: "search_json", args: "search review --json $STD", json: true},
	{name: "search_content", args: "search staged diff --content $STD"},
	{name: "search_content_json", args: "search staged diff --content --json $STD", json: true},
	{name: "search_none", args: "search zzzz $STD"},

	// sources
	{name: "sources", args: "sources $STD"},
	{name: "sources_json", args: "sources --json $STD", json: true},
	{name: "sources_kind_command", args: "sources --kind command $STD", files: commandFiles},

	// config
	{name: "config", args: "config --port 4000 --user-dir $HOME",
		env: map[string]string{"CCSKI_LIMITS__MAX_DEPTH": "4"}},
	{name: "config_json", args: "config --json --port 4000 --user-dir $HOME",
		env: map[string]string{"CCSKI_LIMITS__MAX_DEPTH": "4"}, json: true},
	{name: "config_secret", args: "config --user-dir $HOME", env: map[string]string{"CCSKI_AUTH_TOKEN": "s3cret-token"}},
	{name: "config_secret_json", args: "config --json --auth-token s3cret-token --user-dir $HOME", json: true},
	{name: "config_ignored", args: "config --user-dir $HOME", files: hostileConfig},
	{name: "config_ignored_json", args: "config --json --user-dir $HOME", files: hostileConfig, json: true},

	// shell completion (cobra's hidden command)
	{name: "complete_info", args: "__complete info $STD claude:c"},
	{name: "complete_include", args: "__complete list $STD --include codex,@plugins:"},
	{name: "complete_info_name", args: "__complete info $STD LINT"},
	{name: "complete_include_name", args: "__complete list $STD --include codex,lint"},
	{name: "complete_format", args: "__complete validate --format s"},
	{name: "complete_disable", args: "__complete disable $STD c"},
	{name: "complete_disable_second", args: "__complete disable $STD commit-helper c"},
	{name: "complete_enable", args: "__complete enable $STD $EMPTY"},
	{name: "complete_trust", args: "__complete trust $STD $EMPTY"},
	{name: "complete_remove", args: "__complete remove $EMPTY", files: lockFiles},
	{name: "complete_update", args: "__complete update pdf@v2 $EMPTY", files: lockFiles},
	{name: "complete_profile_use", args: "__complete profile use $EMPTY", files: profileFiles},
	{name: "complete_install_scope", args: "__complete install src --scope $EMPTY"},
	{name: "complete_install_agent", args: "__complete install src --agent $EMPTY"},
	{name: "complete_new_agent", args: "__complete new x --agent c"},
	{name: "complete_enable_scope", args: "__complete enable x --scope $EMPTY"},

	// ui: its help (running it serves until stopped: see integration's TestUI)
	{name: "ui_help", args: "ui --help"},

	// usage errors
	{name: "usage_unknown_flag", args: "list --bogus", code: 2},
	{name: "usage_unknown_flag_json", args: "list --bogus --json", code: 2, json: true},
	// doctor
	{name: "doctor", args: "doctor", code: 1, files: doctorFiles, env: doctorEnv},
	{name: "doctor_json", args: "doctor --json", code: 1, files: doctorFiles, env: doctorEnv, json: true},
	{name: "doctor_agent", args: "doctor --agent cursor", code: 1, env: doctorEnv},

	{name: "usage_bad_include", args: "list --include=codex,@ $STD", code: 2},
	{name: "usage_bad_include_json", args: "list --json --include=codex,@ $STD", code: 2, json: true},
	{name: "usage_config_typo", args: "list --config $MACHINE/configs/typo.yaml $STD", code: 2},
	{name: "usage_missing_arg", args: "info", code: 2},
	{name: "usage_bad_kind", args: "list --kind skills $STD", code: 2},
	{name: "usage_bad_kind_json", args: "sources --kind agent --json $STD", code: 2, json: true},
	{name: "usage_unknown_filter", args: "list --include=codx $STD", code: 2},
	{name: "usage_unknown_filter_json", args: "list --json --exclude=claude,codx:pdf $STD", code: 2, json: true},
	{name: "usage_missing_workspace", args: "list --workspace $MACHINE/nope $STD", code: 2},
}

// expandArgs splits a case's argument string on spaces and expands the
// placeholders ($EMPTY is an empty argument).
func expandArgs(m *machine.Machine, s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		if f == "$EMPTY" { // the word being completed, not yet typed
			out = append(out, "")
			continue
		}
		if f == "$STD" {
			out = append(out, "--user-dir", m.Home, "--skill-dir", m.SkillDirFlag())
			continue
		}
		f = strings.ReplaceAll(f, "$MACHINE", m.Root)
		f = strings.ReplaceAll(f, "$HOME", m.Home)
		out = append(out, f)
	}
	return out
}

func TestGolden(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "golden")) // before the subtests move to the workspace
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			m := setupMachine(t)
			for rel, content := range tc.files {
				p := filepath.Join(m.Root, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, machine.BaseTime, machine.BaseTime); err != nil {
					t.Fatal(err)
				}
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var stdout, stderr bytes.Buffer
			code := run(expandArgs(m, tc.args), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			out, errOut := m.Replace(stdout.String()), m.Replace(stderr.String())
			if tc.json && !json.Valid([]byte(out)) {
				t.Errorf("stdout is not one JSON value:\n%s", out)
			}
			if strings.Contains(out+errOut, "\x1b[") {
				t.Errorf("output holds ANSI escapes with NO_COLOR set")
			}
			ext := ".txt"
			if tc.json {
				ext = ".json"
			}
			compareGolden(t, filepath.Join(dir, tc.name+ext), out)
			compareGolden(t, filepath.Join(dir, tc.name+".stderr.txt"), errOut)
		})
	}
}

// compareGolden compares got with the golden file, or rewrites it with
// -update. An empty got matches a missing file, and -update removes the
// file then.
func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if got == "" {
			if err := os.Remove(file); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got); rerun with -update after checking the change:\n%s", file, diff)
	}
}

// TestWriteJSONArrayMatchesEncoder checks that streaming an array writes
// exactly what encoding it whole writes, empty and escaped cases included.
func TestWriteJSONArrayMatchesEncoder(t *testing.T) {
	type item struct {
		A string `json:"a"`
		B []int  `json:"b,omitempty"`
	}
	var many []item // several chunks, the last one short
	for i := range 1000 {
		many = append(many, item{A: fmt.Sprintf("skill-%d <%c>", i, rune('a'+i%26)), B: make([]int, i%3)})
	}
	for _, items := range [][]item{nil, {}, {{A: "x"}}, {{A: "<&>"}, {A: "文档", B: []int{1, 2}}, {A: "\"q\"\n"}}, many[:256], many[:257], many} {
		var want, got bytes.Buffer
		a := &app{stdout: &want}
		if err := a.writeJSON(items); err != nil {
			t.Fatal(err)
		}
		if items == nil { // writeJSON prints null; lists always print []
			want.Reset()
			want.WriteString("[]\n")
		}
		if err := writeJSONArray(&got, items); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%d items:\nstreamed %q\nwhole    %q", len(items), got.String(), want.String())
		}
	}

	// An element that cannot be encoded, in a later chunk, fails the
	// whole list.
	bad := make([]any, 600)
	for i := range bad {
		bad[i] = i
	}
	bad[550] = math.NaN()
	if err := writeJSONArray(io.Discard, bad); err == nil {
		t.Error("a NaN in the third chunk was written without an error")
	}
}
