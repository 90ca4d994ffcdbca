package project

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, "project", []providertest.NewCase{
		{Name: "nil options"},
		{Name: "dirs", Options: &Options{Dirs: []string{"a", "b"}}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.project", "*project.Options"}},
	})
}

func root(path string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "project", Provider: "project",
		Location: pipeline.LocationProject, Kind: pipeline.KindProject}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		dirs []string
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, &Options{Dirs: tt.dirs})
			plan := providertest.Plan(t, p, providertest.Env("/u", nil, "/r/ws", "/r"))
			providertest.CheckRoots(t, tt.want, plan.Roots)
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
	p := providertest.MustNew(t, New, &Options{Dirs: []string{"team", "missing"}})
	plan := providertest.Plan(t, p, providers.NewEnv(filepath.Join(base, "home"), ws, providertest.Vars(nil)))
	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())

	type rec struct {
		Name, Provider string
		Location       pipeline.Location
		Kind           pipeline.Kind
		Dir            string
	}
	var got []rec
	for _, r := range res.Records {
		got = append(got, rec{r.Name, r.Agent, r.Location, r.Kind, r.Dir})
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
