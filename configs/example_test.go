package configs

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccski/ccski/providers/all"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

func mustSpec(t *testing.T) *spec {
	t.Helper()
	s, err := newSpec(builtin())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// equateEmpty treats nil and empty slices and maps alike: a YAML "[]" and
// an absent list mean the same.
// equateEmpty compares two configurations as Load and Default make them:
// empty and nil lists alike, and the registry (whose factories are
// functions, never equal) left out.
func equateEmpty() cmp.Option {
	return cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Config{}, "Registry")}
}

// builtin is the registry of the built-in providers.
func builtin() registry { return registry{providers: all.Registry()} }

// loadBuiltin is Load with the built-in providers when o names none.
func loadBuiltin(o Options) (*Loaded, error) {
	if o.Registry == nil {
		o.Registry = all.Registry()
	}
	return Load(o)
}

// optionOf returns the value of the option key of provider name in c, as
// its section maps it (optionValues).
func optionOf(c Config, name, key string) any { return optionValues(c.Providers[name].Options)[key] }

func typeOf(v any) reflect.Type { return reflect.TypeOf(v) }

// defaultKeys lists the flattened keys of Default(all.Registry()).
func defaultKeys() []string {
	return flatKeys(defaultMap(Default(all.Registry())), "")
}

func TestSpecMatchesDefault(t *testing.T) {
	t.Parallel()
	// Every key of Default(all.Registry()) is a key of the spec and the other way round,
	// including each provider's option keys.
	if diff := cmp.Diff(mustSpec(t).leaves, defaultKeys()); diff != "" {
		t.Errorf("spec keys differ from Default(all.Registry()) keys (-spec +default):\n%s", diff)
	}
}

// TestPathKeys checks that the path keys, now read from the config:"path"
// tags of Config and of the providers' options structs, include the ones
// Load has always resolved, that outside providers there are no others,
// and that only providers.custom.dirs keeps a "?query" suffix. (A new
// provider may add path keys of its own.)
func TestPathKeys(t *testing.T) {
	t.Parallel()
	sp := mustSpec(t)
	got := sp.pathKeys()
	for _, k := range []string{
		"providers.claude.home", "providers.codex.home", "providers.codex.system_dirs",
		"providers.custom.dirs", "providers.marketplace.plugins_file", "providers.marketplace.plugins_root",
	} {
		if !slices.Contains(got, k) {
			t.Errorf("%s is not a path key", k)
		}
	}
	var top []string
	for _, k := range got {
		if !strings.HasPrefix(k, "providers.") {
			top = append(top, k)
		}
	}
	if diff := cmp.Diff([]string{"signing.keys", "signing.trusted_root", "skill_dirs", "user_dir", "workspace"}, top); diff != "" {
		t.Errorf("path keys outside providers (-want +got):\n%s", diff)
	}
	for _, k := range sp.leaves {
		if got := sp.lookup(k).query; got != (k == "providers.custom.dirs") {
			t.Errorf("%s: query = %t", k, got)
		}
	}
}

const examplePath = "../ccski.yaml"

func TestExampleEqualsDefault(t *testing.T) {
	t.Parallel()
	abs, err := filepath.Abs(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	o := options(t, tempDir(t))
	o.ConfigFile = abs
	l := mustLoad(t, o)
	want := Default(all.Registry())
	want.IncludeFromFile, want.ExcludeFromFile = true, true // the file sets them, to their defaults
	if diff := cmp.Diff(want, l.Config, equateEmpty()); diff != "" {
		t.Errorf("%s differs from Default(all.Registry()) (-default +file):\n%s", examplePath, diff)
	}
	label := "project config " + abs
	for _, k := range defaultKeys() {
		if got := l.Sources[k]; got != label {
			t.Errorf("key %q is not set in %s (source %q)", k, examplePath, got)
		}
	}
}

func TestExampleDocumentsEveryKey(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	// Every key carries a comment above it, except "enabled" and keys on
	// the line right after a commented sibling (a group sharing one
	// comment, like host and port).
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind == yaml.DocumentNode {
			walk(n.Content[0], prefix)
			return
		}
		if n.Kind != yaml.MappingNode {
			return
		}
		groupCommented := false
		for i := 0; i < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := join(prefix, k.Value)
			inGroup := i > 0 && n.Content[i-2].Line+1 == k.Line
			switch {
			case k.HeadComment != "":
				groupCommented = true
			case inGroup && groupCommented, k.Value == "enabled":
			default:
				groupCommented = false
				t.Errorf("%s: key %q has no comment", examplePath, key)
			}
			walk(v, key)
		}
	}
	walk(&doc, "")
}

// update rewrites the generated files that tests compare with what the
// code derives: go test ./configs -run Generated -update.
var update = flag.Bool("update", false, "rewrite ../ccski.yaml and ccski.schema.json from the code")

// TestGenerated checks that the checked-in example ccski.yaml and JSON
// Schema are what the code derives (Example, SchemaJSON); -update rewrites
// them.
func TestGenerated(t *testing.T) {
	schema, err := SchemaJSON(all.Registry())
	if err != nil {
		t.Fatal(err)
	}
	example, err := Example(all.Registry())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path string
		want []byte
	}{{examplePath, example}, {"ccski.schema.json", schema}} {
		if *update {
			if err := os.WriteFile(f.path, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(f.want), string(got)); diff != "" {
			t.Errorf("%s is not what the code derives; run go test ./configs -run Generated -update "+
				"(-derived +file):\n%s", f.path, diff)
		}
	}
}

