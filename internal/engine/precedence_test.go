package engine

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/all"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/copilot"
	"github.com/ccski/ccski/providers/cursor"
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
	b, err := configs.SchemaJSON(all.Registry())
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	defaults := configs.Default(all.Registry()).Flat()
	for _, order := range []providers.HostOrder{claude.Order, codex.Order, agents.Order, copilot.Order, cursor.Order} {
		got := defaults["providers."+order.Provider+".precedence"]
		if got != string(order.Prefers) {
			t.Errorf("default providers.%s.precedence = %v, want the host's %q", order.Provider, got, order.Prefers)
		}
		enum := schema.Properties.Providers.Properties[order.Provider].Properties["precedence"].Enum
		if d := cmp.Diff(providers.PrecedenceValues, enum); d != "" {
			t.Errorf("schema enum of %s (-providers +schema):\n%s", order.Option(), d)
		}
	}
}
