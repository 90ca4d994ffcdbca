package validate

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/report"
)

// BenchmarkValidate10k validates a generated tree of 10,000 skills (1 to
// 20 KB bodies, CJK text, broken and disabled skills, duplicates): the
// walk, reading every file, the frontmatter, the body and the tree checks.
//
//	go test -run '^$' -bench Validate10k -benchtime 2x ./validate/
func BenchmarkValidate10k(b *testing.B) {
	tree, err := fixture.Generate(b.TempDir(), 10000, 1)
	if err != nil {
		b.Fatal(err)
	}
	// Home holds the user skills under .claude/skills, .codex/skills, ...
	// (found because a PATH's hidden folders are searched), the workspace
	// its own, and the plugin cache the rest.
	paths := []string{tree.Home, tree.Workspace, filepath.Join(tree.Home, ".claude", "plugins", "cache")}
	var rep *report.Report
	for b.Loop() {
		targets, pre, err := Collect(context.Background(), paths, KindSkill)
		if err != nil {
			b.Fatal(err)
		}
		rep, _ = Run(context.Background(), targets, pre, Options{Profile: ProfileStrict})
	}
	if rep.Skills != tree.Skills {
		b.Fatalf("checked %d skills, the tree has %d", rep.Skills, tree.Skills)
	}
	errs, warns, _, _, _ := rep.Counts()
	b.ReportMetric(float64(rep.Skills), "skills/op")
	b.ReportMetric(float64(errs+warns), "findings/op")
}
