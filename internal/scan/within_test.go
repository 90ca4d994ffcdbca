package scan

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestScanRootWithin: a root's own bound (pipeline.Root.Within) keeps its
// walk in: a symlinked folder, a declared skill folder or the root itself
// that resolves outside is not read, with a warning naming it, while a
// root with no bound still follows its links (and another root in the
// same scan is not bounded by it).
func TestScanRootWithin(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"out/secret/SKILL.md":      skill("secret", "Outside the checkout."),
		"tree/skills/pdf/SKILL.md": skill("pdf", "Inside."),
		"tree/skills/up":           "-> ../../out",
		"tree/skills/in":           "-> pdf",
		"tree/linked":              "-> ../out",
	})
	tree := filepath.Join(base, "tree")
	bounded := pipeline.Root{Path: filepath.Join(tree, "skills"), Within: tree, Agent: "git", Provider: "git"}
	free := pipeline.Root{Path: filepath.Join(tree, "skills"), Agent: "custom", Provider: "custom"}
	for _, tc := range []struct {
		name  string
		roots []pipeline.Root
		want  []string // the names read
		warn  string   // a warning's path, under base
	}{
		{"bounded", []pipeline.Root{bounded}, []string{"pdf"}, "tree/skills/up"},
		{"unbounded", []pipeline.Root{free}, []string{"pdf", "secret"}, ""},
		{"root leading out", []pipeline.Root{{Path: filepath.Join(tree, "linked"), Within: tree, Provider: "git"}}, nil, "tree/linked"},
		{"declared leading out", []pipeline.Root{{Path: filepath.Join(tree, "skills"), Within: tree, Provider: "git",
			Skills: []string{"pdf", "up/secret"}}}, []string{"pdf"}, "tree/skills/up/secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Scan(context.Background(), tc.roots, DefaultOptions())
			var names []string
			for _, r := range res.Records {
				names = append(names, r.Name)
			}
			slices.Sort(names)
			names = slices.Compact(names)
			if !slices.Equal(names, tc.want) {
				t.Errorf("read %v, want %v", names, tc.want)
			}
			if tc.warn == "" {
				return
			}
			found := false
			for _, d := range res.Diagnostics {
				if d.Path == filepath.Join(base, filepath.FromSlash(tc.warn)) && strings.Contains(d.Message, "outside "+tree) {
					found = true
				}
			}
			if !found {
				t.Errorf("diagnostics %+v hold no warning that %s leads outside %s", res.Diagnostics, tc.warn, tree)
			}
		})
	}
}
