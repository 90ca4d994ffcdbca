package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/providers/all"
)

// configLong is the help of ccski config.
const configLong = `Show the effective configuration: every key, its value, and the layer that
set it (default, managed config, user config, project config, CCSKI_*
environment variable or flag). Layers apply in that order, each overriding the
ones before, except that a project config may only make the keys that guard
the user (mcp.scan, mcp.require_trusted, the transport and address of the
server, ...) stricter: a value of it that would loosen one is ignored, and
listed under "Ignored" with the reason. Secrets (mcp.auth_token) are shown as
<redacted>, in text and JSON alike.

--schema prints the JSON Schema of ccski.yaml instead, for editors: every
key, its type, valid values, default and documentation, the providers'
sections included. It reads no configuration.`

// redactedNote ends the text output when a secret was redacted.
const redactedNote = "Secrets are shown as " + configs.RedactedValue +
	" and never printed; the layer in parentheses says where each is set."

func newConfig(a *app) *cobra.Command {
	return command(spec{use: "config", args: cobra.NoArgs, long: configLong, run: a.showConfig,
		short: "Show the effective configuration and which layer set each value"},
		jsonFlag("print JSON only: config, sources, files and ignored values"), func(cmd *cobra.Command) {
			cmd.Flags().Bool("schema", false, "print the JSON Schema of ccski.yaml and exit")
			configs.AddFlags(cmd.Flags())
			configs.AddMCPFlags(cmd.Flags())
		})
}

// showConfig runs ccski config.
func (a *app) showConfig(cmd *cobra.Command, _ []string) error {
	if schema, _ := cmd.Flags().GetBool("schema"); schema {
		b, err := configs.SchemaJSON(all.Registry())
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(b)
		return err
	}
	c, err := a.config(cmd)
	if err != nil {
		return err
	}
	v := action.ShowConfig(c)
	return a.show(v, func() { renderConfig(a.stdout, style(a.color), v) })
}

// renderConfig prints a line per key: its value and the layer that set
// it.
func renderConfig(w io.Writer, st style, v *action.ConfigView) {
	if len(v.Files) == 0 {
		fmt.Fprintln(w, st.Dim("No config file found; built-in defaults apply."))
	} else {
		fmt.Fprintln(w, st.Dim("Config files: "+strings.Join(v.Files, ", ")))
	}
	fmt.Fprintln(w)
	for _, k := range v.Keys {
		src := v.Sources[k]
		if src == "" {
			src = "default"
		}
		val := formatValue(v.Flat[k])
		if src != "default" {
			val = st.Bold(val)
		}
		fmt.Fprintf(w, "%-38s %s  %s\n", k, val, st.Dim("("+src+")"))
	}
	if len(v.Ignored) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.Bold(fmt.Sprintf("Ignored (%d): values a config file may not set, not taken as written", len(v.Ignored))))
		for _, ig := range v.Ignored {
			fmt.Fprintf(w, "  %s: %s %s: %s; %s is used\n", ig.Key, st.Yellow(formatValue(ig.Value)), st.Dim("("+ig.Layer+")"),
				ig.Reason, usedValue(ig))
		}
	}
	if len(v.Redacted) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, st.Dim(redactedNote))
	}
}

// usedValue is the value an ignored one gives way to, as the Ignored
// list says it: an empty path or folder (workspace, user_dir, a
// provider's home or file) is the one ccski finds itself, an empty secret
// is none.
func usedValue(ig configs.Ignored) string {
	if s, ok := ig.Used.(string); ok && s == "" {
		if configs.IsSecret(ig.Key) {
			return "none"
		}
		return "the default (auto-detected)"
	}
	return formatValue(ig.Used)
}

func formatValue(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return `""`
		}
		return x
	case time.Duration:
		return x.String()
	case []string:
		return "[" + strings.Join(x, ", ") + "]"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmt.Sprint(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}
