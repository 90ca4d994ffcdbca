package custom

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		spec    string
		path    string
		scope   string
		wantErr []string // substrings of the error; nil means no error
	}{
		{spec: "dir", path: "dir"},
		{spec: "dir?scope=docs", path: "dir", scope: "docs"},
		{spec: "/abs/dir?scope=docs", path: "/abs/dir", scope: "docs"},
		{spec: "../up/dir?scope=my-team_2", path: "../up/dir", scope: "my-team_2"},
		{spec: "dir?scope=a%2Db", path: "dir", scope: "a-b"},
		{spec: "dir?", path: "dir"},
		{spec: "dir?scope=", path: "dir"},
		{spec: "", wantErr: []string{"empty skill folder"}},
		{spec: "?scope=docs", wantErr: []string{"empty skill folder", `"?scope=docs"`}},
		{spec: "dir?scope=a:b", wantErr: []string{`"dir?scope=a:b"`, `scope "a:b"`, "must not contain ':' or spaces"}},
		{spec: "dir?scope=x y", wantErr: []string{`scope "x y"`, "must not contain"}},
		{spec: "dir?scope=x+y", wantErr: []string{`scope "x y"`, "must not contain"}},
		{spec: "dir?scope=x%09y", wantErr: []string{"must not contain"}},
		{spec: "dir?foo=1", wantErr: []string{`"dir?foo=1"`, `unknown parameter "foo"`, "only scope=name"}},
		{spec: "dir?scope=docs&foo=1", wantErr: []string{`unknown parameter "foo"`}},
		{spec: "dir?scope=%zz", wantErr: []string{`"dir?scope=%zz"`, "bad query"}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			path, scope, err := Split(tt.spec)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Split(%q): %v", tt.spec, err)
				}
				if path != tt.path || scope != tt.scope {
					t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.spec, path, scope, tt.path, tt.scope)
				}
				return
			}
			if err == nil {
				t.Fatalf("Split(%q) = %q, %q, nil; want an error", tt.spec, path, scope)
			}
			if !strings.HasPrefix(err.Error(), "custom: ") {
				t.Errorf("error %q does not start with \"custom: \"", err)
			}
			providertest.CheckError(t, err, tt.wantErr...)
		})
	}
}

// TestNew checks the options New takes: configs has checked each entry
// (Folder.Check), and an entry a configuration built by hand gives
// unchecked is refused with the same error.
func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, "custom", []providertest.NewCase{
		{Name: "nil options"},
		{Name: "default options", Options: defaultOptions()},
		{Name: "dirs with scopes", Options: &Options{Dirs: []Folder{"a?scope=x", "b"}}},
		{Name: "bad scope", Options: &Options{Dirs: []Folder{"ok", "a?scope=x:y"}},
			WantErr: []string{"custom:", `scope "x:y"`}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.custom", "*custom.Options"}},
	})
}

// TestFolderCheck checks the check configs runs on each entry of the dirs
// option: Split's errors, nothing for a good entry.
func TestFolderCheck(t *testing.T) {
	for _, ok := range []string{"a", "a?scope=x", "/abs/b/?scope=team-1"} {
		if err := Folder("").Check(ok); err != nil {
			t.Errorf("Check(%q) = %v", ok, err)
		}
	}
	for bad, want := range map[string]string{
		"a?scope=x:y":    `scope "x:y" must not contain`,
		"?scope=x":       "empty skill folder",
		"a?scope=x&o=1":  `unknown parameter "o"`,
		"a?scope=%zz":    "bad query",
		"a?scope=two ws": "must not contain",
	} {
		if err := Folder("").Check(bad); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want an error holding %q", bad, err, want)
		}
	}
}

func root(path, prefix string) pipeline.Root {
	return pipeline.Root{Path: filepath.FromSlash(path), Agent: "custom", Provider: "custom",
		Location: pipeline.LocationCustom, Kind: pipeline.KindCustom, Prefix: prefix}
}

