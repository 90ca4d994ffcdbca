package main

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// workflowBlock is what install-workflow writes into the instructions
// file of the agent named agent (title for people): how that agent finds
// the skills its own listing leaves out, with ccski showing them as that
// agent sees them (--agent), so that a skill the user turned off for it
// stays out of sight.
func workflowBlock(agent, title string) string {
	return `<workflow name="ccski">
More Agent Skills may be installed on this machine than this session lists: other agents' skills, plugin skills and shared ones. ccski finds them all.
- To see them, run ` + "`ccski list --agent " + agent + "`" + ` (add ` + "`--json`" + ` to parse it).
- To find one for a task, run ` + "`ccski search --agent " + agent + ` "<words>"` + "`" + `.
- To use one, run ` + "`ccski info --agent " + agent + " <name> --full`" + ` and follow the SKILL.md it prints; the files it refers to are in the folder of its File.
A skill the user turned off for ` + title + ` stays off: with --agent ` + agent + `, list and search leave it out and info says it is off, so do not use it unless the user asks.
</workflow>`
}

var (
	// workflowOpen matches the opening tag of the ccski workflow element,
	// either quote style, other attributes allowed.
	workflowOpen = regexp.MustCompile(`<workflow\s+(?:[^>]*\s)?name\s*=\s*["']ccski["'][^>]*>`)
	// anyWorkflowOpen matches the opening tag of any workflow element.
	anyWorkflowOpen = regexp.MustCompile(`<workflow(?:\s[^>]*)?>`)
	// fenceLine matches a Markdown code fence line: up to three spaces,
	// then three or more backticks or tildes.
	fenceLine = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})")
)

// fencedRanges returns the byte ranges of data's fenced code blocks, from
// the start of the opening fence line to the end of the closing one (or
// of the file, for a fence never closed).
func fencedRanges(data []byte) [][2]int {
	var out [][2]int
	open, start := "", 0
	for at := 0; at < len(data); {
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += at + 1
		}
		line := bytes.TrimRight(data[at:end], "\r\n")
		if m := fenceLine.FindSubmatch(line); m != nil {
			switch fence := string(m[1]); {
			case open == "":
				open, start = fence, at
			case fence[0] == open[0] && len(fence) >= len(open) && len(bytes.TrimSpace(line[len(m[0]):])) == 0:
				out = append(out, [2]int{start, end})
				open = ""
			}
		}
		at = end
	}
	if open != "" {
		out = append(out, [2]int{start, len(data)})
	}
	return out
}

// findWorkflow returns the byte range of the ccski workflow element in
// data, outside code fences: from its opening tag to the first
// </workflow> after it. found is false when data has none. An element
// that another <workflow> opens inside of, or that is never closed, is
// an error: replacing it could take the user's text along.
func findWorkflow(data []byte) (start, end int, found bool, err error) {
	fences := fencedRanges(data)
	fenced := func(off int) bool {
		for _, r := range fences {
			if off >= r[0] && off < r[1] {
				return true
			}
		}
		return false
	}
	line := func(off int) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
	start = -1
	for _, loc := range workflowOpen.FindAllIndex(data, -1) {
		if !fenced(loc[0]) {
			start, end = loc[0], loc[1]
			break
		}
	}
	if start < 0 {
		return 0, 0, false, nil
	}
	next := -1
	for _, loc := range anyWorkflowOpen.FindAllIndex(data[end:], -1) {
		if !fenced(end + loc[0]) {
			next = end + loc[0]
			break
		}
	}
	closer := []byte("</workflow>")
	for at := end; ; {
		i := bytes.Index(data[at:], closer)
		if i < 0 {
			return 0, 0, false, fmt.Errorf(`the <workflow name="ccski"> element at line %d is never closed; `+
				"add </workflow> after it or remove it, then run again", line(start))
		}
		if fenced(at + i) {
			at += i + len(closer)
			continue
		}
		if next >= 0 && next < at+i {
			return 0, 0, false, fmt.Errorf(`the <workflow name="ccski"> element at line %d is not closed before the `+
				"<workflow> at line %d; add </workflow> where it ends, then run again", line(start), line(next))
		}
		return start, at + i + len(closer), true, nil
	}
}

