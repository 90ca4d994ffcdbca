package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// cmdRec is the part of a command record the tables compare, with paths
// relative to the temp dir.
type cmdRec struct {
	Name, Description, Hint string
	Dir, File, RealDir      string
	Diags                   []string
}

func summarizeCommands(t *testing.T, base string, res Result) []cmdRec {
	t.Helper()
	var out []cmdRec
	for _, r := range res.Records {
		if !r.IsCommand() {
			t.Errorf("record %s from a command root has type %q", r.Name, r.Type)
		}
		x := cmdRec{Name: r.Name, Description: r.Description, Hint: r.ArgumentHint,
			Dir: rel(base, r.Dir), File: rel(base, r.File), RealDir: rel(base, r.RealDir)}
		for _, d := range r.Diagnostics {
			x.Diags = append(x.Diags, d.Code)
		}
		out = append(out, x)
	}
	return out
}

// cmdRoot is a command root at base/path.
func cmdRoot(base, path string) pipeline.Root {
	return pipeline.Root{Path: filepath.Join(base, filepath.FromSlash(path)), Agent: "claude", Provider: "commands",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Type: pipeline.TypeCommand, Optional: true}
}

func cmdIn(dir, name, desc string) cmdRec {
	file := "cmds/" + name + ".md"
	d := "cmds"
	if dir != "" {
		d = "cmds/" + dir
		file = d + "/" + filepath.Base(strings.ReplaceAll(name, ":", "/")) + ".md"
	}
	return cmdRec{Name: name, Description: desc, Dir: d, File: file, RealDir: d}
}

