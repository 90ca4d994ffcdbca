package commands

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/scan"
)

func vars(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		want    Options
		wantErr []string
	}{
		{name: "nil options: both on", want: Options{Claude: true, Codex: true}},
		{name: "defaults", options: map[string]any{"claude": true, "codex": true}, want: Options{Claude: true, Codex: true}},
		{name: "codex off", options: map[string]any{"codex": false}, want: Options{Claude: true}},
		{name: "claude off from an environment string", options: map[string]any{"claude": "false"}, want: Options{Codex: true}},
		{name: "misspelt key", options: map[string]any{"claud": true},
			wantErr: []string{"providers.commands", `unknown key "claud"`, `did you mean "claude"?`}},
		{name: "option of another provider", options: map[string]any{"home": "/x"},
			wantErr: []string{"providers.commands", `unknown key "home"`}},
		{name: "not a boolean", options: map[string]any{"codex": "sometimes"},
			wantErr: []string{"providers.commands", "codex"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.options)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("New(%v) succeeded, want an error", tt.options)
				}
				for _, s := range tt.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not hold %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if p.Name() != "commands" {
				t.Errorf("Name() = %q", p.Name())
			}
			if got := p.(*Commands).opts; got != tt.want {
				t.Errorf("options = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func claudeRoot(path string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Provider: "claude", Source: "commands", Location: loc,
		Kind: kind, Depth: depth, Optional: true, Type: pipeline.TypeCommand}
}

func codexRoot(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Provider: "codex", Source: "commands",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Type: pipeline.TypeCommand, Flat: true}
}

func TestPlan(t *testing.T) {
	ws := []string{filepath.FromSlash("/r/app"), filepath.FromSlash("/r")}
	proj, user := pipeline.LocationProject, pipeline.LocationUser
	wsKind, userKind := pipeline.KindWorkspaceAgent, pipeline.KindUserAgent
	tests := []struct {
		name    string
		options map[string]any
		env     map[string]string
		want    []pipeline.Root
	}{
		{name: "workspace folders nearest first, then the user folder, then Codex prompts",
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0),
				codexRoot("/u/.codex/prompts"),
			}},
		{name: "CLAUDE_CONFIG_DIR and CODEX_HOME move the user roots",
			env: map[string]string{"CLAUDE_CONFIG_DIR": "/cfg", "CODEX_HOME": "/cx"},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/cfg/commands", user, userKind, 0),
				codexRoot("/cx/prompts"),
			}},
		{name: "claude off", options: map[string]any{"claude": false},
			want: []pipeline.Root{codexRoot("/u/.codex/prompts")}},
		{name: "codex off", options: map[string]any{"codex": false},
			want: []pipeline.Root{
				claudeRoot("/r/app/.claude/commands", proj, wsKind, 0),
				claudeRoot("/r/.claude/commands", proj, wsKind, 1),
				claudeRoot("/u/.claude/commands", user, userKind, 0),
			}},
		{name: "both off: no roots", options: map[string]any{"claude": false, "codex": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.options)
			if err != nil {
				t.Fatal(err)
			}
			env := providers.Env{UserDir: filepath.FromSlash("/u"), Workspace: ws[0], WorkspaceDirs: ws, Getenv: vars(tt.env)}
			plan, err := p.Plan(context.Background(), env)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, plan.Roots); d != "" {
				t.Errorf("roots (-want +got):\n%s", d)
			}
			if len(plan.Diagnostics) != 0 {
				t.Errorf("diagnostics: %+v", plan.Diagnostics)
			}
		})
	}
}

// TestPlanAndScan plans over testdata/tree and scans the roots: nested
// Claude commands get folder names, Codex prompts are read top-level only,
// and the environment variables pick the user folders.
func TestPlanAndScan(t *testing.T) {
	tree, err := filepath.Abs(filepath.Join("testdata", "tree"))
	if err != nil {
		t.Fatal(err)
	}
	ws := []string{filepath.Join(tree, "repo", "app"), filepath.Join(tree, "repo")}
	tests := []struct {
		name string
		env  map[string]string
		want []string // "<provider> <location> <name>: <description>" in scan order
	}{
		{name: "default folders", want: []string{
			"claude project deploy: Deploy the app (nearer copy). [<env>]",
			"claude project frontend:review: Review the frontend",
			"claude project deploy: Deploy from the repository root.",
			"claude user user-only: A command only the user has.",
			"codex user sp.specify: Write a feature specification.",
		}},
		{name: "environment variables", env: map[string]string{
			"CLAUDE_CONFIG_DIR": filepath.Join(tree, "cfg"), "CODEX_HOME": filepath.Join(tree, "codexhome")},
			want: []string{
				"claude project deploy: Deploy the app (nearer copy). [<env>]",
				"claude project frontend:review: Review the frontend",
				"claude project deploy: Deploy from the repository root.",
				"claude user from-config-dir: Found through CLAUDE_CONFIG_DIR.",
				"codex user from-codex-home: Found through CODEX_HOME.",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(nil)
			if err != nil {
				t.Fatal(err)
			}
			env := providers.Env{UserDir: filepath.Join(tree, "home"), Workspace: ws[0], WorkspaceDirs: ws, Getenv: vars(tt.env)}
			plan, err := p.Plan(context.Background(), env)
			if err != nil {
				t.Fatal(err)
			}
			res := scan.Scan(context.Background(), plan.Roots, scan.Options{})
			var got []string
			for _, r := range res.Records {
				if !r.IsCommand() {
					t.Errorf("%s is not a command", r.Name)
				}
				s := r.Provider + " " + string(r.Location) + " " + r.Name + ": " + r.Description
				if r.ArgumentHint != "" {
					s += " [" + r.ArgumentHint + "]"
				}
				got = append(got, s)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			if len(res.Diagnostics) != 0 {
				t.Errorf("diagnostics: %+v", res.Diagnostics)
			}
		})
	}
}
