package validate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/scan"
)

// Target is one skill file to validate: SKILL.md, a disabled .SKILL.md or
// a lowercase skill.md.
type Target struct {
	File string
}

// PathError is returned by Collect for a PATH that cannot be validated at
// all (it does not exist); the command treats it as a usage error.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string {
	if errors.Is(e.Err, fs.ErrNotExist) {
		return fmt.Sprintf("%s does not exist: give a SKILL.md, a skill folder or a folder holding skills", e.Path)
	}
	return fmt.Sprintf("cannot read %s: %v", e.Path, e.Err)
}
func (e *PathError) Unwrap() error { return e.Err }

// Collect finds the skill files to validate for each path: a file is
// validated as it is; a folder is searched with the discovery walker
// (scan.Scan), which finds SKILL.md, disabled .SKILL.md and lowercase
// skill.md folders, skips hidden folders and node_modules and stops at a
// skill folder. The .<agent>/skills folders directly inside a searched
// folder (.claude/skills, .agents/skills, ...) are searched too, as
// discovery does for a workspace. Problems of the walk and a path holding
// no skill become findings.
func Collect(ctx context.Context, paths []string) ([]Target, []Finding, error) {
	var targets []Target
	var findings []Finding
	seen := map[string]bool{}
	addTarget := func(file string) {
		key := file
		if abs, err := filepath.Abs(file); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			targets = append(targets, Target{File: file})
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, &PathError{Path: p, Err: err}
		}
		if !st.IsDir() {
			addTarget(p)
			continue
		}
		roots := []pipeline.Root{customRoot(p)}
		if !isSkillFolder(p) {
			for _, r := range agentRoots(p) {
				roots = append(roots, customRoot(r))
			}
		}
		res := scan.Scan(ctx, roots, scan.DefaultOptions())
		found := 0
		for _, r := range res.Records {
			addTarget(r.File)
			found++
		}
		for _, d := range res.Diagnostics {
			switch base := filepath.Base(d.Path); {
			case d.Code == "lowercase-skill-file":
				if f := lowercaseFile(d.Path); f != "" {
					addTarget(f)
					found++
				}
			case base == scan.SkillFile || base == scan.DisabledFile:
				// A skill the walker found but could not load: exactly
				// the ones validation must explain.
				addTarget(d.Path)
				found++
			default:
				if f, ok := walkFinding(d); ok {
					findings = append(findings, f)
				}
			}
		}
		if found == 0 && ctx.Err() == nil {
			findings = append(findings, Finding{Code: CodeNoSkillFound, File: p,
				Message: "no skill was found in this folder (a skill is a folder holding SKILL.md; hidden folders " +
					"other than .<agent>/skills and node_modules are not searched): check the path"})
		}
	}
	slices.SortFunc(targets, func(a, b Target) int { return strings.Compare(a.File, b.File) })
	return targets, findings, ctx.Err()
}

// walkFinding turns a problem of the walk into a finding.
func walkFinding(d pipeline.Diagnostic) (Finding, bool) {
	f := Finding{Code: CodeWalkProblem, File: d.Path}
	switch d.Code {
	case "depth-limit":
		f.Code = CodeDepthLimit
		f.Message = fmt.Sprintf("this folder is more than %d levels below the PATH, so it was not searched and "+
			"skills in it were not validated: validate it directly", scan.DefaultOptions().MaxDepth)
	case "broken-symlink":
		target, _ := os.Readlink(d.Path)
		f.Message = fmt.Sprintf("this symlink points at %s, which does not exist; whatever it should lead to was "+
			"not validated: fix or remove the link", target)
	case "folder-unreadable", "root-unreadable":
		f.Message = "this folder cannot be read, so skills in it were not validated: fix its permissions"
	case "walk-limit":
		f.Message = fmt.Sprintf("the search stopped after %d folders, so some skills were not validated: "+
			"validate smaller folders", scan.DefaultOptions().MaxDirs)
	default:
		return f, false
	}
	return f, true
}

func customRoot(p string) pipeline.Root {
	return pipeline.Root{Path: p, Provider: "custom", Source: "custom", Location: pipeline.LocationCustom,
		Kind: pipeline.KindCustom}
}

// isSkillFolder reports whether dir holds a skill file itself.
func isSkillFolder(dir string) bool {
	return lowercaseFile(dir) != "" || exists(filepath.Join(dir, scan.SkillFile)) ||
		exists(filepath.Join(dir, scan.DisabledFile))
}

// agentRoots lists the .<agent>/skills folders directly inside dir.
func agentRoots(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		if len(n) < 2 || n[0] != '.' || n == ".git" {
			continue
		}
		if st, err := os.Stat(filepath.Join(dir, n, "skills")); err == nil && st.IsDir() {
			out = append(out, filepath.Join(dir, n, "skills"))
		}
	}
	return out
}

// lowercaseFile returns the skill file in dir whose name is a case
// variant of SKILL.md (skill.md, Skill.md, ...), or "".
func lowercaseFile(dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		n := e.Name()
		if n != scan.SkillFile && n != scan.DisabledFile &&
			(strings.EqualFold(n, scan.SkillFile) || strings.EqualFold(n, scan.DisabledFile)) {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
