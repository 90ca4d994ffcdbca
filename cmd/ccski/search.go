package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// searchLong is the help of ccski search.
const searchLong = `Find skills by id, name and description, best match first.

Every word of the query must match. Matches in the name rank highest; a word
one or two letters off a name word still matches. --content also searches the
SKILL.md bodies (the first MiB of each) and shows a snippet around the first
match.`

// hitJSON is the --json shape of a search result.
type hitJSON struct {
	recordJSON
	Score   int    `json:"score"`
	Snippet string `json:"snippet,omitempty"`
}

func newSearch(a *app) *cobra.Command {
	return command(spec{use: "search <query>", args: cobra.MinimumNArgs(1), long: searchLong, run: a.search,
		short: "Find skills by id, name and description (and body with --content)"},
		jsonFlag("print JSON only: an array of results with score"), func(cmd *cobra.Command) {
			cmd.Flags().Bool("content", false, "also search SKILL.md bodies and show snippets")
			cmd.Flags().Int("limit", 10, "show at most this many results (0: all)")
		}, agentViewFlag, discoveryFlags)
}

// search runs ccski search.
func (a *app) search(cmd *cobra.Command, args []string) error {
	req := action.SearchRequest{Query: strings.Join(args, " "), Notices: a.stderr}
	req.Content, _ = cmd.Flags().GetBool("content")
	req.Limit, _ = cmd.Flags().GetInt("limit")
	res, err := act(a, cmd, action.Search, req)
	if err != nil {
		return err
	}
	if a.json {
		out := make([]hitJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			out = append(out, hitJSON{recordJSON: toJSON(h.Record), Score: h.Score, Snippet: h.Snippet})
		}
		return writeJSONArray(a.stdout, out)
	}
	renderHits(a.stdout, style(a.color), res)
	return nil
}

// renderHits prints the hits, best first.
func renderHits(w io.Writer, st style, res *action.SearchResult) {
	hits, total := res.Hits, res.Total
	defer func() {
		if len(res.PluginOff) > 0 {
			if total > 0 {
				fmt.Fprintln(w)
			}
			renderPluginOff(w, st, res.PluginOff)
		}
	}()
	if total == 0 {
		fmt.Fprintln(w, "No skills matched your query.")
		return
	}
	if len(hits) < total {
		fmt.Fprintf(w, "%s\n\n", st.Heading(fmt.Sprintf("Matches (%d of %d)", len(hits), total)))
	} else {
		fmt.Fprintf(w, "%s\n\n", st.Heading(fmt.Sprintf("Matches (%d)", total)))
	}
	for _, h := range hits {
		r := h.Record
		fmt.Fprintf(w, "- %s  %s\n", st.Cyan(r.ID), st.Dim("("+string(r.Location)+")"))
		if r.Description != "" {
			fmt.Fprintln(w, st.Dim(wrap(r.Description, width(w), "    ")))
		}
		if h.Snippet != "" {
			fmt.Fprintln(w, "    "+st.Yellow("» ")+h.Snippet)
		}
	}
}
