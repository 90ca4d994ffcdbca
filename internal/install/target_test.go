package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/providers"
)

// TestTargets maps --agent to folders in both scopes: the shared folder
// holds the copy when an agent reads only it or several are asked for,
// with links for the agents that do not read it (Claude Code, Cursor);
// one agent alone gets its own folder.
func TestTargets(t *testing.T) {
	proj := Layout{Scope: ScopeProject, Base: "/p", Env: providers.Env{UserDir: "/h"}}
	user := Layout{Scope: ScopeUser, Base: "/h", Env: providers.Env{UserDir: "/h", Homes: map[string]string{"claude": "/c"}}}
	type tg = Target
	tests := []struct {
		name   string
		layout Layout
		agents []string
		dir    string
		want   []Target
	}{
		{"default project", proj, nil, "", []tg{{"agents", "/p/.agents/skills", false}, {"claude", "/p/.claude/skills", true}}},
		{"default user honours the Claude folder", user, nil, "", []tg{{"agents", "/h/.agents/skills", false}, {"claude", "/c/skills", true}}},
		{"claude alone", proj, []string{"claude"}, "", []tg{{"claude", "/p/.claude/skills", false}}},
		{"codex reads the shared folder", user, []string{"codex"}, "", []tg{{"agents", "/h/.agents/skills", false}}},
		{"gemini alone", proj, []string{"gemini"}, "", []tg{{"gemini", "/p/.gemini/skills", false}}},
		{"copilot project", proj, []string{"copilot"}, "", []tg{{"copilot", "/p/.github/skills", false}}},
		{"copilot user", user, []string{"copilot"}, "", []tg{{"copilot", "/h/.copilot/skills", false}}},
		{"cursor and claude", proj, []string{"cursor", "claude"}, "", []tg{{"cursor", "/p/.cursor/skills", false}, {"claude", "/p/.claude/skills", true}}},
		{"codex and gemini share", proj, []string{"codex", "gemini"}, "", []tg{{"agents", "/p/.agents/skills", false}}},
		{"all", user, Agents(), "", []tg{{"agents", "/h/.agents/skills", false}, {"claude", "/c/skills", true}, {"cursor", "/h/.cursor/skills", true}}},
		{"dir", proj, nil, "/x/skills", []tg{{"", "/x/skills", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			agents := tt.agents
			if agents == nil {
				agents, _ = ParseAgents(nil)
			}
			got := tt.layout.Targets(agents, tt.dir)
			for i := range got {
				got[i].Dir = filepath.ToSlash(got[i].Dir)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Targets mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseAgents expands all, drops repeats and refuses unknown agents
// with a suggestion.
func TestParseAgents(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
		err  string
	}{
		{nil, []string{"agents", "claude"}, ""},
		{[]string{"claude,codex", "Claude"}, []string{"claude", "codex"}, ""},
		{[]string{"all"}, Agents(), ""},
		{[]string{"cluade"}, nil, `did you mean "claude"`},
	}
	for _, tt := range tests {
		got, err := ParseAgents(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseAgents(%v) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("ParseAgents(%v) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestCheckName refuses names that are no plain folder name.
func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf": true, "my-skill_2.0": true, "ünïcode": true,
		"": false, ".": false, "..": false, ".hidden": false, "a/b": false, `a\b`: false, "a:b": false,
		"a\x00b": false, "a\nb": false, strings.Repeat("x", 256): false, "\xff": false,
	} {
		if err := checkName(name); (err == nil) != ok {
			t.Errorf("checkName(%q) = %v, want ok=%v", name, err, ok)
		}
	}
}
