package validate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
)

// hostCases are skills whose fate in the real hosts was seen with
// Claude Code 2.1.332 (the skill listing of its system prompt, captured
// through a local stand-in for its API) and Codex 0.171.0 (codex debug
// prompt-input): loads says, per profile, whether the host listed the
// skill. The first three are the shapes install refused for Claude Code
// (issue 22): wshobson's version key, Anthropic's 1,068-character
// claude-api description, ComposioHQ's requires: key and leading hyphen.
var hostCases = []struct {
	name, folder, text string
	loads              map[Profile]bool
}{
	{"version key", "version-key", "---\nname: version-key\ndescription: Reviews code.\nversion: 1.0.0\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"1,068-character description", "claude-api", "---\nname: claude-api\ndescription: " +
		strings.Repeat("Build apps with the Claude API. ", 40)[:1068] + "\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"ComposioHQ shape", "-21risk-automation", "---\nname: -21risk-automation\ndescription: \"Automate 21Risk " +
		"tasks via Rube MCP (Composio).\"\nrequires:\n  mcp: [rube]\n---\n# Body\n\n---\n*Powered by Composio*\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"name over 64", strings.Repeat("n", 65), "---\nname: " + strings.Repeat("n", 65) + "\ndescription: Long name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"no description", "no-desc", "---\nname: no-desc\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"empty description", "desc-empty", "---\nname: desc-empty\ndescription: \"\"\n---\n# Body\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"no name", "name-missing", "---\ndescription: No name here.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"empty name", "name-empty", "---\nname: \"\"\ndescription: Empty name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"typed name", "typed-name", "---\nname: 123\ndescription: Typed name.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"unquoted colon", "colon", "---\nname: colon\ndescription: has: colon inside\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
	{"byte order mark", "bom", "\ufeff---\nname: bom\ndescription: Has a BOM.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"leading blank line", "leading-blank", "\n---\nname: leading-blank\ndescription: Blank first.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: false}},
	{"uppercase name", "Upper-Name", "---\nname: Upper-Name\ndescription: Upper case.\n---\n",
		map[Profile]bool{ProfileClaude: true, ProfileCodex: true}},
}

// TestProfilesMatchRealHosts checks each host's profile against what the
// real host did with the same skill: an error exactly where the host did
// not load it.
func TestProfilesMatchRealHosts(t *testing.T) {
	for _, c := range hostCases {
		dir := filepath.Join(t.TempDir(), c.folder)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, pipeline.SkillFile)
		if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		for p, loads := range c.loads {
			rep, _ := Run(context.Background(), []Target{{File: file}}, nil, Options{Profile: p})
			var errs []string
			for _, f := range rep.Findings {
				if f.Severity == report.SeverityError {
					errs = append(errs, f.Code)
				}
			}
			if loads && len(errs) > 0 {
				t.Errorf("%s: the real %s host loads it, but profile %s reports errors %v", c.name, p, p, errs)
			}
			if !loads && len(errs) == 0 {
				t.Errorf("%s: the real %s host does not load it, but profile %s reports no error", c.name, p, p)
			}
		}
	}
}

