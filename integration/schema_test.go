package integration

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// TestConfigSchema checks `ccski config --schema`: it prints the JSON
// Schema of ccski.yaml even where the project's ccski.yaml is broken (it
// reads no configuration), the schema resolves, accepts the example
// ccski.yaml of the repository and rejects the broken file as Load does,
// and it has a section for exactly the providers `ccski config` shows.
func TestConfigSchema(t *testing.T) {
	m := newMachine(t)
	broken := "mcp:\n  port: 0\n"
	if err := os.WriteFile(filepath.Join(m.Workspace, "ccski.yaml"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	r := ccski(t, m, runOpts{}, "config", "--schema")
	mustOK(t, r)
	var schema jsonschema.Schema
	decodeOnly(t, r, &schema)
	rs, err := schema.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("the schema does not resolve: %v", err)
	}

	if err := rs.Validate(yamlJSON(t, broken)); err == nil {
		t.Error("the schema accepts mcp.port 0")
	}
	if r := ccski(t, m, runOpts{}, "config"); r.code == 0 || !strings.Contains(r.stderr, "mcp.port") {
		t.Errorf("ccski config with mcp.port 0: want an error naming mcp.port\n%s", r)
	}
	example, err := os.ReadFile(filepath.Join("..", "ccski.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(yamlJSON(t, string(example))); err != nil {
		t.Errorf("the schema rejects the example ccski.yaml: %v", err)
	}

	if err := os.Remove(filepath.Join(m.Workspace, "ccski.yaml")); err != nil {
		t.Fatal(err)
	}
	r = ccski(t, m, runOpts{}, "config", "--json")
	mustOK(t, r)
	var cfg struct {
		Config struct {
			Providers map[string]any `json:"providers"`
		} `json:"config"`
	}
	decodeOnly(t, r, &cfg)
	got := slices.Sorted(maps.Keys(schema.Properties["providers"].Properties))
	want := slices.Sorted(maps.Keys(cfg.Config.Providers))
	if !slices.Equal(got, want) || len(got) == 0 {
		t.Errorf("the schema's providers %q, ccski config's %q", got, want)
	}
}

// yamlJSON decodes YAML into the JSON values a schema validates.
func yamlJSON(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
