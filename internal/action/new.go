package action

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
)

// NewRequest is ccski new: a skill to start, where install would put it.
type NewRequest struct {
	// Name is the skill's name, and its folder's.
	Name string
	// Scope is project (the default) or user, as for install.
	Scope string
	// Agents are the agents to create it for, as install.ParseAgents
	// reads them (none: the default agents); Dir, when set, a folder to
	// create it in instead, taken from Cwd.
	Agents []string
	Dir    string
	// Folders are the optional folders to make in the skill:
	// NewFolders names them.
	Folders []string
}

// NewFolders are the folders ccski new can make in a skill, from the
// Agent Skills specification: programs the skill runs, documents read
// when needed, files used in its output.
var NewFolders = []string{"scripts", "references", "assets"}

// NewResult is what ccski new created, and its --json output.
type NewResult struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
	// File is the new SKILL.md.
	File string `json:"file"`
	install.Created
	// Folders are the optional folders made in the skill.
	Folders []string `json:"folders,omitempty"`
	// Agents are the agents it was made for and why, chosen as install
	// chooses them (chooseAgents); nil with --dir.
	Agents []AgentChoice `json:"agents,omitempty"`
	// Findings are what ccski validate --profile strict says of the new
	// skill: only the description placeholder's warning.
	Findings []report.Finding `json:"findings"`
	// Cwd and Home are the folder the user ran in and the user folder,
	// for showing the paths below them.
	Cwd, Home string `json:"-"`
}

// New writes a new skill named req.Name where install would install it
// for req.Agents: a SKILL.md with the name and a description placeholder
// that passes validation under every profile (spec, claude, codex and
// strict) with one warning, description-placeholder, until the
// placeholder is replaced; and the folders req.Folders names. A name
// that fails validation under any profile is refused (a usage error
// naming each rule and the name to use instead), and so is a name any
// target already holds: nothing is overwritten. Nothing is recorded in
// the lock: the skill comes from no source.
func New(ctx context.Context, c *Config, req NewRequest) (*NewResult, error) {
	for _, f := range req.Folders {
		if !slices.Contains(NewFolders, f) {
			return nil, usage(fmt.Errorf("unknown skill folder %q: use %s", f, strings.Join(NewFolders, ", ")))
		}
	}
	md := newSkillMD(req.Name, req.Folders)
	if err := checkNewSkill(ctx, req.Name, md); err != nil {
		return nil, err
	}
	agents, err := install.ParseAgents(req.Agents)
	if err != nil {
		return nil, usage(err)
	}
	e, err := c.Engine()
	if err != nil {
		return nil, err
	}
	env := e.Env()
	scope := install.Scope(strings.ToLower(strings.TrimSpace(req.Scope)))
	if scope == "" {
		scope = install.ScopeProject
	}
	layout, err := installLayout(env, scope)
	if err != nil {
		return nil, err
	}
	dir := req.Dir
	var choices []AgentChoice
	if dir != "" {
		dir = absFrom(c.Cwd, c.Home, dir)
		if err := layout.CheckTarget(dir); err != nil {
			return nil, usage(fmt.Errorf("--dir: %w", err))
		}
	} else {
		// Where install would put it: the agents named, else those
		// detected on the machine with the shared folder.
		named := agents
		if len(req.Agents) == 0 {
			named = nil
		}
		choices = chooseAgents(named, env)
		agents = agentNames(choices)
	}
	var folders []string
	for _, f := range NewFolders { // in documentation order, once each
		if slices.Contains(req.Folders, f) {
			folders = append(folders, f)
		}
	}
	created, err := layout.Create(install.Scaffold{Name: req.Name, SkillMD: md, Dirs: folders}, layout.Targets(agents, dir))
	if err != nil {
		return nil, err
	}
	res := &NewResult{Name: req.Name, Scope: string(scope), File: filepath.Join(created.Dir, pipeline.SkillFile),
		Created: created, Folders: folders, Agents: choices, Cwd: c.Cwd, Home: layout.Home()}
	res.Findings = newFindings(ctx, res.File)
	return res, nil
}

// plainName is a name YAML reads as itself without quotes.
var plainName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// newSkillMD is the SKILL.md of a new skill: the name, the placeholder
// description and a body saying what to write, naming the folders made.
func newSkillMD(name string, folders []string) []byte {
	yname := name
	if !plainName.MatchString(name) {
		q, _ := json.Marshal(name) // a JSON string is a YAML double-quoted scalar
		yname = string(q)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\n---\n\n# %s\n\n", yname, validate.DescriptionPlaceholder, name)
	b.WriteString("Write here what an agent does when it uses this skill: the steps, in order, and how it checks\n" +
		"the result. Keep this file short (under 500 lines); move long material into files the steps name.\n")
	if len(folders) > 0 {
		b.WriteString("\n## Files\n\n")
		for _, f := range folders {
			b.WriteString(map[string]string{
				"scripts":    "- `scripts/`: programs the steps run; say when to run each, and with what.\n",
				"references": "- `references/`: documents to read when a step needs them; name each where it is needed.\n",
				"assets":     "- `assets/`: templates and files the skill's output uses.\n",
			}[f])
		}
	}
	return []byte(b.String())
}

// checkNewSkill validates a new skill's SKILL.md, in a folder of its own
// name outside every target, under every profile, and refuses it (a usage
// error) when any profile finds an error: only a bad name can cause one,
// and the findings name the rule broken and the name to use instead.
func checkNewSkill(ctx context.Context, name string, md []byte) error {
	if strings.TrimSpace(name) == "" {
		return usage(errors.New("the skill needs a name: lowercase letters, digits and hyphens, such as release-notes"))
	}
	tmp, err := os.MkdirTemp("", "ccski-new-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// A name that is no single folder name is checked in a folder named
	// otherwise; the name rules still report it.
	folder := name
	if filepath.Base(name) != name || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		folder = "skill"
	}
	file := filepath.Join(tmp, folder, pipeline.SkillFile)
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, md, 0o644); err != nil {
		return err
	}
	var lines []string
	for _, p := range validate.Profiles {
		rep, _ := validate.Run(ctx, []validate.Target{{File: file}}, nil, validate.Options{Profile: p})
		for _, f := range rep.Findings {
			if f.Severity != report.SeverityError || f.Code == validate.CodeNameFolderMismatch {
				continue
			}
			if l := f.Code + ": " + f.Message; !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 && folder != name {
		lines = append(lines, fmt.Sprintf("%q cannot be a folder name (no separators, no leading dot)", name))
	}
	if len(lines) > 0 {
		return usage(fmt.Errorf("invalid skill name %q:\n  %s", name, strings.Join(lines, "\n  ")))
	}
	return nil
}

// newFindings validates the skill written at file under the strict
// profile, which reports every finding at the highest severity any
// other profile gives it.
func newFindings(ctx context.Context, file string) []report.Finding {
	rep, _ := validate.Run(ctx, []validate.Target{{File: file}}, nil, validate.Options{Profile: validate.ProfileStrict})
	return rep.Findings
}
