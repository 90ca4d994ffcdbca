package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/all"
)

// listLong is the help of ccski list.
const listLong = `List the skills and commands agents see, grouped by provider and location.

Each skill is shown by its id, which pastes into "ccski info" and --include.
By default one copy of each skill is shown (the highest priority one); --all
shows every copy and disabled skills too; --disabled shows only disabled ones.
Slash commands (served by "ccski mcp" as prompts) follow the skills, by their
ids ("claude:/deploy"); --kind skill or --kind command shows only one of them.`

func newList(a *app) *cobra.Command {
	return command(spec{use: "list", args: cobra.NoArgs, long: listLong, run: a.list,
		short: "List the skills and commands agents see, grouped by provider and location"},
		jsonFlag("print JSON only: an array of skill and command records"), kindFlags, agentViewFlag, discoveryFlags)
}

// list runs ccski list.
func (a *app) list(cmd *cobra.Command, _ []string) error {
	kind, err := kindFlag(cmd)
	if err != nil {
		return err
	}
	res, err := act(a, cmd, action.List, action.ListRequest{Kind: kind, Installed: a.json})
	if err != nil {
		return err
	}
	if a.json {
		return writeJSONArray(a.stdout, listJSON(res))
	}
	// Badge duplicates with the ranking the filters used, so that
	// "preferred" is the copy the default list shows.
	renderList(a.stdout, style(a.color), res, kind)
	return nil
}

// listJSON is the --json output of list: the records with where ccski
// installed them from and their integrity, by name, then id.
func listJSON(res *action.ListResult) []recordJSON {
	recs := make([]recordJSON, 0, len(res.Records)+len(res.Linked))
	add := func(r *pipeline.Record) *recordJSON {
		j := toJSON(r)
		j.Installed = res.Installed[filepath.Clean(r.Dir)]
		if in, ok := res.Snapshot.Integrity[r]; ok {
			j.Integrity = &in
		}
		if !r.IsCommand() {
			sig := res.Snapshot.SignatureOf(r)
			j.Signature = &sig
		}
		j.NotServed = action.NotServed(res.Snapshot, r, res.RequireSigned)
		recs = append(recs, j)
		return &recs[len(recs)-1]
	}
	for _, r := range res.Records {
		add(r)
	}
	for _, d := range res.Linked {
		if d.By != nil {
			add(d.Record).LinkedTo = d.By.ID
		}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Name != recs[j].Name {
			return strings.ToLower(recs[i].Name) < strings.ToLower(recs[j].Name)
		}
		return recs[i].ID < recs[j].ID
	})
	return recs
}

// agentViewFlag adds --agent to a command that shows skills: the view of
// one agent, whose own skill switches decide what is off (the agent key,
// which the CCSKI_AGENT variable and ccski.yaml also set).
func agentViewFlag(cmd *cobra.Command) {
	cmd.Flags().String("agent", "", "see what this agent sees: its own skill switches decide which skills are off ("+
		strings.Join(all.HostNames(), ", ")+" or all)")
}

// kindFlags adds --kind.
func kindFlags(cmd *cobra.Command) {
	cmd.Flags().String("kind", "", "show only skills or only commands: skill or command (default both)")
}

// kindFlag reads --kind: "" (both), skill or command. Any other value is a
// usage error.
func kindFlag(cmd *cobra.Command) (pipeline.Type, error) {
	v, _ := cmd.Flags().GetString("kind")
	switch k := pipeline.Type(strings.ToLower(strings.TrimSpace(v))); k {
	case "", pipeline.TypeSkill, pipeline.TypeCommand:
		return k, nil
	}
	return "", usageErr(fmt.Errorf("invalid --kind %q: use skill or command%s", v,
		suggest.DidYouMean(strings.ToLower(v), []string{"skill", "command"})))
}

