package configs

// Tree returns c as a nested map keyed like ccski.yaml, for printing.
func (c Config) Tree() map[string]any { return defaultMap(c) }

// Flat returns c as a map from flattened keys ("mcp.port",
// "providers.codex.home") to values.
func (c Config) Flat() map[string]any {
	out := map[string]any{}
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		for k, v := range m {
			key := join(prefix, k)
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(sub, key)
				continue
			}
			out[key] = v
		}
	}
	walk(c.Tree(), "")
	return out
}