// TestSchemaKeys checks that the schema describes exactly the keys of
// Default(all.Registry()), with a description and the default value for each leaf,
// closes every object, and lists the loader's valid values.
func TestSchemaKeys(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
	if got := schema["$schema"]; got != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %v", got)
	}
	var leaves []string
	var walk func(s map[string]any, key string)
	walk = func(s map[string]any, key string) {
		if d, _ := s["description"].(string); strings.TrimSpace(d) == "" {
			t.Errorf("schema: %q has no description", key)
		}
		props, ok := s["properties"].(map[string]any)
		if !ok {
			leaves = append(leaves, key)
			if _, ok := s["default"]; !ok {
				t.Errorf("schema: %q has no default", key)
			}
			return
		}
		if !slices.Contains(toStrings(anyList(s["type"])), "object") || s["additionalProperties"] != false {
			t.Errorf("schema: %q must be type object with additionalProperties false", key)
		}
		for name, p := range props {
			walk(p.(map[string]any), join(key, name))
		}
	}
	walk(schema, "")
	sort.Strings(leaves)
	if diff := cmp.Diff(defaultKeys(), leaves); diff != "" {
		t.Errorf("schema keys differ from Default(all.Registry()) (-default +schema):\n%s", diff)
	}

	// The enumerations agree with the loader's.
	sp := mustSpec(t)
	for _, k := range defaultKeys() {
		n := sp.lookup(k)
		if len(n.enum) == 0 {
			continue
		}
		s := schemaAt(schema, k)
		if items, ok := s["items"].(map[string]any); ok {
			s = items
		}
		if diff := cmp.Diff(n.enum, toStrings(s["enum"])); diff != "" {
			t.Errorf("schema enum of %q (-loader +schema):\n%s", k, diff)
		}
	}
}

// TestSchemaValidates checks the example and the test files against the
// schema with the jsonschema-go validator: the schema accepts exactly the
// files Load accepts, and every default it states is valid.
func TestSchemaValidates(t *testing.T) {
	t.Parallel()
	rs := resolvedSchema(t)
	files := []string{examplePath}
	matches, err := filepath.Glob("testdata/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, matches...)
	for _, f := range files {
		if strings.HasSuffix(f, "malformed.yaml") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			schemaErr := rs.Validate(yamlDoc(t, b))
			o := options(t, tempDir(t))
			o.ConfigFile, _ = filepath.Abs(f)
			_, loadErr := loadBuiltin(o)
			if (schemaErr == nil) != (loadErr == nil) {
				t.Errorf("schema error %v, but Load error %v", schemaErr, loadErr)
			}
			if strings.HasPrefix(filepath.Base(f), "bad_") || strings.HasPrefix(filepath.Base(f), "unknown_") ||
				strings.HasPrefix(filepath.Base(f), "misplaced_") || strings.HasPrefix(filepath.Base(f), "dotted_") {
				if schemaErr == nil {
					t.Error("schema accepts a bad file")
				}
			} else if schemaErr != nil {
				t.Errorf("schema rejects a good file: %v", schemaErr)
			}
		})
	}
	// A few values the schema must reject or accept, as Load does.
	for _, tt := range []struct {
		doc string
		ok  bool
	}{
		{"mcp: {refresh_interval: 10000}", true},
		{`mcp: {refresh_interval: "10000"}`, true},
		{"mcp: {refresh_interval: 1m30s}", true},
		{"mcp: {refresh_interval: ten}", false},
		{"mcp: {refresh_interval: 0}", false},
		{"mcp: {port: 0}", false},
		{"mcp: {port: 65536}", false},
		{"mcp: {tools: [ask, ask]}", false},
		{"mcp: {catalog: -1}", false},
		{"mcp: {session_idle_timeout: 0, max_sessions: 0}", true},
		{"mcp: {session_idle_timeout: 45m, max_sessions: 50}", true},
		{"mcp: {session_idle_timeout: -1s}", false},
		{"mcp: {max_sessions: -1}", false},
		{"providers: {project: {dirs: [x]}}", false},
		{"providers: {claude: {precedence: Project}}", false},
		{"providers: {claude: {precedence: project}}", true},
		{"state: maybe", false},
		{"state:", false},
		{"skill_dirs: [a, {b: c}]", false},
		{"user_dir:\nskill_dirs:\nmcp:", true},
	} {
		doc := yamlDoc(t, []byte(tt.doc))
		schemaErr := rs.Validate(doc)
		if (schemaErr == nil) != tt.ok {
			t.Errorf("%s: schema error %v, want ok=%t", tt.doc, schemaErr, tt.ok)
		}
		dir := tempDir(t)
		o := options(t, dir)
		o.ConfigFile = write(t, filepath.Join(dir, "c.yaml"), tt.doc)
		if _, err := loadBuiltin(o); (err == nil) != tt.ok {
			t.Errorf("%s: Load error %v, want ok=%t", tt.doc, err, tt.ok)
		}
	}
}

// resolvedSchema returns the checked-in schema, resolved with its defaults
// validated.
func resolvedSchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile("ccski.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("ccski.schema.json: %v", err)
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("ccski.schema.json does not resolve: %v", err)
	}
	return rs
}

// yamlDoc decodes YAML into the JSON values a validator takes.
func yamlDoc(t *testing.T, b []byte) any {
	t.Helper()
	var doc any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(j, &out); err != nil {
		t.Fatal(err)
	}
	if out == nil {
		out = map[string]any{}
	}
	return out
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("ccski.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("ccski.schema.json is not JSON: %v", err)
	}
	return s
}

func schemaAt(s map[string]any, key string) map[string]any {
	for part := range strings.SplitSeq(key, ".") {
		s = s["properties"].(map[string]any)[part].(map[string]any)
	}
	return s
}

// anyList returns v as a list: v itself, or a list holding it.
func anyList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}