// renderList prints the visible skills, then the visible commands, each
// grouped by provider, then location. Without --kind the commands section
// appears only when there are commands. In state all, the copies of a
// listed folder reached through another root are listed too, and in
// states all and disabled the skills of disabled plugins follow, each with
// the command that turns it on.
func renderList(w io.Writer, st style, res *action.ListResult, kind pipeline.Type) {
	snap, state, prio := res.Snapshot, res.State, res.Priority
	linked := map[*pipeline.Record]*pipeline.Record{}
	visible := slices.Clone(snap.Visible)
	for _, d := range res.Linked {
		visible = append(visible, d.Record)
		linked[d.Record] = d.By
	}
	skills, commands := action.OfKind(visible, pipeline.TypeSkill), action.OfKind(visible, pipeline.TypeCommand)
	showSkills := kind != pipeline.TypeCommand && (len(skills) > 0 || kind == pipeline.TypeSkill || len(commands) == 0)
	if showSkills {
		renderSection(w, st, "skills", skills, state, prio, snap, res.RequireSigned, linked)
	}
	if kind == pipeline.TypeCommand || (kind == "" && len(commands) > 0) {
		if showSkills && len(skills) == 0 {
			fmt.Fprintln(w)
		}
		renderSection(w, st, "commands", commands, state, prio, snap, res.RequireSigned, linked)
	}
	renderPluginOff(w, st, res.PluginOff)
	drops := snap.Drops
	if kind != "" {
		drops = nil
		for _, d := range snap.Drops {
			if d.Record.IsCommand() == (kind == pipeline.TypeCommand) {
				drops = append(drops, d)
			}
		}
	}
	if len(res.Linked) > 0 {
		drops = slices.DeleteFunc(slices.Clone(drops), func(d pipeline.Drop) bool { _, ok := linked[d.Record]; return ok })
	}
	drops = renderRefused(w, st, drops)
	footer(w, st, drops, snap.Diagnostics)
	if n := len(snap.PluginOffSkills(kind)); n > 0 && len(res.PluginOff) == 0 {
		fmt.Fprintln(w, st.Dim(plural(n, "skill or command of a disabled plugin", "skills and commands of disabled plugins")+" not listed (--disabled or --all shows them)."))
	}
	changedNote(w, st, snap.Sources(pipeline.TypeSkill).Changed)
	var shown []*pipeline.Record
	if showSkills {
		shown = skills
	}
	if kind != pipeline.TypeSkill {
		shown = append(slices.Clip(shown), commands...)
	}
	signatureNote(w, st, snap, shown, res.RequireSigned)
}

// renderPluginOff prints the skills and commands of disabled plugins,
// each with why it is off and the command that turns it on.
func renderPluginOff(w io.Writer, st style, off []pipeline.PluginOffSkill) {
	if len(off) == 0 {
		return
	}
	fmt.Fprintf(w, "%s\n\n", st.Heading(fmt.Sprintf("Off with their plugin (%d)", len(off))))
	wd := width(w)
	for _, p := range off {
		fmt.Fprintf(w, "  - %s %s\n", st.Red(p.ID), st.Red(fmt.Sprintf("[plugin %s off]", p.Plugin.Key())))
		fmt.Fprintln(w, st.Dim(wrap(p.Reason(), wd, "    ")))
		fmt.Fprintln(w, st.Dim(wrap("turn on: "+enableCommand(p)+" (turns on the whole plugin)", wd, "    ")))
	}
	fmt.Fprintln(w)
}

// enableCommand is the command that turns on the plugin of p.
func enableCommand(p pipeline.PluginOffSkill) string { return "ccski enable " + p.ID }

