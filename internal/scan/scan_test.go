package scan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

func skill(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nBody.\n", name, desc, name)
}

// rec is the part of a record the table compares, with paths relative to
// the temp dir.
type rec struct {
	Name, Description, Provider string
	Location                    pipeline.Location
	Dir, File, RealDir, Root    string
	Disabled                    bool
	Refs, Scripts, Assets       bool
	Plugin                      *pipeline.PluginInfo
	Diags                       []string // codes of the attached diagnostics
}

type dg struct {
	Sev  pipeline.Severity
	Code string
	Path string
	Line int
}

type rep struct {
	Exists bool
	Skills int
}

func rel(base, p string) string {
	if p == "" {
		return ""
	}
	r, err := filepath.Rel(base, p)
	if err != nil || strings.HasPrefix(r, "..") {
		return p
	}
	return filepath.ToSlash(r)
}

func summarize(base string, res Result) ([]rec, []dg, []rep) {
	var recs []rec
	for _, r := range res.Records {
		x := rec{
			Name: r.Name, Description: r.Description, Provider: r.Agent, Location: r.Location,
			Dir: rel(base, r.Dir), File: rel(base, r.File), RealDir: rel(base, r.RealDir), Root: rel(base, r.Root),
			Disabled: r.Disabled, Refs: r.HasReferences, Scripts: r.HasScripts, Assets: r.HasAssets,
			Plugin: r.Plugin,
		}
		for _, d := range r.Diagnostics {
			x.Diags = append(x.Diags, d.Code)
		}
		recs = append(recs, x)
	}
	var diags []dg
	for _, d := range res.Diagnostics {
		diags = append(diags, dg{d.Severity, d.Code, rel(base, d.Path), d.Line})
	}
	var reps []rep
	for _, r := range res.Reports {
		reps = append(reps, rep{r.Exists, r.Skills})
	}
	return recs, diags, reps
}

// root is a user-level claude root at base/path.
func root(base, path string) pipeline.Root {
	return pipeline.Root{Path: filepath.Join(base, filepath.FromSlash(path)), Agent: "claude", Provider: "claude",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent}
}

func oneRoot(path string) func(string) []pipeline.Root {
	return func(base string) []pipeline.Root { return []pipeline.Root{root(base, path)} }
}

// enabled is the usual expectation for a plain skill under skills/.
func enabled(dir, name, desc string) rec {
	return rec{Name: name, Description: desc, Provider: "claude", Location: pipeline.LocationUser,
		Dir: "skills/" + dir, File: "skills/" + dir + "/SKILL.md", RealDir: "skills/" + dir, Root: "skills"}
}

func with(r rec, f func(*rec)) rec { f(&r); return r }

