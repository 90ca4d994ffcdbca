package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/all"
)

// style is report.Style, ccski's one colour wrapper: colour when true.
type style = report.Style

// recordJSON is the stable JSON shape of a record.
type recordJSON struct {
	ID string `json:"id"`
	// Type is "skill" or "command".
	Type pipeline.Type `json:"type"`
	Name string        `json:"name"`
	// Alias is the skill's other name, which it answers to as well: its
	// frontmatter name when its host names it after its folder (Claude
	// Code), else its folder's name; omitted when the two are the same.
	Alias         string               `json:"alias,omitempty"`
	Description   string               `json:"description"`
	Provider      string               `json:"provider"`
	Location      pipeline.Location    `json:"location"`
	Path          string               `json:"path"`
	File          string               `json:"file"`
	Disabled      bool                 `json:"disabled"`
	HasReferences bool                 `json:"hasReferences"`
	HasScripts    bool                 `json:"hasScripts"`
	HasAssets     bool                 `json:"hasAssets"`
	PluginInfo    *pipeline.PluginInfo `json:"pluginInfo,omitempty"`
	// OpenAI is the skill's agents/openai.yaml metadata, when it has any.
	OpenAI *pipeline.OpenAIMetadata `json:"openai,omitempty"`
	// Off are the switches of agents that read the skill which turn it
	// off or limit it (Claude Code's skillOverrides, ...).
	Off []pipeline.HostSwitch `json:"off,omitempty"`
	// URI is the skill's SEP-2640 resource URI, what MCP clients of
	// `ccski mcp` read it as (skill://codex/pdf/SKILL.md); commands have
	// none. Unlisted says why the extension's skills/list leaves the
	// skill out (its name breaks the Agent Skills naming rules, ...).
	URI      string `json:"uri,omitempty"`
	Unlisted string `json:"unlisted,omitempty"`
	// Installed says where ccski install put the skill from (its
	// source, commit and lock), for a skill a ccski.lock names.
	Installed *install.Installed `json:"installed,omitempty"`
	// Integrity is what the trust store says of a project or plugin
	// skill's files (ccski list only): new, recorded, trusted, changed
	// (with the files) or unknown.
	Integrity *pipeline.Integrity `json:"integrity,omitempty"`
	// Signature is what the signature a skill carries says of its files
	// (ccski list and info): signed, with the signer; unsigned; or
	// invalid, with why. Commands have none.
	Signature *pipeline.Signature `json:"signature,omitempty"`
	// NotServed says why ccski mcp does not serve the record under
	// mcp.require_signed.
	NotServed string `json:"notServed,omitempty"`
	// LinkedTo is, for a copy list --all shows of a listed skill's
	// folder reached through another root, the id of the listed record.
	LinkedTo string `json:"linkedTo,omitempty"`
}

func toJSON(r *pipeline.Record) recordJSON {
	return recordJSON{
		ID: r.ID, Type: r.Type.OrSkill(), Name: r.Name, Alias: r.Alias, Description: r.Description, Provider: r.Agent, Location: r.Location,
		Path: r.Dir, File: r.File, Disabled: r.Disabled, HasReferences: r.HasReferences,
		HasScripts: r.HasScripts, HasAssets: r.HasAssets, PluginInfo: r.Plugin, OpenAI: r.OpenAI,
		URI: r.SkillURI(), Unlisted: unlisted(r), Off: r.Off,
	}
}

// unlisted is Record.Unlistable for a skill, "" for a command.
func unlisted(r *pipeline.Record) string {
	if r.IsCommand() {
		return ""
	}
	return r.Unlistable()
}

// sortProviders sorts provider names as the filters break ties: the
// registered providers' names in the registry's order (all.ProviderNames),
// then the rest (dynamic agents) alphabetically.
func sortProviders(ps []string) {
	order := all.ProviderNames()
	rank := func(p string) (int, string) {
		if i := slices.Index(order, p); i >= 0 {
			return i, ""
		}
		return len(order), p
	}
	sort.Slice(ps, func(i, j int) bool {
		ri, ni := rank(ps[i])
		rj, nj := rank(ps[j])
		if ri != rj {
			return ri < rj
		}
		return ni < nj
	})
}

var locationOrder = []pipeline.Location{pipeline.LocationCustom, pipeline.LocationProject, pipeline.LocationUser,
	pipeline.LocationSystem, pipeline.LocationPlugin}

// width is the width to wrap text written to w at (see wrapWidth).
func width(w io.Writer) int { return wrapWidth(terminalColumns(w), os.Getenv("COLUMNS")) }

// wrapWidth is the width to wrap text at: the terminal's width when the
// output is a terminal (cols > 0), else $COLUMNS (a shell variable most
// shells do not export, so the terminal's own size comes first), else 80;
// kept between 40 and 120, since longer lines of prose read badly.
func wrapWidth(cols int, columnsVar string) int {
	n := cols
	if n <= 0 {
		if v, err := strconv.Atoi(strings.TrimSpace(columnsVar)); err == nil && v > 0 {
			n = v
		}
	}
	if n <= 0 {
		return 80
	}
	return min(max(n, 40), 120)
}

// terminalColumns returns the width of the terminal w writes to, or 0
// when w is no terminal.
func terminalColumns(w io.Writer) int {
	f, ok := report.OutputFile(w)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return cols
}

// wrap breaks text into lines of at most w characters, each prefixed with
// indent.
func wrap(text string, w int, indent string) string {
	w -= utf8.RuneCountInString(indent)
	w = max(w, 20)
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		n := utf8.RuneCountInString(word)
		switch {
		case i == 0:
			b.WriteString(indent)
		case line+1+n > w:
			b.WriteString("\n" + indent)
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// formatBytes prints a size as "512 B", "1.5 KB", "2.0 MB".
func formatBytes(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KB", "MB", "GB"} {
		f /= 1024
		if f < 1024 || u == "GB" {
			return fmt.Sprintf("%.1f %s", f, u)
		}
	}
	return ""
}

// plural is "1 one" or "n many".
var plural = report.Plural

// renderRoots prints one line per root: a mark, the label (provider,
// location and plugin), what the root gave, then its path. The label and
// count columns are as wide as their widest entry, so a long plugin name
// never pushes a line out of line; the path, the one column of unbounded
// width, comes last.
func renderRoots(w io.Writer, st style, roots []pipeline.SourceRoot) {
	type row struct {
		label, count string
		exists       bool
		path         string
	}
	rows := make([]row, len(roots))
	labelW, countW := 0, 0
	for i, r := range roots {
		label := r.Provider + " " + string(r.Location)
		if r.Plugin != nil {
			label += " " + r.Plugin.Key()
		}
		count := plural(r.Skills, "skill", "skills")
		if r.Type == pipeline.TypeCommand {
			count = plural(r.Skills, "command", "commands")
		}
		if !r.Exists {
			count = "missing"
		}
		rows[i] = row{label: label, count: count, exists: r.Exists, path: r.Path}
		labelW = max(labelW, utf8.RuneCountInString(label))
		countW = max(countW, utf8.RuneCountInString(count))
	}
	for _, r := range rows {
		mark, count := st.Green("✓"), padRight(r.count, countW)
		if !r.exists {
			mark, count = st.Dim("-"), st.Dim(count)
		}
		fmt.Fprintf(w, "  %s %s  %s  %s\n", mark, padRight(r.label, labelW), count, r.path)
	}
}

// padRight pads s with spaces to n characters.
func padRight(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}
