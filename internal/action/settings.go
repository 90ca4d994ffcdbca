package action

import (
	"sort"
	"time"

	"github.com/ccski/ccski/configs"
)

// ConfigView is the effective configuration as ccski config shows it,
// every secret redacted, and its --json output.
type ConfigView struct {
	// Config is the configuration as a tree, durations written as in
	// ccski.yaml ("30s").
	Config map[string]any `json:"config"`
	// Sources maps each flattened key to the layer that set it.
	Sources map[string]string `json:"sources"`
	// Files are the config files read, lowest layer first.
	Files []string `json:"files"`
	// Redacted lists the keys whose values are secrets, shown as
	// configs.RedactedValue.
	Redacted []string `json:"redacted,omitempty"`
	// Ignored lists the values of config files that were not taken as
	// written, with the reason: a project config's that would loosen a
	// sensitive key (configs.Loaded.Ignored).
	Ignored []configs.Ignored `json:"ignored"`
	// Flat is the configuration by flattened key ("mcp.port"), and Keys
	// its keys in order.
	Flat map[string]any `json:"-"`
	Keys []string       `json:"-"`
}

// ShowConfig returns the effective configuration of c, whose layers are
// read (LoadConfig), with secrets redacted.
func ShowConfig(c *Config) *ConfigView {
	cfg := c.Loaded.Config
	v := &ConfigView{Sources: c.Loaded.Sources, Files: c.Loaded.Files}
	if v.Files == nil {
		v.Files = []string{}
	}
	v.Ignored = c.Loaded.Ignored
	if v.Ignored == nil {
		v.Ignored = []configs.Ignored{}
	}
	v.Config, v.Redacted = configs.Redact(jsonTree(cfg.Tree()))
	v.Flat, _ = configs.Redact(cfg.Flat())
	v.Keys = make([]string, 0, len(v.Flat))
	for k := range v.Flat {
		v.Keys = append(v.Keys, k)
	}
	sort.Strings(v.Keys)
	return v
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
