package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/validate"
)

// newLong is the help of ccski new.
const newLong = `Start a skill: write NAME/SKILL.md where ccski install would install a skill
for the agents (--agent, as for install: by default the shared .agents/skills
of the scope and the agents detected on this machine, or, with none detected,
.agents/skills linked from .claude/skills), or in --dir.

The SKILL.md holds the name and a placeholder description, and passes ccski
validate under every profile (spec, claude, codex, strict) with one warning,
description-placeholder, until you replace the description with what the
skill does and when to use it. --scripts, --references and --assets make
those folders, empty.

A name that breaks a name rule of any profile is refused, with the rule and
the name to use instead (lowercase letters, digits and single hyphens, at
most 64 characters). ccski new never overwrites: a NAME that is already in
one of the folders is an error and nothing is written. The skill is not
recorded in ccski.lock; it comes from no source.`

func newNew(a *app) *cobra.Command {
	return command(spec{use: "new NAME", args: cobra.ExactArgs(1), long: newLong, run: a.newSkill,
		short:   "Start a skill: a SKILL.md that passes validation, where install puts skills",
		example: "  ccski new release-notes\n  ccski new release-notes --agent claude,codex --scripts --references\n  ccski new release-notes --scope user"},
		jsonFlag("print JSON only: where the skill was written and what validate says of it"),
		func(cmd *cobra.Command) {
			f := cmd.Flags()
			f.StringSlice("agent", nil, "create for these agents: "+strings.Join(install.Agents(), ", ")+" or all (default: the shared .agents/skills and the agents detected on this machine, as install)")
			ownFlag(cmd, "agent")
			f.String("dir", "", "create the skill in this folder instead of the agents' folders")
			f.String("scope", "project", "project (the project's folders) or user (your home folder)")
			for _, d := range action.NewFolders {
				f.Bool(d, false, "make the skill's "+d+"/ folder")
			}
			f.String("user-dir", "", "use this folder instead of the home folder")
			f.String("workspace", "", "project folder (default: the current folder)")
			f.String("config", "", "read this config file instead of the nearest "+configs.ProjectFile)
		})
}

// newSkill runs ccski new.
func (a *app) newSkill(cmd *cobra.Command, args []string) error {
	f := cmd.Flags()
	req := action.NewRequest{Name: args[0]}
	req.Agents, _ = f.GetStringSlice("agent")
	req.Dir, _ = f.GetString("dir")
	req.Scope, _ = f.GetString("scope")
	if req.Dir != "" && len(req.Agents) > 0 {
		return usageErr(errors.New("give --dir or --agent, not both"))
	}
	for _, d := range action.NewFolders {
		if on, _ := f.GetBool(d); on {
			req.Folders = append(req.Folders, d)
		}
	}
	res, err := act(a, cmd, action.New, req)
	if err != nil {
		return err
	}
	return a.show(res, func() { a.renderNew(a.stdout, res) })
}

// renderNew says where the new skill is and what to do next.
func (a *app) renderNew(w io.Writer, res *action.NewResult) {
	st := style(a.color)
	renderAgents(w, res.Agents)
	where := []string{shownPath(res.Cwd, res.Home, res.Dir)}
	for _, p := range res.Links {
		where = append(where, shownPath(res.Cwd, res.Home, p)+st.Dim(" (link)"))
	}
	for _, p := range res.Copies {
		where = append(where, shownPath(res.Cwd, res.Home, p)+st.Dim(" (copy: no links here)"))
	}
	fmt.Fprintf(w, "%s created   %s → %s\n", st.Green("✓"), st.Bold(res.Name), strings.Join(where, ", "))
	if len(res.Folders) > 0 {
		fmt.Fprintf(w, "    folders: %s/\n", strings.Join(res.Folders, "/, "))
	}
	file := shownPath(res.Cwd, res.Home, res.File)
	fmt.Fprintf(w, "    next: write the description in %s: what the skill does and when to use it\n", file)
	fmt.Fprintf(w, "    (ccski validate %s warns %s until then)\n", file, validate.CodeDescriptionPlaceholder)
}
