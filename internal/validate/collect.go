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

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
)

// Target is one file to validate: a skill file (SKILL.md, a disabled
// .SKILL.md or a lowercase skill.md) or, when Type is
// pipeline.TypeCommand, a slash-command file.
type Target struct {
	File string
	Type pipeline.Type
	// Key, when set, is what duplicate-name compares instead of the
	// frontmatter name. Discovery sets it to the provider and the
	// plugin-qualified name: agents keep plugin skills apart
	// (document-skills:docx is not a project's docx), and each agent
	// loads only its own skills.
	Key string
	// Rules are the rules of the hosts that read the file (RecordRules),
	// which Options.ByHost judges it by; none: Options.Profile applies.
	Rules []HostRules
}

// IsCommand reports whether the target is a slash command.
func (t Target) IsCommand() bool { return t.Type == pipeline.TypeCommand }

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

// Collect finds the files to validate for each path, as kind asks (the
// zero Kind means skills).
//
// A file is validated as it is: as a skill, or as a command with
// KindCommand, or with KindAll when it is a .md file not named SKILL.md.
//
// A folder is searched by one walk of the discovery walker (scan.Scan) as
// a repository (scan.Options Hidden and Commands): hidden folders are
// entered (.system, .curated, .claude/skills, ...), after the others and
// under a folder budget of their own, and the folders tools make (.git,
// node_modules, .venv, caches, ...) are not. It finds SKILL.md, disabled
// .SKILL.md and lowercase skill.md folders and stops at a skill folder,
// and it finds the commands of every commands folder (.claude/commands, a
// plugin's commands/) and of .codex/prompts; a folder named commands or
// prompts is itself one.
//
// Problems of the walk and a path holding nothing to check become
// findings; a folder with no skill that holds commands says how to check
// them.
func Collect(ctx context.Context, paths []string, kind Kind) ([]Target, []report.Finding, error) {
	c := collector{seen: map[string]bool{}}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, &PathError{Path: p, Err: err}
		}
		if !st.IsDir() {
			c.add(p, fileType(p, kind))
			continue
		}
		if c.folder(ctx, p, kind) == 0 && ctx.Err() == nil {
			var commands []string
			if kind == KindSkill {
				// Only now walk for commands, to point at --kind command:
				// a run that finds skills never reads a command file.
				probe := collector{seen: map[string]bool{}}
				probe.folder(ctx, p, KindCommand)
				for _, t := range probe.targets {
					commands = append(commands, t.File)
				}
				slices.Sort(commands)
			}
			c.findings = append(c.findings, nothingFound(p, kind, commands))
		}
	}
	slices.SortFunc(c.targets, func(a, b Target) int { return strings.Compare(a.File, b.File) })
	return c.targets, c.findings, ctx.Err()
}

// collector gathers the targets of Collect, each file once.
type collector struct {
	targets  []Target
	findings []report.Finding
	seen     map[string]bool
}

// add records file as a target of type typ, unless it is one already,
// and reports whether it was new.
func (c *collector) add(file string, typ pipeline.Type) bool {
	key := file
	if abs, err := filepath.Abs(file); err == nil {
		key = abs
	}
	if c.seen[key] {
		return false
	}
	c.seen[key] = true
	c.targets = append(c.targets, Target{File: file, Type: typ})
	return true
}

// fileType is the type a file given by name is checked as.
func fileType(file string, kind Kind) pipeline.Type {
	base := filepath.Base(file)
	switch {
	case kind == KindCommand,
		kind == KindAll && strings.HasSuffix(base, commandExt) && !isSkillFileName(base):
		return pipeline.TypeCommand
	}
	return pipeline.TypeSkill
}

// commandExt is the extension of command files.
const commandExt = ".md"

// isSkillFileName reports whether base is SKILL.md or .SKILL.md in any
// case.
func isSkillFileName(base string) bool {
	return strings.EqualFold(base, pipeline.SkillFile) || strings.EqualFold(base, pipeline.DisabledSkillFile)
}

// folder adds the skills and commands below dir that kind asks for, found
// by one walk, and returns how many files it found (added now or by an
// earlier PATH).
func (c *collector) folder(ctx context.Context, dir string, kind Kind) int {
	opt := scan.DefaultOptions()
	opt.Hidden, opt.Commands, opt.NoCache = true, kind.Commands(), true
	res := scan.Scan(ctx, []pipeline.Root{customRoot(dir)}, opt)
	found := 0
	take := func(file string, typ pipeline.Type) {
		switch {
		case typ == pipeline.TypeCommand && !kind.Commands():
		case typ != pipeline.TypeCommand && !kind.Skills():
		default:
			c.add(file, typ)
			found++
		}
	}
	for _, r := range res.Records {
		take(r.File, r.Type)
	}
	for _, d := range res.Diagnostics {
		if f, ok := walkFinding(d); ok {
			c.findings = append(c.findings, f)
			continue
		}
		switch base := filepath.Base(d.Path); {
		case d.Code == "lowercase-skill-file":
			if f := lowercaseFile(d.Path); f != "" {
				take(f, pipeline.TypeSkill)
			}
		case base == pipeline.SkillFile || base == pipeline.DisabledSkillFile:
			// A skill the walker found but could not load: exactly
			// the ones validation must explain.
			take(d.Path, pipeline.TypeSkill)
		case strings.HasSuffix(base, commandExt):
			// A command discovery skips (its frontmatter is broken,
			// say): validation says why.
			take(d.Path, pipeline.TypeCommand)
		}
	}
	return found
}