func TestScanCommands(t *testing.T) {
	deep := "cmds/a/b/c/d/e/f/g/deep.md"
	tests := []struct {
		name    string
		tree    map[string]string
		roots   func(base string) []pipeline.Root
		opt     Options
		want    []cmdRec
		diags   []dg
		reports []rep
	}{
		{
			name: "names from paths; frontmatter optional; description falls back to the first line",
			tree: map[string]string{
				"cmds/sp.specify.md":         "---\ndescription: Write a spec.\nargument-hint: <feature>\n---\nSpecify $ARGUMENTS\n",
				"cmds/frontend/review.md":    "\n# Review the frontend\n\nBody\n",
				"cmds/frontend/a11y/aria.md": "Check ARIA roles.\n",
				"cmds/notes.txt":             "not a command",
				"cmds/README":                "not a command",
			},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			want: []cmdRec{
				with2(cmdIn("", "sp.specify", "Write a spec."), func(r *cmdRec) { r.Hint = "<feature>" }),
				// Files come before sub-folders, each in name order.
				cmdIn("frontend", "frontend:review", "Review the frontend"),
				cmdIn("frontend/a11y", "frontend:a11y:aria", "Check ARIA roles."),
			},
			reports: []rep{{true, 3}},
		},
		{
			name: "hidden files and folders, node_modules and SKILL.md are not commands",
			tree: map[string]string{
				"cmds/.hidden.md":        "Hidden.",
				"cmds/.drafts/x.md":      "Hidden folder.",
				"cmds/node_modules/y.md": "Module.",
				"cmds/skill/SKILL.md":    skill("skill", "A skill, not a command."),
				"cmds/skill/usage.md":    "Usage notes.",
				"cmds/ok.md":             "Visible.",
			},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			want:  []cmdRec{cmdIn("", "ok", "Visible."), cmdIn("skill", "skill:usage", "Usage notes.")},
		},
		{
			name: "a flat root reads top-level files only",
			tree: map[string]string{
				"cmds/top.md":        "Top.",
				"cmds/nested/sub.md": "Never read.",
			},
			roots: func(b string) []pipeline.Root {
				r := cmdRoot(b, "cmds")
				r.Flat, r.Agent = true, "codex"
				return []pipeline.Root{r}
			},
			want:    []cmdRec{cmdIn("", "top", "Top.")},
			reports: []rep{{true, 1}},
		},
		{
			name: "malformed frontmatter skips that file with a warning naming it; the others load",
			tree: map[string]string{
				"cmds/a-good.md":     "---\ndescription: Good.\n---\n",
				"cmds/b-unclosed.md": "---\ndescription: Never closed.\nBody\n",
				"cmds/c-badyaml.md":  "---\ndescription: \"open\n---\nBody\n",
				"cmds/d-good.md":     "Also good.",
			},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			want:  []cmdRec{cmdIn("", "a-good", "Good."), cmdIn("", "d-good", "Also good.")},
			diags: []dg{
				{pipeline.SeverityWarning, "command-unclosed-frontmatter", "cmds/b-unclosed.md", 1},
				{pipeline.SeverityWarning, "command-yaml-syntax", "cmds/c-badyaml.md", 3},
			},
			reports: []rep{{true, 2}},
		},
		{
			name: "a recoverable problem is attached to the record",
			tree: map[string]string{
				"cmds/issue.md": "---\nargument-hint: [issue] [priority]\n---\nFix issue $1.\n",
			},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			want: []cmdRec{{Name: "issue", Description: "Fix issue $1.", Hint: "[issue] [priority]",
				Dir: "cmds", File: "cmds/issue.md", RealDir: "cmds", Diags: []string{"command-argument-hint-unquoted"}}},
			diags: []dg{{pipeline.SeverityWarning, "command-argument-hint-unquoted", "cmds/issue.md", 2}},
		},
		{
			name: "missing and empty roots give nothing and no problem",
			tree: map[string]string{"empty/": ""},
			roots: func(b string) []pipeline.Root {
				return []pipeline.Root{cmdRoot(b, "missing"), cmdRoot(b, "empty")}
			},
			reports: []rep{{false, 0}, {true, 0}},
		},
		{
			name: "a missing root that is not optional is reported as a command root",
			roots: func(b string) []pipeline.Root {
				r := cmdRoot(b, "missing")
				r.Optional = false
				return []pipeline.Root{r}
			},
			diags:   []dg{{pipeline.SeverityWarning, "root-missing", "missing", 0}},
			reports: []rep{{false, 0}},
		},
		{
			name: "a root that is one .md file is one command, with the plugin prefix",
			tree: map[string]string{"plugin/extra/hello.md": "Say hello.", "plugin/extra/other.md": "Not listed."},
			roots: func(b string) []pipeline.Root {
				r := cmdRoot(b, "plugin/extra/hello.md")
				r.Prefix = "tools"
				return []pipeline.Root{r}
			},
			want:    []cmdRec{{Name: "tools:hello", Description: "Say hello.", Dir: "plugin/extra", File: "plugin/extra/hello.md", RealDir: "plugin/extra"}},
			reports: []rep{{true, 1}},
		},
		{
			name: "a root that is another kind of file is reported",
			tree: map[string]string{"plugin/notes.txt": "x"},
			roots: func(b string) []pipeline.Root {
				return []pipeline.Root{cmdRoot(b, "plugin/notes.txt")}
			},
			diags:   []dg{{pipeline.SeverityWarning, "root-not-folder", "plugin/notes.txt", 0}},
			reports: []rep{{false, 0}},
		},
		{
			name: "symlinks: a linked file is a command, a linked folder nests, a broken link is reported",
			tree: map[string]string{
				"shared/lint.md":      "Lint the code.",
				"shared/team/plan.md": "Plan the work.",
				"cmds/lint.md":        "-> ../shared/lint.md",
				"cmds/team":           "-> ../shared/team",
				"cmds/gone.md":        "-> ../shared/nothing.md",
			},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			want: []cmdRec{
				cmdIn("", "lint", "Lint the code."),
				{Name: "team:plan", Description: "Plan the work.", Dir: "cmds/team", File: "cmds/team/plan.md", RealDir: "shared/team"},
			},
			diags: []dg{{pipeline.SeverityWarning, "broken-symlink", "cmds/gone.md", 0}},
		},
		{
			name:  "the depth bound applies",
			tree:  map[string]string{"cmds/top.md": "Top.", deep: "Too deep."},
			roots: func(b string) []pipeline.Root { return []pipeline.Root{cmdRoot(b, "cmds")} },
			opt:   Options{MaxDepth: 3},
			want:  []cmdRec{cmdIn("", "top", "Top.")},
			diags: []dg{{pipeline.SeverityInfo, "depth-limit", "cmds/a/b/c/d", 0}},
		},
		{
			name: "a command root and a skill root side by side",
			tree: map[string]string{
				"cmds/go.md":           "Go.",
				"skills/pdf/SKILL.md":  skill("pdf", "PDF."),
				"skills/pdf/README.md": "Not a command: this is a skill root.",
			},
			roots: func(b string) []pipeline.Root {
				return []pipeline.Root{root(b, "skills"), cmdRoot(b, "cmds")}
			},
			want:    []cmdRec{cmdIn("", "go", "Go.")},
			reports: []rep{{true, 1}, {true, 1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, tt.tree)
			testfs.Age(t, base, time.Hour)
			res := Scan(context.Background(), tt.roots(base), tt.opt)
			var cmds Result
			for _, r := range res.Records {
				if r.IsCommand() {
					cmds.Records = append(cmds.Records, r)
				}
			}
			if d := cmp.Diff(tt.want, summarizeCommands(t, base, cmds)); d != "" {
				t.Errorf("commands (-want +got):\n%s", d)
			}
			_, diags, reports := summarize(base, res)
			if d := cmp.Diff(tt.diags, diags); d != "" {
				t.Errorf("diagnostics (-want +got):\n%s", d)
			}
			for _, d := range res.Diagnostics {
				if d.Message == "" {
					t.Errorf("diagnostic %s without a message", d.Code)
				}
				if d.Severity == pipeline.SeverityWarning && strings.HasSuffix(d.Path, ".md") &&
					d.Code != "broken-symlink" && d.Code != "command-argument-hint-unquoted" && !strings.Contains(d.Message, "(command skipped)") {
					t.Errorf("diagnostic %s on %s does not say the command is skipped: %s", d.Code, d.Path, d.Message)
				}
			}
			if tt.reports != nil {
				if d := cmp.Diff(tt.reports, reports); d != "" {
					t.Errorf("reports (-want +got):\n%s", d)
				}
			}
		})
	}
}

