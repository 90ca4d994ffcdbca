package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/pipeline"
)

type rootJSON struct {
	Path string `json:"path"`
	// Type is what the root holds: "skill" folders or "command" files.
	Type     pipeline.Type        `json:"type"`
	Provider string               `json:"provider"`
	Source   string               `json:"source"`
	Location pipeline.Location    `json:"location"`
	Kind     pipeline.Kind        `json:"kind"`
	Exists   bool                 `json:"exists"`
	Skills   int                  `json:"skills"`
	Plugin   *pipeline.PluginInfo `json:"pluginInfo,omitempty"`
}

type dropJSON struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Stage  string `json:"stage"`
	Reason string `json:"reason"`
	By     string `json:"by,omitempty"`
}

type sourcesJSON struct {
	Roots       []rootJSON            `json:"roots"`
	Diagnostics []pipeline.Diagnostic `json:"diagnostics"`
	Hidden      []dropJSON            `json:"hidden"`
	Discovered  int                   `json:"discovered"`
	Visible     int                   `json:"visible"`
}

func newSources(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sources",
		Short: "Show every place searched for skills and commands, what each gave, and every problem",
		Long: `Show every root ccski considered, its provider and location, whether it
exists and how many skills (or commands) it gave; then every skill or command
hidden by dedupe or filters with the reason; then every problem found while
reading skills, commands and plugin manifests. This answers "why is my skill
missing?". --kind skill or --kind command shows the roots, counts and hidden
copies of one type only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			kind, err := kindFlag(cmd)
			if err != nil {
				return err
			}
			l, err := a.load(cmd, withSnapshot)
			if err != nil {
				return err
			}
			out := sourcesJSON{Roots: []rootJSON{}, Diagnostics: l.snap.Diagnostics,
				Discovered: len(ofKind(l.snap.All, kind)), Visible: len(ofKind(l.snap.Visible, kind))}
			if out.Diagnostics == nil {
				out.Diagnostics = []pipeline.Diagnostic{}
			}
			for _, r := range l.snap.Roots {
				t := r.Type
				if t == "" {
					t = pipeline.TypeSkill
				}
				if kind != "" && t != kind {
					continue
				}
				out.Roots = append(out.Roots, rootJSON{Path: r.Path, Type: t, Provider: r.Provider, Source: r.Source,
					Location: r.Location, Kind: r.Kind, Exists: r.Exists, Skills: r.Skills, Plugin: r.Plugin})
			}
			out.Hidden = []dropJSON{}
			for _, d := range l.snap.Drops {
				if kind != "" && typeOf(d.Record) != kind {
					continue
				}
				dj := dropJSON{ID: d.Record.ID, File: d.Record.File, Stage: d.Stage, Reason: d.Reason}
				if d.By != nil {
					dj.By = d.By.ID
				}
				out.Hidden = append(out.Hidden, dj)
			}
			if a.json {
				return a.writeJSON(out)
			}
			renderSources(a, out, counts(l.snap, kind))
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print JSON only: roots, hidden skills and commands, and diagnostics")
	kindFlags(cmd)
	discoveryFlags(cmd)
	return cmd
}

// typeCounts are the discovered and visible records of each type that
// sources reports.
type typeCounts struct {
	skills, commands     [2]int // discovered, visible
	showSkills, showCmds bool
}

// counts counts the records of the snapshot by type. Commands are shown
// when asked for or when there are any; skills unless only commands are
// asked for.
func counts(snap *pipeline.Snapshot, kind pipeline.Type) typeCounts {
	var c typeCounts
	for i, recs := range [][]*pipeline.Record{snap.All, snap.Visible} {
		for _, r := range recs {
			if r.IsCommand() {
				c.commands[i]++
			} else {
				c.skills[i]++
			}
		}
	}
	c.showSkills = kind != pipeline.TypeCommand
	c.showCmds = kind == pipeline.TypeCommand || (kind == "" && c.commands[0] > 0)
	return c
}

func renderSources(a *app, s sourcesJSON, c typeCounts) {
	st := style(a.color)
	w := a.stdout
	fmt.Fprintf(w, "%s\n\n", st.heading(fmt.Sprintf("Roots (%d)", len(s.Roots))))
	for _, r := range s.Roots {
		mark, count := st.green("✓"), plural(r.Skills, "skill", "skills")
		if r.Type == pipeline.TypeCommand {
			count = plural(r.Skills, "command", "commands")
		}
		if !r.Exists {
			mark, count = st.dim("-"), st.dim("missing")
		}
		label := r.Provider + " " + string(r.Location)
		if r.Plugin != nil {
			label += " " + r.Plugin.Plugin + "@" + r.Plugin.Marketplace
		}
		fmt.Fprintf(w, "  %s %-24s %s  %s\n", mark, label, r.Path, count)
	}
	fmt.Fprintln(w)
	if c.showSkills {
		fmt.Fprintf(w, "%d skills discovered, %d visible.\n", c.skills[0], c.skills[1])
	}
	if c.showCmds {
		fmt.Fprintf(w, "%d commands discovered, %d visible.\n", c.commands[0], c.commands[1])
	}
	if len(s.Hidden) > 0 {
		fmt.Fprintf(w, "\n%s\n\n", st.heading(fmt.Sprintf("Hidden (%d)", len(s.Hidden))))
		for _, d := range s.Hidden {
			fmt.Fprintf(w, "  %s  %s\n", st.cyan(d.ID), st.dim(d.Reason))
		}
	}
	if len(s.Diagnostics) == 0 {
		fmt.Fprintf(w, "\nNo problems found.\n")
		return
	}
	diags := append([]pipeline.Diagnostic(nil), s.Diagnostics...)
	rank := map[pipeline.Severity]int{pipeline.SeverityError: 0, pipeline.SeverityWarning: 1, pipeline.SeverityInfo: 2}
	sort.SliceStable(diags, func(i, j int) bool { return rank[diags[i].Severity] < rank[diags[j].Severity] })
	fmt.Fprintf(w, "\n%s\n\n", st.heading(fmt.Sprintf("Diagnostics (%d)", len(diags))))
	for _, d := range diags {
		sev := string(d.Severity)
		switch d.Severity {
		case pipeline.SeverityError:
			sev = st.red(sev)
		case pipeline.SeverityWarning:
			sev = st.yellow(sev)
		default:
			sev = st.dim(sev)
		}
		where := d.Path
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d", d.Path, d.Line)
		}
		fmt.Fprintf(w, "  %s [%s] %s\n      %s\n", sev, d.Code, where, d.Message)
	}
}