func TestScan(t *testing.T) {
	plugin := &pipeline.PluginInfo{Plugin: "example-skills", Marketplace: "anthropic-agent-skills", Version: "1.0.0"}
	bigFront := "---\nname: big\ndescription: d\n" + strings.Repeat("# filler line of a frontmatter that is far too large\n", 1400) + "---\n"

	tests := []struct {
		name    string
		tree    map[string]string
		roots   func(base string) []pipeline.Root
		opt     Options
		want    []rec
		diags   []dg
		reports []rep // nil: not checked
	}{
		{
			name: "nested category folders",
			tree: map[string]string{
				"skills/cat/a/SKILL.md":      skill("a", "A skill."),
				"skills/cat/b/SKILL.md":      skill("b", "B skill."),
				"skills/cat/README.md":       "# not a skill",
				"skills/deep/x/y/z/SKILL.md": skill("z", "Deep."),
				"skills/top/SKILL.md":        skill("top", "Top."),
			},
			roots: oneRoot("skills"),
			want: []rec{
				enabled("cat/a", "a", "A skill."),
				enabled("cat/b", "b", "B skill."),
				enabled("deep/x/y/z", "z", "Deep."),
				enabled("top", "top", "Top."),
			},
			reports: []rep{{true, 4}},
		},
		{
			name: "a skill folder's subfolders are not searched",
			tree: map[string]string{
				"skills/s/SKILL.md":                 skill("s", "Outer."),
				"skills/s/sub/SKILL.md":             skill("inner", "Inner."),
				"skills/s/references/deep/SKILL.md": skill("ref", "Ref."),
			},
			roots:   oneRoot("skills"),
			want:    []rec{with(enabled("s", "s", "Outer."), func(r *rec) { r.Refs = true })},
			reports: []rep{{true, 1}},
		},
		{
			name: "hidden folders and node_modules are skipped",
			tree: map[string]string{
				"skills/.hidden/a/SKILL.md":          skill("a", "Hidden."),
				"skills/.git/b/SKILL.md":             skill("b", "Git."),
				"skills/node_modules/c/SKILL.md":     skill("c", "Module."),
				"skills/cat/node_modules/d/SKILL.md": skill("d", "Nested module."),
				"skills/cat/.cache/e/SKILL.md":       skill("e", "Hidden nested."),
				"skills/ok/SKILL.md":                 skill("ok", "Visible."),
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("ok", "ok", "Visible.")},
		},
		{
			name: "hidden root is still scanned",
			tree: map[string]string{
				".claude/skills/pdf/SKILL.md": skill("pdf", "PDF."),
			},
			roots: oneRoot(".claude/skills"),
			want: []rec{{Name: "pdf", Description: "PDF.", Provider: "claude", Location: pipeline.LocationUser,
				Dir: ".claude/skills/pdf", File: ".claude/skills/pdf/SKILL.md", RealDir: ".claude/skills/pdf",
				Root: ".claude/skills"}},
		},
		{
			name: "root that is itself a skill folder",
			tree: map[string]string{
				"skills/SKILL.md":     skill("whole", "The root."),
				"skills/sub/SKILL.md": skill("sub", "Not a second skill."),
				"skills/scripts/":     "",
			},
			roots: oneRoot("skills"),
			want: []rec{{Name: "whole", Description: "The root.", Provider: "claude", Location: pipeline.LocationUser,
				Dir: "skills", File: "skills/SKILL.md", RealDir: "skills", Root: "skills", Scripts: true}},
			reports: []rep{{true, 1}},
		},
		{
			name: "missing name falls back to the folder name",
			tree: map[string]string{
				"my-skill/SKILL.md":       "---\ndescription: No name.\n---\n",
				"skills/unnamed/SKILL.md": "---\nname: \"  \"\ndescription: Blank name.\n---\n",
			},
			roots: func(base string) []pipeline.Root {
				return []pipeline.Root{root(base, "my-skill"), root(base, "skills")}
			},
			want: []rec{
				{Name: "my-skill", Description: "No name.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "my-skill", File: "my-skill/SKILL.md", RealDir: "my-skill", Root: "my-skill",
					Diags: []string{"name-missing"}},
				with(enabled("unnamed", "unnamed", "Blank name."), func(r *rec) { r.Diags = []string{"name-empty"} }),
			},
			diags: []dg{
				{pipeline.SeverityWarning, "name-missing", "my-skill/SKILL.md", 2},
				{pipeline.SeverityWarning, "name-empty", "skills/unnamed/SKILL.md", 2},
			},
			reports: []rep{{true, 1}, {true, 1}},
		},
		{
			name: "disabled .SKILL.md",
			tree: map[string]string{
				"skills/off/.SKILL.md": skill("off", "Disabled."),
			},
			roots: oneRoot("skills"),
			want: []rec{with(enabled("off", "off", "Disabled."), func(r *rec) {
				r.Disabled, r.File = true, "skills/off/.SKILL.md"
			})},
		},
		{
			name: "both SKILL.md and .SKILL.md",
			tree: map[string]string{
				"skills/both/SKILL.md":  skill("both", "Enabled copy."),
				"skills/both/.SKILL.md": skill("both", "Disabled copy."),
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("both", "both", "Enabled copy.")},
			diags: []dg{{pipeline.SeverityWarning, "enabled-and-disabled", "skills/both", 0}},
		},
		{
			name: "lowercase skill.md",
			tree: map[string]string{
				"skills/low/skill.md":   skill("low", "Lower."),
				"skills/title/Skill.md": skill("title", "Title case."),
				"skills/mixed/SKILL.md": skill("mixed", "Upper wins."),
				"skills/mixed/skill.md": skill("mixed", "Ignored."),
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("mixed", "mixed", "Upper wins.")},
			diags: []dg{
				{pipeline.SeverityWarning, "lowercase-skill-file", "skills/low", 0},
				{pipeline.SeverityWarning, "lowercase-skill-file", "skills/title", 0},
			},
		},
		{
			name: "resource folders",
			tree: map[string]string{
				"skills/all/SKILL.md":     skill("all", "All."),
				"skills/all/references/":  "",
				"skills/all/scripts/":     "",
				"skills/all/assets/":      "",
				"skills/refs/SKILL.md":    skill("refs", "Refs."),
				"skills/refs/references/": "",
				"skills/files/SKILL.md":   skill("files", "Files named like folders."),
				"skills/files/references": "not a folder",
				"skills/files/scripts":    "not a folder",
				"skills/files/assets":     "not a folder",
				"skills/linked/SKILL.md":  skill("linked", "Linked scripts."),
				"skills/linked/scripts":   "-> ../all/scripts",
				"skills/linked/assets":    "-> ../all/SKILL.md",
			},
			roots: oneRoot("skills"),
			want: []rec{
				with(enabled("all", "all", "All."), func(r *rec) { r.Refs, r.Scripts, r.Assets = true, true, true }),
				enabled("files", "files", "Files named like folders."),
				with(enabled("linked", "linked", "Linked scripts."), func(r *rec) { r.Scripts = true }),
				with(enabled("refs", "refs", "Refs."), func(r *rec) { r.Refs = true }),
			},
		},
		{
			name: "prefix",
			tree: map[string]string{
				"docs/pdf/SKILL.md":      skill("pdf", "PDF."),
				"docs/ns/SKILL.md":       skill("other:thing", "Already qualified."),
				"docs/nameless/SKILL.md": "---\ndescription: No name.\n---\n",
			},
			roots: func(base string) []pipeline.Root {
				r := root(base, "docs")
				r.Prefix, r.Agent, r.Location, r.Kind = "docs", "custom", pipeline.LocationCustom, pipeline.KindCustom
				return []pipeline.Root{r}
			},
			want: []rec{
				{Name: "docs:nameless", Description: "No name.", Provider: "custom", Location: pipeline.LocationCustom,
					Dir: "docs/nameless", File: "docs/nameless/SKILL.md", RealDir: "docs/nameless", Root: "docs",
					Diags: []string{"name-missing"}},
				{Name: "other:thing", Description: "Already qualified.", Provider: "custom", Location: pipeline.LocationCustom,
					Dir: "docs/ns", File: "docs/ns/SKILL.md", RealDir: "docs/ns", Root: "docs"},
				{Name: "docs:pdf", Description: "PDF.", Provider: "custom", Location: pipeline.LocationCustom,
					Dir: "docs/pdf", File: "docs/pdf/SKILL.md", RealDir: "docs/pdf", Root: "docs"},
			},
			diags: []dg{{pipeline.SeverityWarning, "name-missing", "docs/nameless/SKILL.md", 2}},
		},
		{
			name: "plugin",
			tree: map[string]string{
				"plugin/skills/pdf/SKILL.md": skill("pdf", "PDF."),
			},
			roots: func(base string) []pipeline.Root {
				r := root(base, "plugin/skills")
				r.Prefix, r.Plugin, r.Location, r.Kind = "example-skills", plugin, pipeline.LocationPlugin, pipeline.KindPlugin
				return []pipeline.Root{r}
			},
			want: []rec{{Name: "example-skills:pdf", Description: "PDF.", Provider: "claude", Location: pipeline.LocationPlugin,
				Dir: "plugin/skills/pdf", File: "plugin/skills/pdf/SKILL.md", RealDir: "plugin/skills/pdf",
				Root: "plugin/skills", Plugin: plugin}},
		},
		{
			name: "missing roots",
			tree: map[string]string{
				"a-file": "not a folder",
			},
			roots: func(base string) []pipeline.Root {
				opt := root(base, "optional")
				opt.Optional = true
				file := root(base, "a-file")
				file.Optional = true
				return []pipeline.Root{opt, root(base, "required"), file}
			},
			diags: []dg{
				{pipeline.SeverityWarning, "root-missing", "required", 0},
				{pipeline.SeverityWarning, "root-not-folder", "a-file", 0},
			},
			reports: []rep{{false, 0}, {false, 0}, {false, 0}},
		},
		{
			name: "symlinked skill folder",
			tree: map[string]string{
				"elsewhere/real-skill/SKILL.md": skill("linked", "Linked."),
				"elsewhere/real-skill/scripts/": "",
				"elsewhere/cat/inner/SKILL.md":  skill("inner", "Through a linked category."),
				"skills/link":                   "-> ../elsewhere/real-skill",
				"skills/linked-cat":             "-> " + "../elsewhere/cat",
			},
			roots: oneRoot("skills"),
			want: []rec{
				{Name: "linked", Description: "Linked.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "skills/link", File: "skills/link/SKILL.md", RealDir: "elsewhere/real-skill", Root: "skills",
					Scripts: true},
				{Name: "inner", Description: "Through a linked category.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "skills/linked-cat/inner", File: "skills/linked-cat/inner/SKILL.md", RealDir: "elsewhere/cat/inner",
					Root: "skills"},
			},
		},
		{
			name: "symlinked root",
			tree: map[string]string{
				"real/pdf/SKILL.md": skill("pdf", "PDF."),
				"skills":            "-> real",
			},
			roots: oneRoot("skills"),
			want:  []rec{with(enabled("pdf", "pdf", "PDF."), func(r *rec) { r.RealDir = "real/pdf" })},
		},
		{
			name: "symlink loop",
			tree: map[string]string{
				"skills/cat/a/SKILL.md": skill("a", "A."),
				"skills/cat/loop":       "-> ..",
				"skills/self":           "-> .",
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("cat/a", "a", "A.")},
			diags: []dg{
				{pipeline.SeverityInfo, "symlink-loop", "skills/cat/loop", 0},
				{pipeline.SeverityInfo, "symlink-loop", "skills/self", 0},
			},
		},
		{
			// The loop guard is only built when the walk follows its first
			// symlink (see walker.seen): the folder the link leads to, met
			// again later under its own name, is not walked twice.
			name: "symlink to a folder walked later",
			tree: map[string]string{
				"skills/z/s/SKILL.md": skill("s", "S."),
				"skills/a-link":       "-> z",
			},
			roots: oneRoot("skills"),
			want:  []rec{with(enabled("a-link/s", "s", "S."), func(r *rec) { r.RealDir = "skills/z/s" })},
		},
		{
			name: "broken symlinks",
			tree: map[string]string{
				"skills/dangling":    "-> ../nowhere",
				"skills/ok/SKILL.md": skill("ok", "OK."),
				"skills/to-file":     "-> ok/SKILL.md",
				"skills/x":           "-> y",
				"skills/y":           "-> x",
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("ok", "ok", "OK.")},
			diags: []dg{
				{pipeline.SeverityWarning, "broken-symlink", "skills/dangling", 0},
				{pipeline.SeverityWarning, "broken-symlink", "skills/x", 0},
				{pipeline.SeverityWarning, "broken-symlink", "skills/y", 0},
			},
		},
		{
			name: "max depth",
			tree: map[string]string{
				"skills/a/b/c/SKILL.md": skill("c", "Too deep."),
				"skills/a/b2/SKILL.md":  skill("b2", "Depth two."),
				"skills/x/SKILL.md":     skill("x", "Depth one."),
				"skills/z/y/w/SKILL.md": skill("w", "Also too deep."),
			},
			roots: oneRoot("skills"),
			opt:   Options{MaxDepth: 2},
			want: []rec{
				enabled("a/b2", "b2", "Depth two."),
				enabled("x", "x", "Depth one."),
			},
			diags:   []dg{{pipeline.SeverityInfo, "depth-limit", "skills/a/b/c", 0}},
			reports: []rep{{true, 2}},
		},
		{
			name: "default max depth is 6",
			tree: map[string]string{
				"skills/1/2/3/4/5/6/SKILL.md":    skill("six", "Six deep."),
				"skills/1/2/3/4/5/6b/7/SKILL.md": skill("seven", "Seven deep."),
			},
			roots: oneRoot("skills"),
			want:  []rec{enabled("1/2/3/4/5/6", "six", "Six deep.")},
			diags: []dg{{pipeline.SeverityInfo, "depth-limit", "skills/1/2/3/4/5/6b/7", 0}},
		},
		{
			name: "max dirs",
			tree: map[string]string{
				"skills/a/SKILL.md": skill("a", "A."),
				"skills/b/SKILL.md": skill("b", "B."),
				"skills/c/SKILL.md": skill("c", "C."),
				"skills/d/SKILL.md": skill("d", "D."),
				"skills/e/SKILL.md": skill("e", "E."),
			},
			roots: func(base string) []pipeline.Root {
				return []pipeline.Root{root(base, "skills"), root(base, "skills/e")}
			},
			opt: Options{MaxDirs: 3},
			want: []rec{
				enabled("a", "a", "A."),
				enabled("b", "b", "B."),
				with(enabled("e", "e", "E."), func(r *rec) { r.Root = "skills/e" }), // the limit is per root
			},
			diags:   []dg{{pipeline.SeverityWarning, "walk-limit", "skills", 0}},
			reports: []rep{{true, 2}, {true, 1}},
		},
		{
			name: "explicit skills list",
			tree: map[string]string{
				"repo/skills/a/SKILL.md":      skill("a", "A."),
				"repo/skills/b/SKILL.md":      skill("b", "B (not declared)."),
				"repo/skills/c/.SKILL.md":     skill("c", "C."),
				"repo/skills/d/deep/SKILL.md": skill("d", "Not read: declared folders are not walked."),
				"repo/skills/f":               "a file",
				"outside/x/SKILL.md":          skill("x", "Absolute."),
			},
			roots: func(base string) []pipeline.Root {
				r := root(base, "repo")
				r.Skills = []string{"./skills/a", "skills/c", filepath.Join(base, "outside/x"), "skills/missing", "skills/d", "skills/f"}
				return []pipeline.Root{r}
			},
			want: []rec{
				{Name: "a", Description: "A.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "repo/skills/a", File: "repo/skills/a/SKILL.md", RealDir: "repo/skills/a", Root: "repo"},
				{Name: "c", Description: "C.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "repo/skills/c", File: "repo/skills/c/.SKILL.md", RealDir: "repo/skills/c", Root: "repo",
					Disabled: true},
				{Name: "x", Description: "Absolute.", Provider: "claude", Location: pipeline.LocationUser,
					Dir: "outside/x", File: "outside/x/SKILL.md", RealDir: "outside/x", Root: "repo"},
			},
			diags: []dg{
				{pipeline.SeverityWarning, "declared-skill-missing", "repo/skills/missing", 0},
				{pipeline.SeverityWarning, "declared-skill-missing", "repo/skills/d", 0},
				{pipeline.SeverityWarning, "folder-unreadable", "repo/skills/f", 0},
			},
			reports: []rep{{true, 3}},
		},
		{
			name: "broken skills become diagnostics, the others still load",
			tree: map[string]string{
				"skills/bad/SKILL.md":    "---\nname: bad\n{description: [\n---\n",
				"skills/blank/SKILL.md":  "\n" + skill("blank", "Leading blank."),
				"skills/bom/SKILL.md":    "\ufeff" + skill("bom", "BOM."),
				"skills/colon/SKILL.md":  "---\nname: colon\ndescription: Use when: x\n---\n",
				"skills/crlf/SKILL.md":   "---\r\nname: crlf\r\ndescription: >-\r\n  Folded\r\n  lines.\r\n---\r\n",
				"skills/dir/SKILL.md/":   "",
				"skills/good/SKILL.md":   skill("good", "  Spaced\tout  "),
				"skills/huge/SKILL.md":   bigFront,
				"skills/nodesc/SKILL.md": "---\nname: nodesc\n---\n",
				"skills/nofm/SKILL.md":   "# just markdown\n",
				"skills/open/SKILL.md":   "---\nname: open\ndescription: x\n",
				"skills/typed/SKILL.md":  "---\nname: 123\ndescription: Typed.\n---\n",
			},
			roots: oneRoot("skills"),
			want: []rec{
				with(enabled("blank", "blank", "Leading blank."), func(r *rec) { r.Diags = []string{"leading-blank-line"} }),
				with(enabled("bom", "bom", "BOM."), func(r *rec) { r.Diags = []string{"byte-order-mark"} }),
				with(enabled("colon", "colon", "Use when: x"), func(r *rec) { r.Diags = []string{"unquoted-colon"} }),
				enabled("crlf", "crlf", "Folded lines."),
				enabled("good", "good", "Spaced out"),
				with(enabled("typed", "123", "Typed."), func(r *rec) { r.Diags = []string{"typed-scalar"} }),
			},
			diags: []dg{
				{pipeline.SeverityError, "yaml-syntax", "skills/bad/SKILL.md", 3},
				{pipeline.SeverityWarning, "leading-blank-line", "skills/blank/SKILL.md", 1},
				{pipeline.SeverityWarning, "byte-order-mark", "skills/bom/SKILL.md", 1},
				{pipeline.SeverityWarning, "unquoted-colon", "skills/colon/SKILL.md", 3},
				{pipeline.SeverityError, "unreadable", "skills/dir/SKILL.md", 0},
				{pipeline.SeverityError, "frontmatter-too-large", "skills/huge/SKILL.md", 1},
				{pipeline.SeverityError, "description-missing", "skills/nodesc/SKILL.md", 2},
				{pipeline.SeverityError, "no-frontmatter", "skills/nofm/SKILL.md", 1},
				{pipeline.SeverityError, "unclosed-frontmatter", "skills/open/SKILL.md", 1},
				{pipeline.SeverityWarning, "typed-scalar", "skills/typed/SKILL.md", 2},
			},
			reports: []rep{{true, 6}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tc.tree)
			testfs.Age(t, base, time.Hour)
			roots := tc.roots(base)
			res := Scan(context.Background(), roots, tc.opt)
			recs, diags, reps := summarize(base, res)
			if diff := cmp.Diff(tc.want, recs); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.diags, diags); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if tc.reports != nil {
				if diff := cmp.Diff(tc.reports, reps); diff != "" {
					t.Errorf("reports (-want +got):\n%s", diff)
				}
			}
			if len(res.Reports) != len(roots) {
				t.Fatalf("%d reports for %d roots", len(res.Reports), len(roots))
			}
			for i, r := range res.Reports {
				if diff := cmp.Diff(roots[i], r.Root); diff != "" {
					t.Errorf("report %d root (-want +got):\n%s", i, diff)
				}
			}
			checkDiagnostics(t, roots, res)
			checkRecords(t, res)
		})
	}
}