// upsertWorkflow returns data with block in it: the existing ccski
// workflow element replaced, else the block appended after a blank line.
// Every other byte is kept; the block takes the file's line endings. An
// element it cannot delimit safely is an error (see findWorkflow).
func upsertWorkflow(data []byte, block string) ([]byte, error) {
	if bytes.Contains(data, []byte("\r\n")) {
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	start, end, found, err := findWorkflow(data)
	if err != nil {
		return nil, err
	}
	if found {
		out := append([]byte(nil), data[:start]...)
		out = append(out, block...)
		return append(out, data[end:]...), nil
	}
	eol := "\n"
	if strings.Contains(block, "\r\n") {
		eol = "\r\n"
	}
	out := append([]byte(nil), data...)
	switch {
	case len(bytes.TrimSpace(data)) == 0:
		out = nil
	case !bytes.HasSuffix(data, []byte("\n")):
		out = append(out, eol+eol...)
	case !bytes.HasSuffix(data, []byte(eol+eol)):
		out = append(out, eol...) // a blank line before the block
	}
	out = append(out, block...)
	return append(out, eol...), nil
}

// workflowResult is one target of install-workflow.
type workflowResult struct {
	Agent  string `json:"agent"`
	Path   string `json:"path"`
	Status string `json:"status"` // installed, updated, unchanged, failed
	Error  string `json:"error,omitempty"`
	Diff   string `json:"diff,omitempty"`
}

func newInstallWorkflow(a *app) *cobra.Command {
	names := strings.Join(all.HostNames(), ", ")
	cmd := &cobra.Command{
		Use:   "install-workflow",
		Short: "Tell agents how to find more skills with ccski, in their instructions files",
		Long: `Add (or update) a short <workflow name="ccski"> block in each agent's
instructions file that tells it how to find and load the skills it does not
list itself with ccski: CLAUDE.md for Claude Code, AGENTS.md for Codex,
GEMINI.md for Gemini CLI, in the user's agent folder (--scope user, the
default) or in the project (--scope project). Each agent's block runs ccski
with --agent set to that agent, so that the skills the user turned off for
it stay out of its sight. Running it again changes nothing; a changed block
is replaced where it is, and every other byte of the file is kept (a block
in a code fence is not one; one that is not closed before the next
<workflow> is an error). --dry-run prints the diff instead.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := a.load(cmd, engineOnly)
			if err != nil {
				return err
			}
			scope, _ := cmd.Flags().GetString("scope")
			if scope != "user" && scope != "project" {
				return usageErr(fmt.Errorf("invalid --scope %q: use user or project", scope))
			}
			agents, _ := cmd.Flags().GetStringSlice("agent")
			var hosts []providers.Host
			for _, h := range all.Hosts() {
				if h.Instructions != nil && (len(agents) == 0 || slices.Contains(agents, "all") || slices.Contains(agents, h.Name)) {
					hosts = append(hosts, h)
				}
			}
			for _, ag := range agents {
				if ag != "all" && !slices.Contains(all.HostNames(), ag) {
					return usageErr(fmt.Errorf("unknown agent %q: use %s or all", ag, names))
				}
			}
			dry, _ := cmd.Flags().GetBool("dry-run")
			cwd, _ := os.Getwd()
			results, failed := installWorkflow(l.engine.Env(), hosts, scope, cwd, dry)
			if a.json {
				if err := a.writeJSON(struct {
					Scope   string           `json:"scope"`
					DryRun  bool             `json:"dryRun"`
					Results []workflowResult `json:"results"`
				}{scope, dry, results}); err != nil {
					return err
				}
			} else {
				st := style(a.color)
				for _, r := range results {
					mark := map[string]string{"installed": st.green("✓"), "updated": st.green("↻"),
						"unchanged": st.dim("○"), "failed": st.red("✗")}[r.Status]
					line := fmt.Sprintf("%s %s %s: %s", mark, hostTitle(r.Agent), r.Status, r.Path)
					if r.Error != "" {
						line += ": " + st.red(r.Error)
					}
					fmt.Fprintln(a.stdout, line)
					if dry && r.Diff != "" {
						fmt.Fprint(a.stdout, r.Diff)
					}
				}
				if dry {
					fmt.Fprintln(a.stdout, st.dim("Dry run: nothing was written."))
				}
			}
			if failed {
				return failErr(fmt.Errorf("the workflow block could not be written everywhere"))
			}
			return nil
		},
	}
	cmd.Flags().StringSlice("agent", nil, "only these agents: "+names+" or all (default all)")
	ownFlag(cmd, "agent")
	cmd.Flags().String("scope", "user", "user (the agents' own folders) or project (the workspace)")
	cmd.Flags().Bool("dry-run", false, "write nothing; print the diff of each file that would change")
	cmd.Flags().Bool("json", false, "print JSON only: the result for each agent")
	discoveryFlags(cmd)
	return cmd
}

// installWorkflow upserts the block into each host's instructions file;
// the diffs name the files for a person working in dir.
func installWorkflow(env providers.Env, hosts []providers.Host, scope, dir string, dry bool) ([]workflowResult, bool) {
	files := providers.NewFiles()
	var results []workflowResult
	failed := false
	for _, h := range hosts {
		path := h.Instructions(env, scope)
		res := workflowResult{Agent: h.Name, Path: path}
		old, existed, err := files.Read(path)
		if err != nil {
			res.Status, res.Error, failed = "failed", err.Error(), true
			results = append(results, res)
			continue
		}
		updated, err := upsertWorkflow(old, workflowBlock(h.Name, h.Title))
		if err != nil {
			res.Status, res.Error, failed = "failed", fmt.Sprintf("%s: %v", path, err), true
			results = append(results, res)
			continue
		}
		_, _, had, _ := findWorkflow(old)
		switch {
		case bytes.Equal(updated, old):
			res.Status = "unchanged"
		case had:
			res.Status = "updated"
		default:
			res.Status = "installed"
		}
		files.Set(path, updated)
		if res.Status != "unchanged" {
			res.Diff = report.Diff(dir, path, old, updated, existed)
		}
		results = append(results, res)
	}
	if !dry {
		if err := files.Write(); err != nil {
			for i := range results {
				if results[i].Status != "unchanged" {
					results[i].Status, results[i].Error = "failed", err.Error()
				}
			}
			return results, true
		}
	}
	return results, failed
}
