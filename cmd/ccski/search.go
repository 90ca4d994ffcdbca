package main

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/internal/action"
	"github.com/spf13/cobra"
)

// hitJSON is the --json shape of a search result.
type hitJSON struct {
	recordJSON
	Score   int    `json:"score"`
	Snippet string `json:"snippet,omitempty"`
}

func newSearch(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "search <query>",
		Short: "Find skills by id, name and description (and body with --content)",
		Long: `Find skills by id, name and description, best match first.

Every word of the query must match. Matches in the name rank highest; a word
one or two letters off a name word still matches. --content also searches the
SKILL.md bodies (the first MiB of each) and shows a snippet around the first
match.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			req := action.SearchRequest{Query: strings.Join(args, " ")}
			req.Content, _ = cmd.Flags().GetBool("content")
			req.Limit, _ = cmd.Flags().GetInt("limit")
			res, err := action.Search(cmd.Context(), c, req)
			if err != nil {
				return exitOf(err)
			}
			hits, total := res.Hits, res.Total
			if a.json {
				out := make([]hitJSON, 0, len(hits))
				for _, h := range hits {
					out = append(out, hitJSON{recordJSON: toJSON(h.Record), Score: h.Score, Snippet: h.Snippet})
				}
				return writeJSONArray(a.stdout, out)
			}
			st := style(a.color)
			w := a.stdout
			if total == 0 {
				fmt.Fprintln(w, "No skills matched your query.")
				return nil
			}
			if len(hits) < total {
				fmt.Fprintf(w, "%s\n\n", st.heading(fmt.Sprintf("Matches (%d of %d)", len(hits), total)))
			} else {
				fmt.Fprintf(w, "%s\n\n", st.heading(fmt.Sprintf("Matches (%d)", total)))
			}
			for _, h := range hits {
				r := h.Record
				fmt.Fprintf(w, "- %s  %s\n", st.cyan(r.ID), st.dim("("+string(r.Location)+")"))
				if r.Description != "" {
					fmt.Fprintln(w, st.dim(wrap(r.Description, width(w), "    ")))
				}
				if h.Snippet != "" {
					fmt.Fprintln(w, "    "+st.yellow("» ")+h.Snippet)
				}
			}
			return nil
		},
	}
	cmd.Flags().Bool("content", false, "also search SKILL.md bodies and show snippets")
	cmd.Flags().Int("limit", 10, "show at most this many results (0: all)")
	cmd.Flags().Bool("json", false, "print JSON only: an array of results with score")
	agentViewFlag(cmd)
	discoveryFlags(cmd)
	return cmd
}