// TestRecordRules checks which hosts' profiles judge a record: the hosts
// that read its root, only those ccski has a profile of when another
// reads it too; the host a plugin's label names; nothing for a folder no
// such host reads.
func TestRecordRules(t *testing.T) {
	for _, tt := range []struct {
		name string
		r    pipeline.Record
		want []HostRules
	}{
		{"Claude Code's folder", pipeline.Record{Agent: "claude", Hosts: []string{"claude"}},
			[]HostRules{{"claude", ProfileClaude}}},
		{"the shared folder", pipeline.Record{Agent: "agents", Hosts: []string{"codex", "gemini"}},
			[]HostRules{{"codex", ProfileCodex}}},
		{"the shared folder, linked for Claude Code", pipeline.Record{Agent: "agents", Hosts: []string{"codex", "gemini", "claude"}},
			[]HostRules{{"codex", ProfileCodex}, {"claude", ProfileClaude}}},
		{"Gemini CLI's folder", pipeline.Record{Agent: "gemini", Hosts: []string{"gemini"}},
			[]HostRules{{"gemini", ProfileSpec}}},
		{"a Claude Code plugin", pipeline.Record{Agent: "claude"}, []HostRules{{"claude", ProfileClaude}}},
		{"a Codex plugin", pipeline.Record{Agent: "codex"}, []HostRules{{"codex", ProfileCodex}}},
		{"a custom folder", pipeline.Record{Agent: "custom"}, nil},
	} {
		if got := RecordRules(&tt.r); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestRunByHost checks the severities of a run that judges each file by
// the hosts that read it: the highest their profiles give, with a note
// when they disagree; at most a warning in a managed tree; the run's
// profile for a file no host reads.
func TestRunByHost(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("n", 65)
	write := func(rel string) string {
		file := filepath.Join(root, rel, long, pipeline.SkillFile)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte("---\nname: "+long+"\ndescription: Long.\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	both, claudeOnly := write("shared"), write("claude")
	cached, custom := write("home/.claude/plugins/cache/m/p/1.0.0/skills"), write("custom")
	managed := ManagedTrees(filepath.Join(root, "home", ".claude"), "")
	rules := []HostRules{{"claude", ProfileClaude}, {"codex", ProfileCodex}}
	targets := []Target{{File: both, Rules: rules}, {File: claudeOnly, Rules: rules[:1]}, {File: cached, Rules: rules},
		{File: custom}}
	rep, _ := Run(context.Background(), targets, nil, Options{Profile: ProfileSpec, ByHost: true, Managed: managed})
	got := map[string]report.Finding{}
	for _, f := range rep.Findings {
		if f.Code == CodeNameTooLong {
			got[f.File] = f
		}
	}
	if f := got[both]; f.Severity != report.SeverityError ||
		!strings.Contains(f.Message, "[warning for claude (profile claude), error for codex (profile codex)]") {
		t.Errorf("read by both: %+v", f)
	}
	if f := got[claudeOnly]; f.Severity != report.SeverityWarning || strings.Contains(f.Message, "[") {
		t.Errorf("read by Claude Code: %+v", f)
	}
	if f := got[cached]; f.Severity != report.SeverityWarning || !strings.Contains(f.Message, "the Claude Code plugin cache") {
		t.Errorf("in the plugin cache: %+v", f)
	}
	if f := got[custom]; f.Severity != report.SeverityError {
		t.Errorf("read by no host: %+v", f)
	}
	if rep.Profile != ProfileByHost {
		t.Errorf("profile %q", rep.Profile)
	}
}

// TestJudgeSkillByLoader checks that a host's verdict rejects only what
// the real host does not load (hostfacts H6-H8 and the profiles table):
// Claude Code loads tab-indented YAML (a flaw of its profile, still
// listed) and skips a SKILL.md over 1,000,000 bytes; Codex drops tabs, an
// empty description and a description that is a list, but loads a
// list-valued compatibility.
func TestJudgeSkillByLoader(t *testing.T) {
	rules := []HostRules{{"claude", ProfileClaude}, {"codex", ProfileCodex}}
	for _, tt := range []struct {
		name, text string
		size       int64 // when set, the file is padded to this many bytes
		rejects    [2]bool
		flaw       [2]string // a code each host lists as a flaw ("" none)
	}{
		{"tabs", "---\nname: tabs\ndescription: Tabs.\nmetadata:\n\tk: v\n---\nBody.\n", 0,
			[2]bool{false, true}, [2]string{CodeYAMLTab, ""}},
		{"empty description", "---\nname: empty\ndescription: \"\"\n---\nBody.\n", 0,
			[2]bool{false, true}, [2]string{"", ""}},
		{"list description", "---\nname: listed\ndescription: [a, b]\n---\nBody.\n", 0,
			[2]bool{false, true}, [2]string{CodeWrongType, ""}},
		{"list compatibility", "---\nname: compat\ndescription: Fine.\ncompatibility: [a, b]\n---\nBody.\n", 0,
			[2]bool{false, false}, [2]string{"", CodeWrongType}},
		{"1,000,001 bytes", "---\nname: big\ndescription: Big.\n---\n", 1_000_001,
			[2]bool{true, false}, [2]string{"", ""}},
		{"1,000,000 bytes", "---\nname: edge\ndescription: Edge.\n---\n", 1_000_000,
			[2]bool{false, false}, [2]string{"", ""}},
	} {
		dir := filepath.Join(t.TempDir(), "skill")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		text := tt.text
		if tt.size > 0 {
			text += strings.Repeat("Body line.\n", int(tt.size)/11+1)[:int(tt.size)-len(text)]
		}
		if err := os.WriteFile(filepath.Join(dir, pipeline.SkillFile), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, v := range JudgeSkill(context.Background(), dir, rules) {
			if v.Rejects() != tt.rejects[i] {
				t.Errorf("%s: %s rejects %v (%v), want %v", tt.name, v.Host, v.Rejects(), v.Reasons(), tt.rejects[i])
			}
			var flaws []string
			for _, f := range v.Flaws {
				flaws = append(flaws, f.Code)
			}
			if tt.flaw[i] != "" && !slices.Contains(flaws, tt.flaw[i]) {
				t.Errorf("%s: %s flaws %v, want %s among them", tt.name, v.Host, flaws, tt.flaw[i])
			}
		}
	}
}

// TestRunByHostLoads checks that validate with no PATH reports an error
// of a host's profile the host loads the skill with as a warning (the
// run passes), and one the host refuses as an error.
func TestRunByHostLoads(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "tabs", pipeline.SkillFile)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("---\nname: tabs\ndescription: Tabs.\nmetadata:\n\tk: v\n---\nBody.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rules []HostRules
		want  report.Severity
		note  string
	}{
		{[]HostRules{{"claude", ProfileClaude}}, report.SeverityWarning, "load it all the same"},
		{[]HostRules{{"codex", ProfileCodex}}, report.SeverityError, ""},
		{[]HostRules{{"claude", ProfileClaude}, {"codex", ProfileCodex}}, report.SeverityError,
			"warning (it loads) for claude (profile claude), error for codex (profile codex)"},
	} {
		rep, _ := Run(context.Background(), []Target{{File: file, Rules: tt.rules}}, nil, Options{Profile: ProfileSpec, ByHost: true})
		i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Code == CodeYAMLTab })
		if i < 0 {
			t.Fatalf("%v: no %s finding in %+v", tt.rules, CodeYAMLTab, rep.Findings)
		}
		if f := rep.Findings[i]; f.Severity != tt.want || !strings.Contains(f.Message, tt.note) {
			t.Errorf("%v: %s %q, want %s noting %q", tt.rules, f.Severity, f.Message, tt.want, tt.note)
		}
	}
}
