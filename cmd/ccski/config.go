package main

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/providers/all"
)

type configJSON struct {
	Config  map[string]any    `json:"config"`
	Sources map[string]string `json:"sources"`
	Files   []string          `json:"files"`
	// Redacted lists the keys whose values are secrets, shown as
	// configs.RedactedValue.
	Redacted []string `json:"redacted,omitempty"`
}

// redactedNote ends the text output when a secret was redacted.
const redactedNote = "Secrets are shown as " + configs.RedactedValue +
	" and never printed; the layer in parentheses says where each is set."

func newConfig(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Show the effective configuration and which layer set each value",
		Long: `Show the effective configuration: every key, its value, and the layer that
set it (default, user config, project config, CCSKI_* environment variable or
flag). Layers apply in that order, each overriding the ones before. Secrets
(mcp.auth_token) are shown as <redacted>, in text and JSON alike.

--schema prints the JSON Schema of ccski.yaml instead, for editors: every
key, its type, valid values, default and documentation, the providers'
sections included. It reads no configuration.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if schema, _ := cmd.Flags().GetBool("schema"); schema {
				b, err := configs.SchemaJSON(all.Registry())
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(b)
				return err
			}
			l, err := a.load(cmd, configOnly)
			if err != nil {
				return err
			}
			cfg := l.cfg.Config
			files := l.cfg.Files
			if files == nil {
				files = []string{}
			}
			if a.json {
				tree, redacted := configs.Redact(jsonTree(cfg.Tree()))
				return a.writeJSON(configJSON{Config: tree, Sources: l.cfg.Sources, Files: files, Redacted: redacted})
			}
			st := style(a.color)
			flat, redacted := configs.Redact(cfg.Flat())
			keys := make([]string, 0, len(flat))
			for k := range flat {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(files) == 0 {
				fmt.Fprintln(a.stdout, st.dim("No config file found; built-in defaults apply."))
			} else {
				fmt.Fprintln(a.stdout, st.dim("Config files: "+strings.Join(files, ", ")))
			}
			fmt.Fprintln(a.stdout)
			for _, k := range keys {
				src := l.cfg.Sources[k]
				if src == "" {
					src = "default"
				}
				v := formatValue(flat[k])
				if src != "default" {
					v = st.bold(v)
				}
				fmt.Fprintf(a.stdout, "%-38s %s  %s\n", k, v, st.dim("("+src+")"))
			}
			if len(redacted) > 0 {
				fmt.Fprintln(a.stdout)
				fmt.Fprintln(a.stdout, st.dim(redactedNote))
			}
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print JSON only: config, sources and files")
	cmd.Flags().Bool("schema", false, "print the JSON Schema of ccski.yaml and exit")
	configs.AddFlags(cmd.Flags())
	configs.AddMCPFlags(cmd.Flags())
	return cmd
}

// jsonTree returns m with durations written as in ccski.yaml ("30s")
// rather than as a count of nanoseconds, which a config file would read
// back as milliseconds.
func jsonTree(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			out[k] = jsonTree(x)
		case time.Duration:
			out[k] = x.String()
		default:
			out[k] = v
		}
	}
	return out
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