// checkDiagnostics checks what every diagnostic must carry.
func checkDiagnostics(t *testing.T, roots []pipeline.Root, res Result) {
	t.Helper()
	providers := map[string]bool{}
	for _, r := range roots {
		providers[r.Agent] = true
	}
	for _, d := range res.Diagnostics {
		if d.Message == "" || d.Path == "" || !providers[d.Provider] {
			t.Errorf("diagnostic lacks message, path or provider: %+v", d)
		}
		if d.Severity == pipeline.SeverityError && d.Code != "unreadable" && !strings.HasSuffix(d.Message, "(skill not loaded)") {
			t.Errorf("error diagnostic does not say the skill was not loaded: %+v", d)
		}
		if d.Severity != pipeline.SeverityError && strings.Contains(d.Message, "(skill not loaded)") {
			t.Errorf("non-error diagnostic says the skill was not loaded: %+v", d)
		}
	}
}

// checkRecords checks the record fields the table does not list.
func checkRecords(t *testing.T, res Result) {
	t.Helper()
	for _, r := range res.Records {
		if r.ID != "" {
			t.Errorf("%s: scan assigned id %q", r.Name, r.ID)
		}
		st, err := os.Stat(r.File)
		if err != nil {
			t.Errorf("%s: %v", r.Name, err)
			continue
		}
		if r.Size != st.Size() || !r.ModTime.Equal(st.ModTime()) {
			t.Errorf("%s: size/mtime %d %v, want %d %v", r.Name, r.Size, r.ModTime, st.Size(), st.ModTime())
		}
		if r.Description != strings.Join(strings.Fields(r.Description), " ") {
			t.Errorf("%s: description %q is not folded", r.Name, r.Description)
		}
	}
}