func with2(r cmdRec, f func(*cmdRec)) cmdRec { f(&r); return r }

// TestScanCommandsCache checks that a rescan reads only the command files
// whose size or time changed, and that edits, additions and removals show.
func TestScanCommandsCache(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"cmds/a.md":     "---\ndescription: A.\n---\n",
		"cmds/sub/b.md": "B.",
	})
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{cmdRoot(base, "cmds")}
	first := Scan(context.Background(), roots, Options{})
	if first.FilesRead != 2 || len(first.Records) != 2 {
		t.Fatalf("first scan read %d files, found %d records; want 2 and 2", first.FilesRead, len(first.Records))
	}
	again := Scan(context.Background(), roots, Options{Cache: first.Cache})
	if again.FilesRead != 0 {
		t.Errorf("unchanged rescan read %d files, want 0", again.FilesRead)
	}
	if d := cmp.Diff(names(first), names(again)); d != "" {
		t.Errorf("cached rescan changed the records (-first +again):\n%s", d)
	}

	// Edit a (new size, old time kept aside), add c, remove b.
	old := time.Now().Add(-30 * time.Minute)
	mustWrite(t, filepath.Join(base, "cmds/a.md"), "---\ndescription: A, edited.\n---\n", old)
	mustWrite(t, filepath.Join(base, "cmds/c.md"), "C.", old)
	if err := os.Remove(filepath.Join(base, "cmds/sub/b.md")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"cmds", "cmds/sub"} {
		if err := os.Chtimes(filepath.Join(base, d), old, old); err != nil {
			t.Fatal(err)
		}
	}
	third := Scan(context.Background(), roots, Options{Cache: again.Cache})
	if third.FilesRead != 2 {
		t.Errorf("rescan after an edit and an addition read %d files, want 2", third.FilesRead)
	}
	got := map[string]string{}
	for _, r := range third.Records {
		got[r.Name] = r.Description
	}
	if d := cmp.Diff(map[string]string{"a": "A, edited.", "c": "C."}, got); d != "" {
		t.Errorf("records after the changes (-want +got):\n%s", d)
	}
}

// TestScanCacheKeepsTypesApart checks that a file read as a command is not
// served from the cache as a SKILL.md, or the other way round.
func TestScanCacheKeepsTypesApart(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"x/SKILL.md": skill("x", "A skill.")})
	testfs.Age(t, base, time.Hour)
	skillRoot := root(base, "")
	first := Scan(context.Background(), []pipeline.Root{skillRoot}, Options{})
	file := filepath.Join(base, "x", "SKILL.md")
	e := first.Cache.m[file]
	if e == nil || e.command != nil {
		t.Fatalf("cache entry of the skill file: %+v", e)
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if first.Cache.get(file, stampOf(st), true) != nil {
		t.Error("a SKILL.md entry was served to a command read")
	}
	if first.Cache.get(file, stampOf(st), false) == nil {
		t.Error("the SKILL.md entry was not served to a skill read")
	}
}

func names(res Result) []string {
	var out []string
	for _, r := range res.Records {
		out = append(out, r.Name+"="+r.Description)
	}
	slices.Sort(out)
	return out
}

func mustWrite(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	testfs.Write(t, filepath.Dir(path), map[string]string{filepath.Base(path): content})
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestScanCommandFoldersAreWatchable checks that every command folder
// walked is in Dirs, so the watcher sees files appear there.
func TestScanCommandFoldersAreWatchable(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"cmds/a.md": "A.", "cmds/sub/b.md": "B.", "single/one.md": "One."})
	testfs.Age(t, base, time.Hour)
	res := Scan(context.Background(), []pipeline.Root{cmdRoot(base, "cmds"), cmdRoot(base, "single/one.md")}, Options{})
	var got []string
	for _, d := range res.Dirs {
		got = append(got, rel(base, d))
	}
	slices.Sort(got)
	if d := cmp.Diff([]string{"cmds", "cmds/sub", "single"}, got); d != "" {
		t.Errorf("Dirs (-want +got):\n%s", d)
	}
}
