package claude

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/scan"
)

// vars returns a Getenv that reads only m.
func vars(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		wantErr []string
	}{
		{name: "nil options"},
		{name: "default options", options: map[string]any{"home": ""}},
		{name: "home set", options: map[string]any{"home": "/h"}},
		{name: "misspelt key", options: map[string]any{"hom": "/h"},
			wantErr: []string{"providers.claude", `unknown key "hom"`, `did you mean "home"?`}},
		{name: "option of another provider", options: map[string]any{"system_dirs": []any{"/x"}},
			wantErr: []string{"providers.claude", `unknown key "system_dirs"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.options)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if p.Name() != "claude" {
					t.Errorf("Name() = %q, want claude", p.Name())
				}
				return
			}
			if err == nil {
				t.Fatalf("New(%v) succeeded, want an error", tt.options)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not hold %q", err, s)
				}
			}
		})
	}
}

func wsRoot(path string, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Provider: "claude", Source: "claude",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Depth: depth, Optional: true}
}

func userRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Provider: "claude", Source: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true}
}

func TestPlan(t *testing.T) {
	wsDirs := []string{filepath.FromSlash("/r/a/b"), filepath.FromSlash("/r/a"), filepath.FromSlash("/r")}
	tests := []struct {
		name    string
		options map[string]any
		dirs    []string
		env     map[string]string
		want    []pipeline.Root
	}{
		{
			name: "workspace roots nearest first, then the user root",
			dirs: wsDirs,
			want: []pipeline.Root{wsRoot("/r/a/b/.claude/skills", 0), wsRoot("/r/a/.claude/skills", 1),
				wsRoot("/r/.claude/skills", 2), userRoot("/u/.claude/skills")},
		},
		{
			name: "outside a repository",
			dirs: []string{filepath.FromSlash("/w")},
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/u/.claude/skills")},
		},
		{
			name: "no workspace folders: the user root only",
			want: []pipeline.Root{userRoot("/u/.claude/skills")},
		},
		{
			name: "CLAUDE_CONFIG_DIR replaces ~/.claude",
			dirs: []string{filepath.FromSlash("/w")},
			env:  map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want: []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			name:    "home option beats CLAUDE_CONFIG_DIR",
			options: map[string]any{"home": filepath.FromSlash("/alt")},
			dirs:    []string{filepath.FromSlash("/w")},
			env:     map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			name:    "home option without CLAUDE_CONFIG_DIR",
			options: map[string]any{"home": filepath.FromSlash("/alt")},
			dirs:    []string{filepath.FromSlash("/w")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/alt/skills")},
		},
		{
			name:    "empty home option falls back",
			options: map[string]any{"home": ""},
			dirs:    []string{filepath.FromSlash("/w")},
			env:     map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want:    []pipeline.Root{wsRoot("/w/.claude/skills", 0), userRoot("/cfg/skills")},
		},
		{
			name: "workspace roots do not move with CLAUDE_CONFIG_DIR",
			dirs: wsDirs[1:],
			env:  map[string]string{"CLAUDE_CONFIG_DIR": filepath.FromSlash("/cfg")},
			want: []pipeline.Root{wsRoot("/r/a/.claude/skills", 0), wsRoot("/r/.claude/skills", 1), userRoot("/cfg/skills")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.options)
			if err != nil {
				t.Fatal(err)
			}
			env := providers.Env{UserDir: filepath.FromSlash("/u"), WorkspaceDirs: tt.dirs, Getenv: vars(tt.env)}
			if len(tt.dirs) > 0 {
				env.Workspace = tt.dirs[0]
			}
			plan, err := p.Plan(context.Background(), env)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if diff := cmp.Diff(tt.want, plan.Roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
			if len(plan.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %v", plan.Diagnostics)
			}
			for _, r := range plan.Roots {
				if !r.Optional {
					t.Errorf("root %s is not Optional", r.Path)
				}
			}
		})
	}
}

// TestPlanReadsEnvNotProcess checks that CLAUDE_CONFIG_DIR is read through
// env.Getenv only.
func TestPlanReadsEnvNotProcess(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.FromSlash("/from-process"))
	p, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(context.Background(), providers.Env{UserDir: filepath.FromSlash("/u"), Getenv: vars(nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := []pipeline.Root{userRoot("/u/.claude/skills")}
	if diff := cmp.Diff(want, plan.Roots); diff != "" {
		t.Errorf("roots mismatch (-want +got):\n%s", diff)
	}
}

func TestHome(t *testing.T) {
	tests := []struct {
		name, override string
		env            map[string]string
		want           string
	}{
		{"default", "", nil, "/u/.claude"},
		{"CLAUDE_CONFIG_DIR", "", map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}, "/cfg"},
		{"override", "/o", map[string]string{"CLAUDE_CONFIG_DIR": "/cfg"}, "/o"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Home(providers.Env{UserDir: "/u", Getenv: vars(tt.env)}, tt.override)
			if got != filepath.FromSlash(tt.want) {
				t.Errorf("Home = %q, want %q", got, tt.want)
			}
		})
	}
}

// found is the part of a scanned record the scan test compares.
type found struct {
	Name     string
	Location pipeline.Location
	Kind     pipeline.Kind
	Depth    int
	Root     string // relative to the tree
}

// TestPlanScan plans the testdata tree and scans it: the workspace repo/sub
// sits in the repository repo; the tree root above it also holds a
// .claude/skills that must never be planned.
func TestPlanScan(t *testing.T) {
	tests := []struct {
		name    string
		options func(base string) map[string]any
		env     func(base string) map[string]string
		want    []found
	}{
		{
			name: "default user folder",
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationUser, pipeline.KindUserAgent, 0, "home/.claude/skills"},
				{"user-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "home/.claude/skills"},
			},
		},
		{
			name: "CLAUDE_CONFIG_DIR",
			env: func(base string) map[string]string {
				return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(base, "cfg")}
			},
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"cfg-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "cfg/skills"},
			},
		},
		{
			name:    "home option",
			options: func(base string) map[string]any { return map[string]any{"home": filepath.Join(base, "alt")} },
			env: func(base string) map[string]string {
				return map[string]string{"CLAUDE_CONFIG_DIR": filepath.Join(base, "cfg")}
			},
			want: []found{
				{"sub-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, "repo/sub/.claude/skills"},
				{"repo-skill", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"shared", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, "repo/.claude/skills"},
				{"alt-skill", pipeline.LocationUser, pipeline.KindUserAgent, 0, "alt/skills"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			if err := os.CopyFS(base, os.DirFS("testdata/tree")); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(base, "repo", ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			var opts map[string]any
			if tt.options != nil {
				opts = tt.options(base)
			}
			p, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]string
			if tt.env != nil {
				m = tt.env(base)
			}
			env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo", "sub"), vars(m))
			plan, err := p.Plan(context.Background(), env)
			if err != nil {
				t.Fatal(err)
			}
			res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
			if len(res.Diagnostics) != 0 {
				t.Errorf("unexpected diagnostics: %v", res.Diagnostics)
			}
			var got []found
			for _, r := range res.Records {
				if r.Provider != "claude" {
					t.Errorf("record %s has provider %q", r.Name, r.Provider)
				}
				rel, err := filepath.Rel(base, r.Root)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, found{r.Name, r.Location, r.Kind, r.Depth, filepath.ToSlash(rel)})
			}
			// Records come in root order, then path order within a root;
			// the skill above the repository root is never planned.
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
