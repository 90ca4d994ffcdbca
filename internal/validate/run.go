package validate

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark/parser"
	"golang.org/x/text/unicode/norm"

	"github.com/ccski/ccski/internal/parallel"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// Options control a validation run.
type Options struct {
	Profile Profile
	// Fix applies the safe mechanical fixes (see Fix) before checking.
	Fix bool
	// DryRun, with Fix, computes the fixes and their diffs and checks the
	// fixed content, but writes nothing.
	DryRun bool
	// Workers bounds the files checked at once; 0 uses GOMAXPROCS.
	Workers int
	// Managed are the folders --fix must not write in (see ManagedTrees).
	// A file there is checked as it is; its FileFix has Refused set and a
	// managed-tree finding says what was left undone and why.
	Managed []ManagedTree
	// ByHost judges each target by the hosts that read it (Target.Rules):
	// a finding has the highest severity any of their profiles gives it
	// (Profile for a target no host reads), and a finding in a Managed
	// tree is at most a warning, since the user cannot fix it there.
	ByHost bool
}

// ProfileByHost is the report's profile name when Options.ByHost judges
// each skill by the hosts that read it.
const ProfileByHost = "host"

// FileFix is what --fix did (or, with DryRun, would do) to one file.
type FileFix struct {
	File string
	// Changes has one sentence per kind of change.
	Changes []string
	// Before and After are the file's content; After is what was (or
	// would be) written.
	Before, After []byte
	// Err is set when the fixed content could not be written.
	Err error
	// Refused is set when the file lies in a managed tree: nothing was
	// (or, with DryRun, would be) written.
	Refused *ManagedTree
}

// result is the outcome of checking one target.
type result struct {
	findings []report.Finding
	fix      *FileFix
	name     string
	line     int
	col      int
	disabled bool
}

// Run checks every target and returns the report: pre (findings from
// Collect) plus every finding of the files and of the tree, with
// severities from opt.Profile, without the ones the profile turns off,
// sorted. With opt.Fix it first repairs what can be repaired and then
// reports what remains; the second return value lists the files changed.
func Run(ctx context.Context, targets []Target, pre []report.Finding, opt Options) (*report.Report, []FileFix) {
	if opt.Profile == "" {
		opt.Profile = ProfileSpec
	}
	results := make([]result, len(targets))
	parallel.EachWith(ctx, len(targets), opt.Workers, func(md *parser.Parser, i int) {
		results[i] = checkTarget(targets[i], opt, md)
	})

	var all []report.Finding
	all = append(all, pre...)
	var fixes []FileFix
	for _, r := range results {
		all = append(all, r.findings...)
		if r.fix != nil {
			fixes = append(fixes, *r.fix)
		}
	}
	all = append(all, duplicateNames(targets, results)...)

	rep := &report.Report{Profile: string(opt.Profile), Findings: make([]report.Finding, 0, len(all))}
	if opt.ByHost {
		rep.Profile = ProfileByHost
	}
	judge := newJudge(targets, opt)
	for _, t := range targets {
		if t.IsCommand() {
			rep.Commands++
		} else {
			rep.Skills++
		}
	}
	for _, f := range all {
		rule, ok := Lookup(f.Code)
		if !ok {
			panic("validate: finding with unknown code " + f.Code)
		}
		if f.Severity = judge.severity(rule, &f); f.Severity != report.SeverityOff {
			rep.Findings = append(rep.Findings, f)
		}
	}
	report.SortFindings(rep.Findings)
	return rep, fixes
}

