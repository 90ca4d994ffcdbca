package configs

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

func TestEveryFlagMapsToAKey(t *testing.T) {
	t.Parallel()
	sp := mustSpec(t)
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddFlags(fs)
	AddMCPFlags(fs)
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		n++
		if f.Usage == "" {
			t.Errorf("--%s has no help", f.Name)
		}
		if f.Name == "config" {
			if k, _ := flagKey(f.Name); k != "" {
				t.Errorf("--config maps to key %q, want none", k)
			}
			return
		}
		k, _ := flagKey(f.Name)
		if nd := sp.lookup(k); nd == nil || nd.kind == kindSection {
			t.Errorf("--%s maps to %q, which is not a key", f.Name, k)
		}
	})
	if n != 26 {
		t.Errorf("%d flags registered, want 26", n)
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	ws := tempDir(t)
	tests := []struct {
		name    string
		project string // ccski.yaml in the workspace, if any
		vars    []string
		args    []string
		get     func(Config) any
		want    any
		sources map[string]string // "project" stands for the project label
	}{
		{name: "unchanged flags do not count", args: []string{"--json", "--no-color", "-h"},
			get: func(c Config) any { return c.MCP.Port }, want: 3000, sources: map[string]string{"mcp.port": "default", "state": "default"}},
		{name: "--all alone", args: []string{"--all"},
			get: func(c Config) any { return []any{c.State, c.Include} }, want: []any{"all", []string{"all"}},
			sources: map[string]string{"state": "flag --all", "include": "flag --all"}},
		{name: "--all keeps include from a file", project: "include: [codex]\n", args: []string{"--all"},
			get: func(c Config) any { return []any{c.State, c.Include} }, want: []any{"all", []string{"codex"}},
			sources: map[string]string{"state": "flag --all", "include": "project"}},
		{name: "--all keeps include from env", vars: []string{"CCSKI_INCLUDE=claude"}, args: []string{"--all"},
			get: func(c Config) any { return c.Include }, want: []string{"claude"},
			sources: map[string]string{"include": "env CCSKI_INCLUDE"}},
		{name: "--all keeps --include", args: []string{"--include", "a,b", "--all"},
			get: func(c Config) any { return c.Include }, want: []string{"a", "b"},
			sources: map[string]string{"include": "flag --include"}},
		{name: "--all=false does nothing", project: "include: [codex]\n", args: []string{"--all=false"},
			get: func(c Config) any { return []any{c.State, c.Include} }, want: []any{"enabled", []string{"codex"}},
			sources: map[string]string{"state": "default", "include": "project"}},
		{name: "--disabled", args: []string{"--disabled"},
			get: func(c Config) any { return []any{c.State, len(c.Include)} }, want: []any{"disabled", 0},
			sources: map[string]string{"state": "flag --disabled", "include": "default"}},
		{name: "--include and --exclude", args: []string{"--include", "codex", "--include", "claude", "--exclude", "x,y"},
			get: func(c Config) any { return [][]string{c.Include, c.Exclude} }, want: [][]string{{"codex", "claude"}, {"x", "y"}},
			sources: map[string]string{"include": "flag --include", "exclude": "flag --exclude"}},
		{name: "--skill-dir is repeatable and keeps ?scope", args: []string{"--skill-dir", "/a", "--skill-dir", "/b?scope=team", "--skill-dir=/c,d"},
			get: func(c Config) any { return optionOf(c, "custom", "dirs") }, want: []any{"/a", "/b?scope=team", "/c,d"},
			sources: map[string]string{"providers.custom.dirs": "flag --skill-dir"}},
		{name: "--skill-dir replaces the file's dirs", project: "providers: {custom: {dirs: [/f]}}\n", args: []string{"--skill-dir", "/a"},
			get: func(c Config) any { return optionOf(c, "custom", "dirs") }, want: []any{"/a"}},
		{name: "--tools and --catalog", args: []string{"--tools", "skills_list,ask", "--catalog", "500"},
			get: func(c Config) any { return []any{c.MCP.Tools, c.MCP.Catalog} }, want: []any{[]string{"skills_list", "ask"}, 500},
			sources: map[string]string{"mcp.tools": "flag --tools", "mcp.catalog": "flag --catalog"}},
		{name: "--skill-prompts", args: []string{"--skill-prompts"},
			get: func(c Config) any { return c.MCP.SkillPrompts }, want: true,
			sources: map[string]string{"mcp.skill_prompts": "flag --skill-prompts"}},
		{name: "--no-plugins", args: []string{"--no-plugins"},
			get: func(c Config) any { return c.Providers["marketplace"].Enabled }, want: false,
			sources: map[string]string{"providers.marketplace.enabled": "flag --no-plugins"}},
		{name: "--no-plugins=false keeps the file's value", project: "providers: {marketplace: {enabled: false}}\n", args: []string{"--no-plugins=false"},
			get: func(c Config) any { return c.Providers["marketplace"].Enabled }, want: false,
			sources: map[string]string{"providers.marketplace.enabled": "project"}},
		{name: "--user-dir and --workspace", args: []string{"--user-dir", "/u", "--workspace", "/w"},
			get: func(c Config) any { return []string{c.UserDir, c.Workspace} }, want: []string{"/u", "/w"},
			sources: map[string]string{"user_dir": "flag --user-dir", "workspace": "flag --workspace"}},
		{name: "mcp switches", args: []string{"--no-refresh", "--no-watch", "--stateless"},
			get: func(c Config) any { return []bool{c.MCP.Refresh, c.MCP.Watch, c.MCP.Stateless} }, want: []bool{false, false, true},
			sources: map[string]string{"mcp.refresh": "flag --no-refresh", "mcp.watch": "flag --no-watch", "mcp.stateless": "flag --stateless"}},
		{name: "mcp values", args: []string{"--transport=sse", "--host=0.0.0.0", "--port=9", "--auth-token=t", "--log-level=warn", "--log-format=json",
			"--allowed-origin", "https://a", "--allowed-origin", "https://b"},
			get: func(c Config) any {
				m := c.MCP
				return []any{m.Transport, m.Host, m.Port, m.AuthToken, m.LogLevel, m.LogFormat, m.AllowedOrigins}
			},
			want:    []any{"sse", "0.0.0.0", 9, "t", "warn", "json", []string{"https://a", "https://b"}},
			sources: map[string]string{"mcp.transport": "flag --transport", "mcp.auth_token": "flag --auth-token", "mcp.allowed_origins": "flag --allowed-origin"}},
		{name: "flag beats env", vars: []string{"CCSKI_MCP__HOST=env.example"}, args: []string{"--host", "flag.example"},
			get: func(c Config) any { return c.MCP.Host }, want: "flag.example", sources: map[string]string{"mcp.host": "flag --host"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := ws
			projectLabel := ""
			if tt.project != "" {
				ws = tempDir(t)
				p := write(t, filepath.Join(ws, "ccski.yaml"), tt.project)
				projectLabel = "project config " + p
			}
			o := options(t, ws, tt.vars...)
			o.Flags = flags(t, tt.args...)
			l := mustLoad(t, o)
			if diff := cmp.Diff(tt.want, tt.get(l.Config)); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			for k, want := range tt.sources {
				if want == "project" {
					want = projectLabel
				}
				if got := l.Sources[k]; got != want {
					t.Errorf("Sources[%q] = %q, want %q", k, got, want)
				}
			}
		})
	}
}

func TestNilFlags(t *testing.T) {
	t.Parallel()
	l := mustLoad(t, options(t, tempDir(t)))
	if l.Config.State != "enabled" {
		t.Errorf("state = %q", l.Config.State)
	}
}
