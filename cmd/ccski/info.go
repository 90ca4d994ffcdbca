package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

const previewLines = 20

// infoJSON is the --json shape of info: the record plus the file.
type infoJSON struct {
	recordJSON
	Size        int64                 `json:"size"`
	Modified    time.Time             `json:"modified"`
	Hidden      string                `json:"hidden,omitempty"`
	Diagnostics []pipeline.Diagnostic `json:"diagnostics"`
	Content     string                `json:"content"`
	Truncated   bool                  `json:"truncated"`
}

func newInfo(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "info <name>",
		Short: "Show a skill's metadata and the start of its SKILL.md",
		Long: `Show a skill's metadata and the first lines of its SKILL.md.

<name> is an id from "ccski list", a provider-qualified name (codex:pdf), a
plugin name (example-skills:pdf) or a short name that is not ambiguous. It is
resolved as the MCP skill tool resolves it: a skill wins over a command of the
same name (give the command's id, such as claude:/deploy, to see the command).
A copy hidden by dedupe or filters is still shown, with the reason it is
hidden.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := a.load(cmd, withSnapshot)
			if err != nil {
				return err
			}
			full, _ := cmd.Flags().GetBool("full")
			r, hidden, err := resolveForInfo(l.snap, args[0])
			if err != nil {
				return failErr(err)
			}
			data, size, cut, err := readForInfo(r.File, full)
			if err != nil {
				return failErr(err)
			}
			content, more := preview(string(data), full)
			if cut {
				more = -1 // the rest was not read, so its lines are not counted
			}
			if a.json {
				diags := r.Diagnostics
				if diags == nil {
					diags = []pipeline.Diagnostic{}
				}
				return a.writeJSON(infoJSON{recordJSON: toJSON(r), Size: size, Modified: r.ModTime,
					Hidden: hidden, Diagnostics: diags, Content: content, Truncated: more != 0})
			}
			renderInfo(a, r, hidden, size, content, more)
			return nil
		},
	}
	cmd.Flags().Bool("full", false, "show the whole SKILL.md")
	cmd.Flags().Bool("json", false, "print JSON only: the record, size and content")
	agentViewFlag(cmd)
	discoveryFlags(cmd)
	return cmd
}

// resolveForInfo finds the record name designates with the rule the skill
// tool and prompts/get use (pipeline.Snapshot.LookupAny: an id designates
// exactly its own record, a skill wins over a same-named command, and a
// name only hidden records answer to finds them). It also returns why the
// record is hidden, or "" when it is visible: info explains every record,
// including those the MCP server would refuse to serve.
func resolveForInfo(s *pipeline.Snapshot, name string) (*pipeline.Record, string, error) {
	f, err := s.LookupAny(name)
	if err != nil {
		return nil, "", err
	}
	return f.Record, f.Hidden(), nil
}

// previewBytes is how much of a SKILL.md info reads without --full: a
// whole ordinary SKILL.md (the spec asks for under 500 lines), so that the
// lines left out are counted, but never all of a runaway file to show 20
// lines of it.
const previewBytes = 256 << 10

// readForInfo reads what info shows of file: all of it with full (up to
// skillmd.MaxSkillFile), else its first previewBytes. size is the file's
// size; cut reports that the file holds more than was read. The file is
// read through safefile: a FIFO or a device is refused, never waited on.
func readForInfo(file string, full bool) (data []byte, size int64, cut bool, err error) {
	f, st, err := safefile.Open(file)
	if err != nil {
		return nil, 0, false, err
	}
	defer f.Close()
	if full {
		data, err = safefile.ReadAll(f, st, skillmd.MaxSkillFile)
		if errors.Is(err, safefile.ErrTooLarge) {
			err = fmt.Errorf("%w: page it instead (less %s)", err, file)
		}
		return data, st.Size(), false, err
	}
	data, cut, err = safefile.Prefix(f, st, previewBytes)
	if cut {
		data = skillmd.TrimPartialRune(data)
	}
	return data, st.Size(), cut, err
}

// preview returns the first lines of content, or all of it, and how many
// lines were left out.
func preview(content string, full bool) (string, int) {
	if full {
		return content, 0
	}
	lines := strings.SplitAfter(content, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= previewLines {
		return content, 0
	}
	return strings.Join(lines[:previewLines], ""), len(lines) - previewLines
}

// renderInfo prints info's text. more is how many lines of the file
// content leaves out, or -1 when the file was not read to its end.
func renderInfo(a *app, r *pipeline.Record, hidden string, size int64, content string, more int) {
	st := style(a.color)
	w := a.stdout
	fmt.Fprintln(w, st.bold(r.ID))
	if r.Description != "" {
		fmt.Fprintln(w, wrap(r.Description, width(w), "  "))
	}
	fmt.Fprintln(w)
	field := func(k, v string) {
		if k != "" {
			k += ":"
		}
		fmt.Fprintf(w, "  %-11s %s\n", k, v)
	}
	field("Name", r.Name)
	field("Provider", r.Agent)
	field("Location", string(r.Location))
	field("File", r.File)
	if uri := r.SkillURI(); uri != "" {
		field("MCP URI", uri)
		if why := r.Unlistable(); why != "" {
			field("", st.yellow("not in MCP skills/list: "+why))
		}
	}
	field("Size", formatBytes(size))
	field("Modified", r.ModTime.Local().Format(time.DateTime))
	var res []string
	for _, x := range []struct {
		ok   bool
		name string
	}{{r.HasReferences, "references/"}, {r.HasScripts, "scripts/"}, {r.HasAssets, "assets/"}} {
		if x.ok {
			res = append(res, x.name)
		}
	}
	if len(res) == 0 {
		res = []string{"none"}
	}
	field("Resources", strings.Join(res, " "))
	if r.Plugin != nil {
		field("Plugin", fmt.Sprintf("%s@%s (%s)", r.Plugin.Plugin, r.Plugin.Marketplace, r.Plugin.Version))
	}
	if m := r.OpenAI; m != nil {
		if m.DisplayName != "" {
			field("Shown as", m.DisplayName)
		}
		if m.ShortDescription != "" {
			field("Summary", m.ShortDescription)
		}
		if m.AllowImplicitInvocation != nil && !*m.AllowImplicitInvocation {
			field("Invocation", "explicit only (agents/openai.yaml: allow_implicit_invocation: false)")
		}
	}
	for _, s := range r.Off {
		field("Switch", s.String()+": "+s.File)
	}
	switch {
	case hidden != "":
		field("Status", st.yellow("hidden: "+hidden))
	case r.Disabled:
		field("Status", st.red("disabled (.SKILL.md)"))
	default:
		field("Status", st.green("visible"))
	}
	for _, d := range r.Diagnostics {
		loc := ""
		if d.Line > 0 {
			loc = fmt.Sprintf("line %d: ", d.Line)
		}
		field("Warning", st.yellow(loc+d.Message))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, content)
	if !strings.HasSuffix(content, "\n") {
		fmt.Fprintln(w)
	}
	switch {
	case more > 0:
		fmt.Fprintln(w, st.dim(fmt.Sprintf("… (%s more, use --full to show all)", plural(more, "line", "lines"))))
	case more < 0:
		fmt.Fprintln(w, st.dim(fmt.Sprintf("… (more lines of a %s file, use --full to show all)", formatBytes(size))))
	}
}
