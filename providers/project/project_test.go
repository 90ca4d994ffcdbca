package project

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/scan"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		options map[string]any
		wantErr []string
	}{
		{name: "nil options"},
		{name: "dirs as a list", options: map[string]any{"dirs": []string{"a", "b"}}},
		{name: "dirs from an environment variable", options: map[string]any{"dirs": "a,b"}},
		{name: "misspelt key", options: map[string]any{"dir": []any{"a"}},
			wantErr: []string{"providers.project", `unknown key "dir"`, `did you mean "dirs"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New(tt.options)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if p.Name() != "project" {
					t.Errorf("Name() = %q, want project", p.Name())
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

func root(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Provider: "project", Source: "project",
		Location: pipeline.LocationProject, Kind: pipeline.KindProject}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		dirs any
		want []pipeline.Root
	}{
		{name: "none", dirs: nil, want: nil},
		{
			name: "relative dirs resolve against the workspace, not the repository root",
			dirs: []string{"team-skills", "../shared/skills"},
			want: []pipeline.Root{root("/r/ws/team-skills"), root("/r/shared/skills")},
		},
		{
			name: "absolute dirs are kept and cleaned",
			dirs: []string{"/abs/skills/", "/abs/x/../y"},
			want: []pipeline.Root{root("/abs/skills"), root("/abs/y")},
		},
		{
			name: "order is kept",
			dirs: []string{"z", "/a", "m"},
			want: []pipeline.Root{root("/r/ws/z"), root("/a"), root("/r/ws/m")},
		},
		{
			name: "comma-separated string",
			dirs: "b,a",
			want: []pipeline.Root{root("/r/ws/b"), root("/r/ws/a")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := map[string]any{}
			if tt.dirs != nil {
				opts["dirs"] = tt.dirs
			}
			p, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			env := providers.Env{UserDir: filepath.FromSlash("/u"), Workspace: filepath.FromSlash("/r/ws"),
				WorkspaceDirs: []string{filepath.FromSlash("/r/ws"), filepath.FromSlash("/r")},
				Getenv:        func(string) string { return "" }}
			plan, err := p.Plan(context.Background(), env)
			if err != nil {
				t.Fatalf("Plan: %v", err)
			}
			if diff := cmp.Diff(tt.want, plan.Roots); diff != "" {
				t.Errorf("roots mismatch (-want +got):\n%s", diff)
			}
			for _, r := range plan.Roots {
				if r.Optional {
					t.Errorf("root %s is Optional; a configured folder that is missing must be reported", r.Path)
				}
			}
		})
	}
}

// TestPlanScan checks the scanner's view of project roots: skills are found
// under an existing folder and a missing folder is reported.
func TestPlanScan(t *testing.T) {
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	testfs.Write(t, ws, map[string]string{"team/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploys.\n---\nBody\n"})
	p, err := New(map[string]any{"dirs": []string{"team", "missing"}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(context.Background(), providers.NewEnv(filepath.Join(base, "home"), ws, func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())

	type rec struct {
		Name, Provider string
		Location       pipeline.Location
		Kind           pipeline.Kind
		Dir            string
	}
	var got []rec
	for _, r := range res.Records {
		got = append(got, rec{r.Name, r.Provider, r.Location, r.Kind, r.Dir})
	}
	want := []rec{{"deploy", "project", pipeline.LocationProject, pipeline.KindProject, filepath.Join(ws, "team", "deploy")}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}

	type diag struct {
		Severity       pipeline.Severity
		Code, Provider string
		Path           string
	}
	var gotDiags []diag
	for _, d := range res.Diagnostics {
		gotDiags = append(gotDiags, diag{d.Severity, d.Code, d.Provider, d.Path})
	}
	wantDiags := []diag{{pipeline.SeverityWarning, "root-missing", "project", filepath.Join(ws, "missing")}}
	if diff := cmp.Diff(wantDiags, gotDiags); diff != "" {
		t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
	}
	if res.Reports[1].Exists {
		t.Errorf("missing root reported as existing")
	}
}
