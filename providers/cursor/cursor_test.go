package cursor

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
)

// TestNew checks that the provider takes its decoded options as they are
// and gives the others its rule.
func TestNew(t *testing.T) {
	check := func(prefer pipeline.Location) func(testing.TB, providers.Provider) {
		return func(tb testing.TB, p providers.Provider) {
			if got := p.(providers.Ranker).Rule(); got.Prefer != prefer || got.Option != "providers.cursor.precedence" {
				tb.Errorf("Rule() = %+v, want Cursor's order preferring %s", *got, prefer)
			}
		}
	}
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options", Check: check(pipeline.LocationProject)},
		{Name: "precedence user", Options: &Options{Precedence: "user"}, Check: check(pipeline.LocationUser)},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.cursor", "*cursor.Options"}},
	})
}

// TestEntry checks what the registry learns from the package, .cursor
// among the folders it claims from the dynamic agents.
func TestEntry(t *testing.T) {
	e := Entry()
	p := providertest.MustNew(t, e.New, nil)
	if e.Name != Name || p.Name() != Name {
		t.Errorf("Entry().Name %q, provider name %q, want %q", e.Name, p.Name(), Name)
	}
	if diff := cmp.Diff([]string{"cursor"}, e.LabelNames()); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{".cursor"}, providers.Claimed([]providers.Entry{e})); diff != "" {
		t.Errorf("claimed folders (-want +got):\n%s", diff)
	}
	if got := *e.Options().(*Options); got.Precedence != "project" {
		t.Errorf("default precedence %q, want project", got.Precedence)
	}
}

func TestPlan(t *testing.T) {
	root := func(path string, loc pipeline.Location, kind pipeline.Kind, depth int, rule *pipeline.Precedence) pipeline.Root {
		return pipeline.Root{Path: filepath.FromSlash(path), Agent: "cursor", Provider: "cursor", Location: loc,
			Kind: kind, Depth: depth, Optional: true, Precedence: rule}
	}
	projectFirst := Order.Default()
	userFirst := Order.Precedence("user")
	tests := []struct {
		name    string
		options *Options
		dirs    []string
		want    []pipeline.Root
	}{
		{name: "workspace roots nearest first, then the user root", dirs: []string{"/r/a", "/r"},
			want: []pipeline.Root{
				root("/r/a/.cursor/skills", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, projectFirst),
				root("/r/.cursor/skills", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1, projectFirst),
				root("/u/.cursor/skills", pipeline.LocationUser, pipeline.KindUserAgent, 0, projectFirst),
			}},
		{name: "precedence user stamps every root", options: &Options{Precedence: "user"}, dirs: []string{"/w"},
			want: []pipeline.Root{
				root("/w/.cursor/skills", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0, userFirst),
				root("/u/.cursor/skills", pipeline.LocationUser, pipeline.KindUserAgent, 0, userFirst),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, tt.options)
			providertest.CheckRoots(t, tt.want, providertest.PlanRoots(t, p, providertest.Env("/u", nil, tt.dirs...)))
		})
	}
}

// record is what a user sees of a record: its id and everything that
// places it.
type record struct {
	ID, Name, Agent, Dir string
	Location             pipeline.Location
	Kind                 pipeline.Kind
	Depth                int
}

// scanRecords plans with p in env, scans, assigns ids and returns the
// records labelled cursor.
func scanRecords(t *testing.T, p providers.Provider, env providers.Env) []record {
	t.Helper()
	plan := providertest.Plan(t, p, env)
	res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
	if len(res.Diagnostics) != 0 {
		t.Errorf("unexpected scan diagnostics: %v", res.Diagnostics)
	}
	pipeline.AssignIDs(res.Records)
	var out []record
	for _, r := range res.Records {
		if r.Agent == "cursor" {
			out = append(out, record{r.ID, r.Name, r.Agent, r.Dir, r.Location, r.Kind, r.Depth})
		}
	}
	return out
}

// TestSameRecordsAsDynamicAgent checks the promise of the package: over a
// tree shaped like a real Cursor setup (rules, mcp.json, skills in the
// repository, in a service below it and in the home folder), this
// provider gives the very records the agents provider gave for its
// dynamic agent "cursor", ids included; and once the registry claims
// .cursor, the agents provider gives none.
func TestSameRecordsAsDynamicAgent(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree", "repo")
	env := providers.NewEnv(filepath.Join(base, "home"), filepath.Join(base, "repo", "services", "api"),
		providertest.Vars(nil))

	before := scanRecords(t, providertest.MustNew(t, agents.New, nil), env)
	now := scanRecords(t, providertest.MustNew(t, New, nil), env)
	if len(before) != 5 {
		t.Fatalf("the agents provider found %d cursor skills, want 5: %v", len(before), before)
	}
	if diff := cmp.Diff(before, now); diff != "" {
		t.Errorf("records differ from the dynamic agent's (-agents +cursor):\n%s", diff)
	}

	claimed := env
	claimed.Claimed = providers.Claimed([]providers.Entry{Entry()})
	if left := scanRecords(t, providertest.MustNew(t, agents.New, nil), claimed); len(left) != 0 {
		t.Errorf("with .cursor claimed, the agents provider still finds %v", left)
	}
}