// checkTarget reads, optionally fixes, and checks one skill or command
// file. Commands are never fixed.
func checkTarget(t Target, opt Options, md *parser.Parser) result {
	var r result
	file := t.File
	r.disabled = strings.HasPrefix(filepath.Base(file), ".")
	data, err := safefile.Read(file, skillmd.MaxSkillFile)
	if err != nil {
		what, fix := "skill", "make it a readable regular file"
		if t.IsCommand() {
			what = "command"
		}
		if errors.Is(err, safefile.ErrTooLarge) {
			fix = "move detail into files under references/"
			if t.IsCommand() {
				fix = "split it into smaller commands"
			}
		}
		r.findings = []report.Finding{{Code: CodeUnreadable, File: file, Message: "cannot read the " + what + " file (" +
			safefile.Cause(err).Error() + "): " + fix}}
		return r
	}
	if t.IsCommand() {
		c := newChecker(file, data, nil)
		c.command()
		r.findings = c.findings
		return r
	}
	var refused []report.Finding
	if opt.Fix {
		if fixed, changes := Fix(data); len(changes) > 0 {
			ff := &FileFix{File: file, Changes: changes, Before: data, After: fixed}
			if ff.Refused = managedBy(opt.Managed, file); ff.Refused != nil {
				// Checked as it is: that is what a real --fix leaves.
				refused = append(refused, report.Finding{Code: CodeManagedTree, File: file,
					Message: ff.Refused.refusal(changes)})
			} else {
				if !opt.DryRun {
					ff.Err = writeAtomic(file, fixed)
				}
				if ff.Err == nil {
					data = fixed
				}
			}
			r.fix = ff
		}
	}
	c := newChecker(file, data, *md)
	c.run()
	*md = c.md
	c.tree()
	r.findings, r.name, r.line, r.col = append(c.findings, refused...), c.name, c.nameLine, c.nameCol
	if r.name == "" && c.frontmatterEnd > 0 {
		r.name = c.folder()
	}
	return r
}

// tree reports what the file's place on disk says: a lowercase name, a
// disabled twin, symlinks.
func (c *checker) tree() {
	base := filepath.Base(c.file)
	switch {
	case base == pipeline.SkillFile:
		if exists(filepath.Join(c.dir, pipeline.DisabledSkillFile)) {
			c.add(CodeEnabledAndDisabled, 0, 0, "this folder also holds .SKILL.md, the disabled form of the skill; "+
				"agents use SKILL.md and ignore .SKILL.md: delete .SKILL.md or merge it into SKILL.md", "")
		}
	case base == pipeline.DisabledSkillFile:
		if exists(filepath.Join(c.dir, pipeline.SkillFile)) {
			c.add(CodeEnabledAndDisabled, 0, 0, "this folder also holds SKILL.md, so this disabled copy is ignored: "+
				"delete it or merge it into SKILL.md", "")
		}
	case strings.EqualFold(base, pipeline.SkillFile) || strings.EqualFold(base, pipeline.DisabledSkillFile):
		want := pipeline.SkillFile
		if strings.HasPrefix(base, ".") {
			want = pipeline.DisabledSkillFile
		}
		c.add(CodeLowercaseSkillFile, 0, 0, fmt.Sprintf("the file is named %s; Claude Code and Codex look for "+
			"exactly %s, so on a case-sensitive file system the skill is not loaded: rename it to %s",
			base, want, want), want)
	}
	if st, err := os.Lstat(c.file); err == nil && st.Mode()&os.ModeSymlink != 0 {
		c.add(CodeSymlinkedSkill, 0, 0, "the skill file is a symlink; some Codex versions skip symlinked entries and "+
			"uploads do not follow them: copy the file into the skill folder", "")
	}
	if st, err := os.Lstat(c.dir); err == nil && st.Mode()&os.ModeSymlink != 0 {
		c.add(CodeSymlinkedSkill, 0, 0, "the skill folder is a symlink; some Codex versions skip symlinked "+
			"folders: copy the skill folder instead of linking it", "")
	}
}

// duplicateNames reports enabled skills that share a name (compared
// case-insensitively after NFKC normalisation), or a Target.Key when
// discovery set one. Disabled skills are left out: a disabled copy beside
// an enabled one is a common way to swap versions.
func duplicateNames(targets []Target, results []result) []report.Finding {
	byName := map[string][]int{}
	for i, r := range results {
		if r.name == "" || r.disabled {
			continue
		}
		k := strings.ToLower(r.name)
		if targets[i].Key != "" {
			k = strings.ToLower(norm.NFKC.String(targets[i].Key))
		}
		byName[k] = append(byName[k], i)
	}
	var out []report.Finding
	for _, idx := range byName {
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			var others []string
			for _, j := range idx {
				if j != i {
					others = append(others, targets[j].File)
				}
			}
			r := results[i]
			out = append(out, report.Finding{Code: CodeDuplicateName, File: targets[i].File, Line: r.line, Column: r.col,
				Message: fmt.Sprintf("the name %q is also used by %s; agents keep only one skill per name, so "+
					"one of them is hidden: rename one of the skills", r.name, strings.Join(others, ", "))})
		}
	}
	return out
}
