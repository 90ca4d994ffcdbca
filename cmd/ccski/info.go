package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/pipeline"
)

// infoLong is the help of ccski info.
const infoLong = `Show a skill's metadata and the first lines of its SKILL.md.

<name> is an id from "ccski list", a provider-qualified name (codex:pdf), a
plugin name (example-skills:pdf) or a short name that is not ambiguous. It is
resolved as the MCP skill tool resolves it: a skill wins over a command of the
same name (give the command's id, such as claude:/deploy, to see the command).
A copy hidden by dedupe or filters is still shown, with the reason it is
hidden.`

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
	return command(spec{use: "info <name>", args: cobra.ExactArgs(1), long: infoLong, run: a.info,
		short: "Show a skill's metadata and the start of its SKILL.md"},
		jsonFlag("print JSON only: the record, size and content"), fullFlag, agentViewFlag, discoveryFlags)
}

// fullFlag adds --full to info.
func fullFlag(cmd *cobra.Command) { cmd.Flags().Bool("full", false, "show the whole SKILL.md") }

// info runs ccski info.
func (a *app) info(cmd *cobra.Command, args []string) error {
	full, _ := cmd.Flags().GetBool("full")
	res, err := act(a, cmd, action.Info, action.InfoRequest{Name: args[0], Full: full})
	if err != nil {
		return err
	}
	r := res.Record
	diags := r.Diagnostics
	if diags == nil {
		diags = []pipeline.Diagnostic{}
	}
	j := toJSON(r)
	j.Integrity = res.Integrity
	j.Signature = res.Signature
	j.NotServed = res.NotServed
	return a.show(infoJSON{recordJSON: j, Size: res.Size, Modified: r.ModTime, Hidden: res.Hidden,
		Diagnostics: diags, Content: res.Content, Truncated: res.More != 0}, func() { renderInfo(a, res) })
}

// renderInfo prints info's text.
func renderInfo(a *app, info *action.InfoResult) {
	r, hidden, size, content, more := info.Record, info.Hidden, info.Size, info.Content, info.More
	st := style(a.color)
	w := a.stdout
	fmt.Fprintln(w, st.Bold(r.ID))
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
	if r.Alias != "" {
		field("Also named", r.Alias+aliasOrigin(r))
	}
	field("Provider", r.Agent)
	field("Location", string(r.Location))
	field("File", r.File)
	if uri := r.SkillURI(); uri != "" {
		field("MCP URI", uri)
		if why := r.Unlistable(); why != "" {
			field("", st.Yellow("not in MCP skills/list: "+why))
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
		field("Status", st.Yellow("hidden: "+hidden))
	case r.Disabled:
		field("Status", st.Red("disabled (.SKILL.md)"))
	default:
		field("Status", st.Green("visible"))
	}
	if in := info.Integrity; in != nil && in.Since() != "" {
		field("Integrity", st.Red(in.Describe(r.ID)))
	}
	if sig := info.Signature; sig != nil {
		switch {
		case sig.Signed():
			field("Signature", st.Green(sig.Describe())+st.Dim(fmt.Sprintf(" (%s, %s)", sig.Signer.Format, sig.Signer.File)))
		case sig.State == pipeline.SignatureInvalid:
			field("Signature", st.Red(sig.Describe()))
		default:
			field("Signature", sig.Describe())
		}
	}
	if info.NotServed != "" {
		field("MCP", st.Red(info.NotServed))
	}
	for _, d := range r.Diagnostics {
		loc := ""
		if d.Line > 0 {
			loc = fmt.Sprintf("line %d: ", d.Line)
		}
		field("Warning", st.Yellow(loc+d.Message))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, content)
	if !strings.HasSuffix(content, "\n") {
		fmt.Fprintln(w)
	}
	switch {
	case more > 0:
		fmt.Fprintln(w, st.Dim(fmt.Sprintf("… (%s more, use --full to show all)", plural(more, "line", "lines"))))
	case more < 0:
		fmt.Fprintln(w, st.Dim(fmt.Sprintf("… (more lines of a %s file, use --full to show all)", formatBytes(size))))
	}
}

// aliasOrigin says where a record's alias comes from, for info's "Also
// named" line.
func aliasOrigin(r *pipeline.Record) string {
	if r.FolderNamed {
		return " (its frontmatter name; its host names it after its folder)"
	}
	return " (its folder)"
}
