package hostask

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The testdata are real answers (home folder renamed /home/u, long
// parts trimmed): codex-prompt-input.json from Codex 0.171.0's `codex
// debug prompt-input`, claude-request.json a request Claude Code 2.1.332
// sent to a stand-in for its API, claude-plugin-list.json its `claude
// plugin list --json` (docs/hosts.md).

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func names(ls []Listed) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	return out
}

// TestParseCodex: every skill of the listing, with its file made
// absolute through the roots table: a nested one keeps its path, a
// symlinked one is named by the link.
func TestParseCodex(t *testing.T) {
	got, err := ParseCodex(read(t, "codex-prompt-input.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"imagegen", "openai-docs", "skill-creator", "skill-installer", "linked-real", "name-differs",
		"proj-codex", "aaa-user", "cx-nested", "cx-user", "u-nested", "u-top"}
	if !slices.Equal(names(got), want) {
		t.Fatalf("names %v, want %v", names(got), want)
	}
	byName := map[string]Listed{}
	for _, l := range got {
		byName[l.Name] = l
	}
	for name, file := range map[string]string{
		"cx-nested":    "/home/u/.codex/skills/cgroup/cx-nested/SKILL.md",
		"linked-real":  "/home/u/proj/.agents/skills/linked/SKILL.md",
		"name-differs": "/home/u/proj/.agents/skills/folder-a/SKILL.md",
	} {
		if byName[name].File != filepath.FromSlash(file) {
			t.Errorf("%s: file %q, want %q", name, byName[name].File, file)
		}
	}
	if d := byName["u-top"].Description; d != "user agents top" {
		t.Errorf("u-top: description %q", d)
	}
}

// TestParseCodexNoSkills: output without a skills block lists none; output
// that is not JSON is an error naming the command.
func TestParseCodexNoSkills(t *testing.T) {
	got, err := ParseCodex([]byte(`[{"type":"message","content":[{"type":"input_text","text":"hi"}]}]`))
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v", got, err)
	}
	if _, err := ParseCodex([]byte("WARNING: not json")); err == nil {
		t.Error("no error for output that is not JSON")
	}
}

// TestParseClaudeRequest: Claude Code names a skill after its folder, the
// frontmatter name in parentheses; a multi-line description stays one
// entry; the listing ends before the date line.
func TestParseClaudeRequest(t *testing.T) {
	got, err := ParseClaudeRequest(read(t, "claude-request.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 5 {
		t.Fatalf("got %v", names(got))
	}
	if got[0] != (Listed{Name: "ufolder", Also: "u-fm-name", Description: "user folder differs"}) {
		t.Errorf("first entry %+v", got[0])
	}
	if !slices.Contains(names(got), "top") || slices.Contains(names(got), "docx") || slices.Contains(names(got), "unested") {
		t.Errorf("names %v: want top, and no nested skill", names(got))
	}
	for _, l := range got {
		if l.Name == "claude-api" && !containsLine(l.Description, "SKIP only") {
			t.Errorf("claude-api's description lost its second line: %q", l.Description)
		}
		if containsLine(l.Description, "Today's date") {
			t.Errorf("%s: the listing ran past its end", l.Name)
		}
	}
	if _, err := ParseClaudeRequest([]byte(`{"messages":[{"content":"hi"}]}`)); err == nil {
		t.Error("no error for a request without a listing")
	}
}

func containsLine(s, prefix string) bool {
	for i := 0; i+len(prefix) <= len(s); i++ {
		if s[i:i+len(prefix)] == prefix {
			return true
		}
	}
	return false
}

// TestParseClaudePlugins: a refused manifest and a plugin enabled but not
// installed carry errors and do not load; a disabled one does not load;
// built-in plugins are left out.
func TestParseClaudePlugins(t *testing.T) {
	got, err := ParseClaudePlugins(read(t, "claude-plugin-list.json"))
	if err != nil {
		t.Fatal(err)
	}
	loads := map[string]bool{}
	for _, p := range got {
		loads[p.ID] = p.Loads()
	}
	want := map[string]bool{"bad@mk": false, "ghost@mk": false, "good@mk": true, "off@mk": false}
	if len(loads) != len(want) {
		t.Fatalf("plugins %v, want %v", loads, want)
	}
	for id, l := range want {
		if loads[id] != l {
			t.Errorf("%s: loads %v, want %v", id, loads[id], l)
		}
	}
	for _, p := range got {
		if p.ID == "bad@mk" && (len(p.ErrorDetails) == 0 || p.ErrorDetails[0].Type != "manifest-validation-error") {
			t.Errorf("bad@mk: error details %+v", p.ErrorDetails)
		}
	}
}

// TestDiff counts a name as often as it appears.
func TestDiff(t *testing.T) {
	h, m := Diff([]string{"a", "b", "b", "c"}, []string{"b", "c", "d"})
	if !slices.Equal(h, []string{"a", "b"}) || !slices.Equal(m, []string{"d"}) {
		t.Errorf("got %v %v", h, m)
	}
}

// TestParseGemini: Gemini CLI 0.61.0's `gemini skills list --all` in a
// trusted project: its own skills, not the built-in ones; nested folders
// are not among them (Gemini CLI does not load them).
func TestParseGemini(t *testing.T) {
	got := ParseGemini(read(t, "gemini-skills-list.txt"))
	if !slices.Equal(names(got), []string{"as", "gs", "uagents", "us"}) {
		t.Fatalf("names %v", names(got))
	}
	if got[1].File != "/home/u/proj/.gemini/skills/gs/SKILL.md" || got[1].Description != "gemini skill" {
		t.Errorf("gs: %+v", got[1])
	}
	if d := ParseGemini([]byte("x [Disabled]\n  Description: d\n")); len(d) != 0 {
		t.Errorf("a disabled skill listed: %v", d)
	}
}

// TestParseCopilot: GitHub Copilot CLI 1.0.102's `copilot skill list`:
// project and personal skills, nested ones included, not the built-in
// ones.
func TestParseCopilot(t *testing.T) {
	got := ParseCopilot(read(t, "copilot-skill-list.txt"))
	if !slices.Equal(names(got), []string{"as", "anest", "cnest", "pclaude", "uagents"}) {
		t.Fatalf("names %v", names(got))
	}
	if got[0].Description != "agents skill" {
		t.Errorf("as: %+v", got[0])
	}
}