// TestScanUnreadableFolder checks that a folder that cannot be read is
// reported and its siblings still load. Root can read a chmod 000 folder,
// so there a file stands where a folder is expected instead.
func TestScanUnreadableFolder(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skills/a/SKILL.md":        skill("a", "A."),
		"skills/locked/x/SKILL.md": skill("x", "Locked away."),
		"skills/z/SKILL.md":        skill("z", "Z."),
	})
	testfs.Age(t, base, time.Hour)
	r := root(base, "skills")
	wantPath := "skills/locked"
	if os.Geteuid() == 0 {
		// A declared skill folder that is a file cannot be listed.
		testfs.Write(t, base, map[string]string{"skills/not-a-folder": "file"})
		testfs.Age(t, base, time.Hour)
		r.Skills = []string{"a", "not-a-folder", "z"}
		wantPath = "skills/not-a-folder"
	} else {
		locked := filepath.Join(base, "skills", "locked")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(locked, 0o755) })
	}
	res := Scan(context.Background(), []pipeline.Root{r}, Options{})
	recs, diags, _ := summarize(base, res)
	want := []rec{enabled("a", "a", "A."), enabled("z", "z", "Z.")}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	wantDiags := []dg{{pipeline.SeverityWarning, "folder-unreadable", wantPath, 0}}
	if diff := cmp.Diff(wantDiags, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestScanCache(t *testing.T) {
	base := testfs.TempDir(t)
	tree := map[string]string{
		"skills/bad/SKILL.md":       "---\nname: bad\n---\n",
		"skills/colon/SKILL.md":     "---\nname: colon\ndescription: Use when: x\n---\n",
		"skills/off/.SKILL.md":      skill("off", "Off."),
		"skills/one/SKILL.md":       skill("one", "One."),
		"skills/two/SKILL.md":       skill("two", "Two."),
		"skills/cat/three/SKILL.md": skill("three", "Three."),
	}
	testfs.Write(t, base, tree)
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{root(base, "skills")}
	ctx := context.Background()

	first := Scan(ctx, roots, Options{})
	if first.FilesRead != len(tree) {
		t.Fatalf("first scan read %d files, want %d", first.FilesRead, len(tree))
	}
	if first.Cache.Len() != len(tree) {
		t.Errorf("cache holds %d files, want %d (failed skills are cached too)", first.Cache.Len(), len(tree))
	}

	second := Scan(ctx, roots, Options{Cache: first.Cache})
	if second.FilesRead != 0 {
		t.Errorf("unchanged rescan read %d files, want 0", second.FilesRead)
	}
	if diff := cmp.Diff(first.Records, second.Records); diff != "" {
		t.Errorf("cached records differ (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(first.Diagnostics, second.Diagnostics); diff != "" {
		t.Errorf("cached diagnostics differ (-first +second):\n%s", diff)
	}

	// Change one file: new content and a new mtime.
	file := filepath.Join(base, "skills", "two", "SKILL.md")
	if err := os.WriteFile(file, []byte(skill("two", "Two, edited.")), 0o644); err != nil {
		t.Fatal(err)
	}
	// Times in the past: a file changed within the last two seconds is
	// "racy" and read on every scan, which is not what is tested here.
	mtime := time.Now().Add(-30 * time.Minute).Truncate(time.Second)
	if err := os.Chtimes(file, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	third := Scan(ctx, roots, Options{Cache: second.Cache})
	if third.FilesRead != 1 {
		t.Errorf("rescan after one edit read %d files, want 1", third.FilesRead)
	}
	var got string
	for _, r := range third.Records {
		if r.Name == "two" {
			got = r.Description
			if !r.ModTime.Equal(mtime) {
				t.Errorf("ModTime = %v, want %v", r.ModTime, mtime)
			}
		}
	}
	if got != "Two, edited." {
		t.Errorf("edited description = %q", got)
	}

	// Same size, only the mtime moves: the file is read again.
	if err := os.WriteFile(file, []byte(skill("two", "Two, EDITED.")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, mtime.Add(time.Minute), mtime.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	fourth := Scan(ctx, roots, Options{Cache: third.Cache})
	if fourth.FilesRead != 1 {
		t.Errorf("rescan after a same-size edit read %d files, want 1", fourth.FilesRead)
	}

	// A removed file leaves the cache; the others are still served from it.
	if err := os.RemoveAll(filepath.Join(base, "skills", "one")); err != nil {
		t.Fatal(err)
	}
	fifth := Scan(ctx, roots, Options{Cache: fourth.Cache})
	if fifth.FilesRead != 0 || fifth.Cache.Len() != len(tree)-1 {
		t.Errorf("after a removal: read %d files, cache %d; want 0 and %d", fifth.FilesRead, fifth.Cache.Len(), len(tree)-1)
	}
}

// manySkills writes n skills spread over categories under base/skills and
// a few under base/other, with some broken ones.
func manySkills(t *testing.T, base string, n int) []pipeline.Root {
	t.Helper()
	tree := map[string]string{}
	for i := range n {
		dir := fmt.Sprintf("skills/cat%02d/s%03d", i%17, i)
		switch i % 50 {
		case 7:
			tree[dir+"/SKILL.md"] = "---\nname: broken\n---\n"
		case 13:
			tree[dir+"/.SKILL.md"] = skill(fmt.Sprintf("s%03d", i), "Disabled.")
		default:
			tree[dir+"/SKILL.md"] = skill(fmt.Sprintf("s%03d", i), fmt.Sprintf("Skill number %d.", i))
		}
	}
	for i := range 20 {
		tree[fmt.Sprintf("other/o%02d/SKILL.md", i)] = skill(fmt.Sprintf("o%02d", i), "Other.")
	}
	testfs.Write(t, base, tree)
	testfs.Age(t, base, time.Hour)
	return []pipeline.Root{root(base, "skills"), root(base, "missing"), root(base, "other")}
}

func TestScanDeterministicAcrossWorkers(t *testing.T) {
	base := testfs.TempDir(t)
	roots := manySkills(t, base, 300)
	ctx := context.Background()
	ref := Scan(ctx, roots, Options{Workers: 1})
	if len(ref.Records) != 300-6+20 { // 6 broken (i%50==7); disabled ones still load
		t.Errorf("got %d records", len(ref.Records))
	}
	for _, workers := range []int{1, 3, 0, 16} {
		for run := range 3 {
			got := Scan(ctx, roots, Options{Workers: workers})
			if diff := cmp.Diff(ref.Records, got.Records); diff != "" {
				t.Fatalf("workers=%d run %d: records differ (-ref +got):\n%s", workers, run, diff)
			}
			if diff := cmp.Diff(ref.Diagnostics, got.Diagnostics); diff != "" {
				t.Fatalf("workers=%d run %d: diagnostics differ (-ref +got):\n%s", workers, run, diff)
			}
			if diff := cmp.Diff(ref.Reports, got.Reports); diff != "" {
				t.Fatalf("workers=%d run %d: reports differ (-ref +got):\n%s", workers, run, diff)
			}
			if got.FilesRead != ref.FilesRead {
				t.Fatalf("workers=%d: read %d files, want %d", workers, got.FilesRead, ref.FilesRead)
			}
		}
	}
	// Records come in root order, then path order within the root.
	for i := 1; i < len(ref.Records); i++ {
		a, b := ref.Records[i-1], ref.Records[i]
		if a.Root == b.Root && a.Dir >= b.Dir {
			t.Errorf("records out of path order: %s before %s", a.Dir, b.Dir)
		}
	}
	// A cached rescan with several workers gives the same result again.
	cached := Scan(ctx, roots, Options{Workers: 3, Cache: ref.Cache})
	if cached.FilesRead != 0 {
		t.Errorf("cached rescan read %d files", cached.FilesRead)
	}
	if diff := cmp.Diff(ref.Records, cached.Records); diff != "" {
		t.Errorf("cached records differ (-ref +got):\n%s", diff)
	}
}

// TestScanCancelled checks that a cancelled scan returns instead of
// panicking on skills it never parsed.
func TestScanCancelled(t *testing.T) {
	base := testfs.TempDir(t)
	roots := manySkills(t, base, 60)
	declared := root(base, "skills")
	declared.Skills = []string{"cat00/s000", "cat01/s001"}
	roots = append(roots, declared)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Scan(ctx, roots, Options{Workers: 2})
	if len(res.Reports) != len(roots) {
		t.Errorf("%d reports for %d roots", len(res.Reports), len(roots))
	}
	for _, r := range res.Records {
		if r.Description == "" {
			t.Errorf("record %s was not parsed", r.Dir)
		}
	}
}

// TestScanRelativeRoot checks that a root given as a relative path gets
// absolute RealDirs and that the loop guard still sees a symlink back to
// the root, given as an absolute path, as a loop.
func TestScanRelativeRoot(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"skills/a/SKILL.md": skill("a", "A."),
		"skills/cat/loop":   "-> " + filepath.Join(base, "skills"),
	})
	testfs.Age(t, base, time.Hour)
	t.Chdir(base)
	r := root(base, "skills")
	r.Path = "skills"
	declared := r
	declared.Skills = []string{"a"}
	res := Scan(context.Background(), []pipeline.Root{r, declared}, Options{})
	type got struct{ Dir, RealDir string }
	var recs []got
	for _, rec := range res.Records {
		recs = append(recs, got{rec.Dir, rec.RealDir})
	}
	abs := filepath.Join(base, "skills", "a")
	want := []got{{"skills/a", abs}, {"skills/a", abs}}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	_, diags, _ := summarize(base, res)
	wantDiags := []dg{{pipeline.SeverityInfo, "symlink-loop", "skills/cat/loop", 0}}
	if diff := cmp.Diff(wantDiags, diags); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}