// renderSection prints one section of the list: noun is "skills" or
// "commands". snap holds each record's integrity and signature; require
// is mcp.require_signed.
func renderSection(w io.Writer, st style, noun string, recs []*pipeline.Record, state string, prio *filters.Priority,
	snap *pipeline.Snapshot, require bool, linked map[*pipeline.Record]*pipeline.Record) {
	title := strings.ToUpper(noun[:1]) + noun[1:]
	switch state {
	case "all":
		title = "All " + noun
	case "disabled":
		title = "Disabled " + noun
	}
	if len(recs) == 0 {
		if state == "disabled" {
			fmt.Fprintf(w, "No disabled %s found.\n", noun)
		} else {
			fmt.Fprintf(w, "No %s found.\n", noun)
		}
		return
	}
	fmt.Fprintf(w, "%s\n\n", st.Heading(fmt.Sprintf("%s (%d)", title, len(recs))))

	dups := filters.Duplicates(recs, prio)
	byProvider := map[string][]*pipeline.Record{}
	var provs []string
	for _, r := range recs {
		if _, ok := byProvider[r.Agent]; !ok {
			provs = append(provs, r.Agent)
		}
		byProvider[r.Agent] = append(byProvider[r.Agent], r)
	}
	sortProviders(provs)
	wd := width(w)
	for _, p := range provs {
		group := byProvider[p]
		fmt.Fprintf(w, "%s\n", st.Heading(fmt.Sprintf("%s (%d)", p, len(group))))
		for _, loc := range locationOrder {
			var in []*pipeline.Record
			for _, r := range group {
				if r.Location == loc {
					in = append(in, r)
				}
			}
			if len(in) == 0 {
				continue
			}
			fmt.Fprintf(w, " %s\n", st.Bold(fmt.Sprintf("%s (%d)", loc, len(in))))
			for _, r := range in {
				line := "  - " + st.Cyan(r.ID)
				if r.Disabled {
					line = "  - " + st.Red(r.ID) + " " + st.Red("[disabled]")
				}
				for _, s := range r.Off {
					badge := fmt.Sprintf("[%s in %s]", s.Mode, s.Title)
					if s.Hides() {
						line += " " + st.Red(badge)
					} else {
						line += " " + st.Yellow(badge)
					}
				}
				if by := linked[r]; by != nil {
					line += " " + st.Magenta("[same folder as "+by.ID+"]")
				} else if d, ok := dups[r]; ok {
					if d.Winner {
						line += " " + st.Magenta(fmt.Sprintf("[dup %d, preferred]", d.Group))
					} else {
						line += " " + st.Magenta(fmt.Sprintf("[dup %d]", d.Group))
					}
				}
				if r.Plugin != nil {
					line += " " + st.Dim(fmt.Sprintf("(%s@%s %s)", r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version))
				}
				if len(r.Diagnostics) > 0 {
					line += " " + st.Yellow(fmt.Sprintf("[%s]", plural(len(r.Diagnostics), "warning", "warnings")))
				}
				in, ok := snap.Integrity[r]
				line += integrityBadge(st, in, ok)
				line += signatureBadge(st, snap, r, require)
				fmt.Fprintln(w, line)
				if r.Description != "" {
					fmt.Fprintln(w, st.Dim(wrap(r.Description, wd, "    ")))
				}
			}
		}
		fmt.Fprintln(w)
	}
}

// renderRefused lists the skills the organisation's policy refuses, each
// with the rule and its file, and returns the other drops.
func renderRefused(w io.Writer, st style, drops []pipeline.Drop) []pipeline.Drop {
	var refused, rest []pipeline.Drop
	seen := map[string]bool{}
	for _, d := range drops {
		if d.Stage == engine.PolicyStageName {
			// A folder reached twice (a link) is one skill.
			if key := cmp.Or(d.Record.RealDir, d.Record.Dir); !seen[key] {
				seen[key] = true
				refused = append(refused, d)
			}
		} else {
			rest = append(rest, d)
		}
	}
	if len(refused) == 0 {
		return drops
	}
	wd := width(w)
	fmt.Fprintln(w, st.Heading(fmt.Sprintf("Refused by the policy (%d): not served by ccski mcp, not turned on by enable", len(refused))))
	for _, d := range refused {
		fmt.Fprintf(w, "  %s %s\n%s\n", st.Red("✗"), d.Record.ID, wrap(d.Reason, wd, "      "))
	}
	fmt.Fprintln(w)
	return rest
}

// footer says what is hidden and where to look for problems. Skills and
// commands filtered out are counted apart: with --disabled, every enabled
// command is filtered out too, and is no skill.
func footer(w io.Writer, st style, drops []pipeline.Drop, diagnostics []pipeline.Diagnostic) {
	var shadowed, samePath, filteredSkills, filteredCmds int
	for _, d := range drops {
		switch {
		case d.Stage == filters.PathDedupe().Name():
			samePath++ // --all does not bring these back
		case d.By != nil:
			shadowed++
		case d.Record.IsCommand():
			filteredCmds++
		default:
			filteredSkills++
		}
	}
	var notes []string
	if shadowed > 0 {
		notes = append(notes, plural(shadowed, "duplicate copy hidden", "duplicate copies hidden")+" (--all shows them)")
	}
	if samePath > 0 {
		notes = append(notes, plural(samePath, "copy of an already listed folder hidden", "copies of already listed folders hidden"))
	}
	var filtered []string
	if filteredSkills > 0 {
		filtered = append(filtered, plural(filteredSkills, "skill", "skills"))
	}
	if filteredCmds > 0 {
		filtered = append(filtered, plural(filteredCmds, "command", "commands"))
	}
	if len(filtered) > 0 {
		notes = append(notes, strings.Join(filtered, " and ")+" filtered out")
	}
	problems := 0
	for _, d := range diagnostics {
		if d.Severity != pipeline.SeverityInfo {
			problems++
		}
	}
	if problems > 0 {
		notes = append(notes, plural(problems, "problem", "problems")+" found (ccski sources explains)")
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, st.Dim(strings.Join(notes, "; ")+"."))
	}
}