// nothingFound is the finding for a folder PATH that holds nothing of
// kind; commands are the command files found below it, which kind left
// out.
func nothingFound(p string, kind Kind, commands []string) report.Finding {
	switch kind {
	case KindCommand:
		return report.Finding{Code: CodeNoCommandFound, File: p, Message: "no command was found in this folder (commands " +
			"are the .md files of a commands folder, such as .claude/commands or a plugin's commands/, or of " +
			".codex/prompts): check the path, or give the commands folder itself"}
	case KindAll:
		return report.Finding{Code: CodeNoSkillFound, File: p, Message: "no skill or command was found in this folder (a " +
			"skill is a folder holding SKILL.md, a command a .md file in a commands folder; " + notSearched +
			" are not searched): check the path"}
	}
	if len(commands) > 0 {
		example := commands[0]
		if r, err := filepath.Rel(p, example); err == nil {
			example = r
		}
		return report.Finding{Code: CodeNoSkillFound, File: p, Message: fmt.Sprintf("no skill was found in this folder, "+
			"but it holds %s (such as %s), which are checked only with --kind command or --kind all: add one of "+
			"them, or check the path", report.Plural(len(commands), "slash command", "slash commands"),
			filepath.ToSlash(example))}
	}
	return report.Finding{Code: CodeNoSkillFound, File: p, Message: "no skill was found in this folder (a skill is a " +
		"folder holding SKILL.md; " + notSearched + " are not searched): check the path"}
}

// notSearched names the folders a PATH's walk leaves out (see
// scan.Options.Hidden).
const notSearched = ".git, node_modules and tool folders such as .venv"

// walkFinding turns a problem of the walk into a finding.
func walkFinding(d pipeline.Diagnostic) (report.Finding, bool) {
	f := report.Finding{Code: CodeWalkProblem, File: d.Path}
	switch d.Code {
	case problems.DepthLimit:
		f.Code = CodeDepthLimit
		f.Message = fmt.Sprintf("this folder is more than %d levels below the PATH, so it was not searched and "+
			"skills in it were not validated: validate it directly", scan.DefaultOptions().MaxDepth)
	case problems.BrokenSymlink:
		target, _ := os.Readlink(d.Path)
		f.Message = fmt.Sprintf("this symlink points at %s, which does not exist; whatever it should lead to was "+
			"not validated: fix or remove the link", target)
	case problems.FolderUnreadable, problems.RootUnreadable:
		f.Message = "this folder cannot be read, so skills in it were not validated: fix its permissions"
	case problems.WalkLimit:
		f.Message = fmt.Sprintf("the search stopped after %d folders, so some skills were not validated: "+
			"validate smaller folders", scan.DefaultOptions().MaxDirs)
	case problems.HiddenWalkLimit:
		f.Message = fmt.Sprintf("the search of hidden folders stopped in this one after %d of them (every other "+
			"folder was searched first), so skills in hidden folders may not have been validated: validate "+
			"this folder directly, or the folders in it that hold skills", scan.DefaultOptions().MaxDirs)
	default:
		return f, false
	}
	return f, true
}

func customRoot(p string) pipeline.Root {
	return pipeline.Root{Path: p, Agent: "custom", Provider: "custom", Location: pipeline.LocationCustom,
		Kind: pipeline.KindCustom}
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
		if n != pipeline.SkillFile && n != pipeline.DisabledSkillFile &&
			(strings.EqualFold(n, pipeline.SkillFile) || strings.EqualFold(n, pipeline.DisabledSkillFile)) {
			return filepath.Join(dir, n)
		}
	}
	return ""
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// DiscoveredTargets lists what discovery found, as kind asks (the zero
// Kind means skills): the visible records of each type, plus the files
// discovery found but could not load (they have no record, and they are
// what most needs explaining): skill files with an error, and command
// files with a problem but no record, which discovery skipped.
func DiscoveredTargets(snap *pipeline.Snapshot, kind Kind) []Target {
	c := collector{seen: map[string]bool{}}
	for _, r := range snap.Visible {
		switch {
		case r.IsCommand() && kind.Commands():
			c.add(r.File, pipeline.TypeCommand)
		case !r.IsCommand() && kind.Skills():
			if c.add(r.File, pipeline.TypeSkill) {
				t := &c.targets[len(c.targets)-1]
				t.Key, t.Rules = r.Agent+"\x00"+r.Name, RecordRules(r)
			}
		}
	}
	var loaded map[string]bool // the files of every record, visible or not
	for _, d := range snap.Diagnostics {
		base := filepath.Base(d.Path)
		switch {
		case kind.Skills() && d.Severity == pipeline.SeverityError && base == pipeline.SkillFile:
			c.add(d.Path, pipeline.TypeSkill)
		case kind.Commands() && strings.HasSuffix(base, commandExt) && !isSkillFileName(base):
			if loaded == nil {
				loaded = make(map[string]bool, len(snap.All))
				for _, r := range snap.All {
					loaded[r.File] = true
				}
			}
			if !loaded[d.Path] {
				c.add(d.Path, pipeline.TypeCommand)
			}
		}
	}
	return c.targets
}
