package configs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"
)

func mustSpec(t *testing.T) *spec {
	t.Helper()
	s, err := newSpec(Default())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// equateEmpty treats nil and empty slices and maps alike: a YAML "[]" and
// an absent list mean the same.
func equateEmpty() cmp.Option { return cmpopts.EquateEmpty() }

func typeOf(v any) reflect.Type { return reflect.TypeOf(v) }

// defaultKeys lists the flattened keys of Default().
func defaultKeys() []string {
	return flatKeys(defaultMap(Default()), "")
}

func TestSpecMatchesDefault(t *testing.T) {
	t.Parallel()
	// Every key of Default() is a key of the spec and the other way round,
	// including each provider's option keys.
	if diff := cmp.Diff(mustSpec(t).leaves, defaultKeys()); diff != "" {
		t.Errorf("spec keys differ from Default() keys (-spec +default):\n%s", diff)
	}
	for _, k := range pathKeys() {
		if !slices.Contains(defaultKeys(), k) {
			t.Errorf("path key %q is not a key", k)
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
	want := Default()
	want.IncludeFromFile, want.ExcludeFromFile = true, true // the file sets them, to their defaults
	if diff := cmp.Diff(want, l.Config, equateEmpty()); diff != "" {
		t.Errorf("%s differs from Default() (-default +file):\n%s", examplePath, diff)
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

// TestSchemaKeys checks that the schema describes exactly the keys of
// Default(), with a description for each, and closes every object.
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
			return
		}
		if s["type"] != "object" || s["additionalProperties"] != false {
			t.Errorf("schema: %q must be type object with additionalProperties false", key)
		}
		for name, p := range props {
			walk(p.(map[string]any), join(key, name))
		}
	}
	walk(schema, "")
	sort.Strings(leaves)
	if diff := cmp.Diff(defaultKeys(), leaves); diff != "" {
		t.Errorf("schema keys differ from Default() (-default +schema):\n%s", diff)
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
// schema: the schema accepts exactly the files Load accepts.
func TestSchemaValidates(t *testing.T) {
	t.Parallel()
	schema := loadSchema(t)
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
			var doc any
			if err := yaml.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			schemaErrs := validate(schema, doc, "")
			o := options(t, tempDir(t))
			o.ConfigFile, _ = filepath.Abs(f)
			_, loadErr := Load(o)
			if (len(schemaErrs) == 0) != (loadErr == nil) {
				t.Errorf("schema errors %v, but Load error %v", schemaErrs, loadErr)
			}
			if strings.HasPrefix(filepath.Base(f), "bad_") || strings.HasPrefix(filepath.Base(f), "unknown_") ||
				strings.HasPrefix(filepath.Base(f), "misplaced_") || strings.HasPrefix(filepath.Base(f), "dotted_") {
				if len(schemaErrs) == 0 {
					t.Error("schema accepts a bad file")
				}
			} else if len(schemaErrs) > 0 {
				t.Errorf("schema rejects a good file: %v", schemaErrs)
			}
		})
	}
	// A few values the schema must reject or accept.
	for _, tt := range []struct {
		doc string
		ok  bool
	}{
		{"mcp: {refresh_interval: 10000}", true},
		{`mcp: {refresh_interval: "10000"}`, true},
		{"mcp: {refresh_interval: 1m30s}", true},
		{"mcp: {refresh_interval: ten}", false},
		{"mcp: {port: 0}", false},
		{"providers: {project: {dirs: [x]}}", false},
		{"state: maybe", false},
		{"skill_dirs: [a, {b: c}]", false},
	} {
		var doc any
		if err := yaml.Unmarshal([]byte(tt.doc), &doc); err != nil {
			t.Fatal(err)
		}
		if errs := validate(schema, doc, ""); (len(errs) == 0) != tt.ok {
			t.Errorf("%s: schema errors %v, want ok=%t", tt.doc, errs, tt.ok)
		}
	}
}

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(Schema, &s); err != nil {
		t.Fatalf("Schema is not JSON: %v", err)
	}
	return s
}

func schemaAt(s map[string]any, key string) map[string]any {
	for part := range strings.SplitSeq(key, ".") {
		s = s["properties"].(map[string]any)[part].(map[string]any)
	}
	return s
}

func toStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// validate checks v against the subset of JSON Schema that
// ccski.schema.json uses: type, properties, additionalProperties, items,
// enum, uniqueItems, oneOf, pattern, minimum and maximum.
func validate(s map[string]any, v any, at string) []string {
	var errs []string
	fail := func(format string, a ...any) { errs = append(errs, at+": "+fmt.Sprintf(format, a...)) }
	if alts, ok := s["oneOf"].([]any); ok {
		n := 0
		for _, alt := range alts {
			if len(validate(alt.(map[string]any), v, at)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("matches %d of oneOf", n)
		}
	}
	if typ, ok := s["type"].(string); ok && !hasType(v, typ) {
		fail("want %s, got %T", typ, v)
		return errs
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		fail("%v not in %v", v, enum)
	}
	if p, ok := s["pattern"].(string); ok {
		if str, _ := v.(string); !regexp.MustCompile(p).MatchString(str) {
			fail("%q does not match %s", str, p)
		}
	}
	if n, ok := number(v); ok {
		if m, ok := s["minimum"].(float64); ok && n < m {
			fail("%v < %v", n, m)
		}
		if m, ok := s["maximum"].(float64); ok && n > m {
			fail("%v > %v", n, m)
		}
	}
	if m, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		for k, e := range m {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					fail("unknown property %q", k)
				}
				continue
			}
			errs = append(errs, validate(ps, e, join(at, k))...)
		}
	}
	if l, ok := v.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range l {
				errs = append(errs, validate(items, e, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
		if s["uniqueItems"] == true {
			for i := range l {
				if slices.Contains(l[:i], l[i]) {
					fail("%v repeated", l[i])
				}
			}
		}
	}
	return errs
}

func hasType(v any, typ string) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok || v == nil // YAML "section:" with nothing under it
	case "array":
		_, ok := v.([]any)
		return ok || v == nil
	case "string":
		_, ok := v.(string)
		return ok || v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		n, ok := number(v)
		return ok && n == float64(int64(n))
	}
	return false
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