func TestPlan(t *testing.T) {
	tests := []struct {
		name string
		dirs []Folder
		want []pipeline.Root
	}{
		{name: "none", want: nil},
		{
			name: "relative folders resolve against the workspace; order kept",
			dirs: []Folder{"z?scope=docs", "/abs/a/", "../b/./c"},
			want: []pipeline.Root{root("/r/ws/z", "docs"), root("/abs/a", ""), root("/r/b/c", "")},
		},
		{
			name: "the same folder twice with different scopes",
			dirs: []Folder{"s?scope=one", "s?scope=two"},
			want: []pipeline.Root{root("/r/ws/s", "one"), root("/r/ws/s", "two")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, &Options{Dirs: tt.dirs})
			plan := providertest.Plan(t, p, providertest.Env("/u", nil, "/r/ws", "/r"))
			providertest.CheckRoots(t, tt.want, plan.Roots)
		})
	}
}

// TestPlanScan scans custom roots over the testdata tree: a single skill
// folder, a tree of skills, scopes, and a missing folder.
func TestPlanScan(t *testing.T) {
	base := providertest.CopyTree(t, "testdata/tree")
	type rec struct {
		Name     string
		Dir      string // relative to the tree
		Location pipeline.Location
		Kind     pipeline.Kind
		Refs     bool
	}
	type diag struct {
		Code string
		Path string // relative to the tree
	}
	single := func(name string) rec {
		return rec{name, "single/pdf", pipeline.LocationCustom, pipeline.KindCustom, true}
	}
	tests := []struct {
		name      string
		dirs      []Folder
		want      []rec
		wantDiags []diag
	}{
		{
			name: "a single skill folder",
			dirs: []Folder{"single/pdf"},
			want: []rec{single("pdf")},
		},
		{
			name: "a single skill folder with a scope",
			dirs: []Folder{"single/pdf?scope=docs"},
			want: []rec{single("docs:pdf")},
		},
		{
			name: "a single skill folder given with a trailing slash",
			dirs: []Folder{"single/pdf/?scope=docs"},
			want: []rec{single("docs:pdf")},
		},
		{
			name: "a tree of skills with a scope; hidden folders skipped",
			dirs: []Folder{"many?scope=team"},
			want: []rec{
				{"team:alpha", "many/alpha", pipeline.LocationCustom, pipeline.KindCustom, false},
				{"team:beta", "many/group/beta", pipeline.LocationCustom, pipeline.KindCustom, false},
			},
		},
		{
			name: "several folders in order; a missing one is reported",
			dirs: []Folder{"single", "missing?scope=x", "many"},
			want: []rec{
				single("pdf"),
				{"alpha", "many/alpha", pipeline.LocationCustom, pipeline.KindCustom, false},
				{"beta", "many/group/beta", pipeline.LocationCustom, pipeline.KindCustom, false},
			},
			wantDiags: []diag{{"root-missing", "missing"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := providertest.MustNew(t, New, &Options{Dirs: tt.dirs})
			plan := providertest.Plan(t, p, providers.NewEnv(filepath.Join(base, "home"), base, providertest.Vars(nil)))
			res := scan.Scan(context.Background(), plan.Roots, scan.DefaultOptions())
			rel := func(p string) string { return providertest.Rel(t, base, p) }
			var got []rec
			for _, r := range res.Records {
				if r.Agent != "custom" {
					t.Errorf("record %s has provider %q", r.Name, r.Agent)
				}
				got = append(got, rec{r.Name, rel(r.Dir), r.Location, r.Kind, r.HasReferences})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
			var gotDiags []diag
			for _, d := range res.Diagnostics {
				gotDiags = append(gotDiags, diag{d.Code, rel(d.Path)})
			}
			if diff := cmp.Diff(tt.wantDiags, gotDiags); diff != "" {
				t.Errorf("diagnostics mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
