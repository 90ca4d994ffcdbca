package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/pipeline"
)

func newList(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills agents see, grouped by provider and location",
		Long: `List the skills agents see, grouped by provider and location.

Each skill is shown by its id, which pastes into "ccski info" and --include.
By default one copy of each skill is shown (the highest priority one); --all
shows every copy and disabled skills too; --disabled shows only disabled ones.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd, false)
			if err != nil {
				return err
			}
			if a.json {
				recs := make([]recordJSON, 0, len(l.snap.Visible))
				for _, r := range l.snap.Visible {
					recs = append(recs, toJSON(r))
				}
				sort.SliceStable(recs, func(i, j int) bool {
					if recs[i].Name != recs[j].Name {
						return strings.ToLower(recs[i].Name) < strings.ToLower(recs[j].Name)
					}
					return recs[i].ID < recs[j].ID
				})
				return a.writeJSON(recs)
			}
			cfg := l.cfg.Config
			// Badge duplicates with the ranking the filters used, so that
			// "preferred" is the copy the default list shows.
			kinds := make([]pipeline.Kind, len(cfg.Priority))
			for i, k := range cfg.Priority {
				kinds[i] = pipeline.Kind(k)
			}
			prio, err := filters.NewPriority(kinds, nil)
			if err != nil {
				return usageErr(err)
			}
			renderList(a.stdout, style(a.color), l.snap, cfg.State, prio)
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print JSON only: an array of skill records")
	discoveryFlags(cmd)
	return cmd
}

// renderList prints the visible records grouped by provider, then location.
func renderList(w io.Writer, st style, snap *pipeline.Snapshot, state string, prio *filters.Priority) {
	recs := snap.Visible
	title := "Skills"
	switch state {
	case "all":
		title = "All skills"
	case "disabled":
		title = "Disabled skills"
	}
	if len(recs) == 0 {
		if state == "disabled" {
			fmt.Fprintln(w, "No disabled skills found.")
		} else {
			fmt.Fprintln(w, "No skills found.")
		}
		footer(w, st, snap)
		return
	}
	fmt.Fprintf(w, "%s\n\n", st.heading(fmt.Sprintf("%s (%d)", title, len(recs))))

	dups := filters.Duplicates(recs, prio)
	byProvider := map[string][]*pipeline.Record{}
	var provs []string
	for _, r := range recs {
		if _, ok := byProvider[r.Provider]; !ok {
			provs = append(provs, r.Provider)
		}
		byProvider[r.Provider] = append(byProvider[r.Provider], r)
	}
	sortProviders(provs)
	wd := width()
	for _, p := range provs {
		group := byProvider[p]
		fmt.Fprintf(w, "%s\n", st.heading(fmt.Sprintf("%s (%d)", p, len(group))))
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
			fmt.Fprintf(w, " %s\n", st.bold(fmt.Sprintf("%s (%d)", loc, len(in))))
			for _, r := range in {
				line := "  - " + st.cyan(r.ID)
				if r.Disabled {
					line = "  - " + st.red(r.ID) + " " + st.red("[disabled]")
				}
				if d, ok := dups[r]; ok {
					if d.Winner {
						line += " " + st.magenta(fmt.Sprintf("[dup %d, preferred]", d.Group))
					} else {
						line += " " + st.magenta(fmt.Sprintf("[dup %d]", d.Group))
					}
				}
				if r.Plugin != nil {
					line += " " + st.dim(fmt.Sprintf("(%s@%s %s)", r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version))
				}
				if len(r.Diagnostics) > 0 {
					line += " " + st.yellow(fmt.Sprintf("[%s]", plural(len(r.Diagnostics), "warning", "warnings")))
				}
				fmt.Fprintln(w, line)
				if r.Description != "" {
					fmt.Fprintln(w, st.dim(wrap(r.Description, wd, "    ")))
				}
			}
		}
		fmt.Fprintln(w)
	}
	footer(w, st, snap)
}

// footer says what is hidden and where to look for problems.
func footer(w io.Writer, st style, snap *pipeline.Snapshot) {
	var shadowed, samePath, filtered int
	for _, d := range snap.Drops {
		switch {
		case d.Stage == filters.PathDedupe().Name():
			samePath++ // --all does not bring these back
		case d.By != nil:
			shadowed++
		default:
			filtered++
		}
	}
	var notes []string
	if shadowed > 0 {
		notes = append(notes, plural(shadowed, "duplicate copy hidden", "duplicate copies hidden")+" (--all shows them)")
	}
	if samePath > 0 {
		notes = append(notes, plural(samePath, "copy of an already listed folder hidden", "copies of already listed folders hidden"))
	}
	if filtered > 0 {
		notes = append(notes, plural(filtered, "skill filtered out", "skills filtered out"))
	}
	problems := 0
	for _, d := range snap.Diagnostics {
		if d.Severity != pipeline.SeverityInfo {
			problems++
		}
	}
	if problems > 0 {
		notes = append(notes, plural(problems, "problem", "problems")+" found (ccski sources explains)")
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, st.dim(strings.Join(notes, "; ")+"."))
	}
}
