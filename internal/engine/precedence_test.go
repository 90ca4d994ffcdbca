package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/providers"
)

// TestPrecedenceDefaults checks that the configuration's defaults for
// providers.<name>.precedence are the hosts' own orders and that the JSON
// Schema accepts exactly the values the providers accept.
func TestPrecedenceDefaults(t *testing.T) {
	var schema struct {
		Properties struct {
			Providers struct {
				Properties map[string]struct {
					Properties map[string]struct {
						Enum []string `json:"enum"`
					} `json:"properties"`
				} `json:"properties"`
			} `json:"providers"`
		} `json:"properties"`
	}
	b, err := configs.SchemaJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	for _, order := range []providers.HostOrder{providers.ClaudeOrder, providers.CodexOrder, providers.AgentsOrder} {
		got := configs.Default().Providers[order.Provider].Options["precedence"]
		if got != string(order.Prefers) {
			t.Errorf("default providers.%s.precedence = %v, want the host's %q", order.Provider, got, order.Prefers)
		}
		enum := schema.Properties.Providers.Properties[order.Provider].Properties["precedence"].Enum
		if d := cmp.Diff(providers.PrecedenceValues, enum); d != "" {
			t.Errorf("schema enum of %s (-providers +schema):\n%s", order.Option(), d)
		}
	}
}
