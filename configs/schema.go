package configs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ccski/ccski/providers"
)

// Schema returns the JSON Schema (draft 2020-12) of ccski.yaml and of the
// user config with the providers of reg, derived like Load's checks from
// Config, the documentation in docs.go, the provider registry, the filter
// states and the MCP tool list: the same keys, types, valid values, bounds
// and defaults. Editors can use it for completion and checks; Load makes
// the same checks itself. configs/ccski.schema.json is a copy, with the
// built-in providers, that a test keeps equal to it, and `ccski config
// --schema` prints it.
func Schema(reg []providers.Entry) (*jsonschema.Schema, error) {
	return schemaFor(registry{providers: reg})
}

// SchemaJSON returns Schema as indented JSON, ending with a newline, as
// checked in at configs/ccski.schema.json.
func SchemaJSON(reg []providers.Entry) ([]byte, error) {
	s, err := Schema(reg)
	if err != nil {
		return nil, err
	}
	return marshalSchema(s)
}

// marshalSchema returns s as indented JSON, its identification ($schema,
// $id, title and description) first, where a reader looks for it; the
// Schema type itself writes them after the type and properties.
func marshalSchema(s *jsonschema.Schema) ([]byte, error) {
	head, err := json.Marshal(struct {
		Schema      string `json:"$schema,omitempty"`
		ID          string `json:"$id,omitempty"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
	}{s.Schema, s.ID, s.Title, s.Description})
	if err != nil {
		return nil, fmt.Errorf("configs: schema: %w", err)
	}
	rest := *s
	rest.Schema, rest.ID, rest.Title, rest.Description = "", "", "", ""
	body, err := json.Marshal(rest)
	if err != nil {
		return nil, fmt.Errorf("configs: schema: %w", err)
	}
	b := body
	if len(head) > 2 && len(body) > 2 { // both non-empty objects: join them
		b = append(append(head[:len(head)-1:len(head)-1], ','), body[1:]...)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("configs: schema: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// schemaFor builds the schema of the configuration with the providers of
// reg.
func schemaFor(reg registry) (*jsonschema.Schema, error) {
	sp, err := newSpec(reg)
	if err != nil {
		return nil, err
	}
	root, err := nodeSchema(sp.root, defaultMap(defaults(reg)))
	if err != nil {
		return nil, err
	}
	root.Schema = "https://json-schema.org/draft/2020-12/schema"
	root.ID = schemaID
	root.Title = schemaTitle
	root.Description = schemaDescription
	root.Type, root.Types = "object", nil // the file itself is never null
	return root, nil
}

// durationPattern matches a Go duration such as "1m30s", or a whole
// number of milliseconds written as a string.
const durationPattern = `^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$|^[0-9]+$`

// nodeSchema returns the schema of n, whose default value is def (a
// nested map for a section). Where Load takes null for "empty" (a
// section, a free string, a list), the schema allows null too.
func nodeSchema(n *node, def any) (*jsonschema.Schema, error) {
	s := &jsonschema.Schema{Description: n.doc}
	if d := n.trust.doc(); d != "" {
		s.Description += " " + d
	}
	switch n.kind {
	case kindSection:
		s.Types = []string{"object", "null"}
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}} // false
		s.Properties = map[string]*jsonschema.Schema{}
		s.PropertyOrder = n.order
		defs, _ := def.(map[string]any)
		for _, name := range n.order {
			c, err := nodeSchema(n.children[name], defs[name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			s.Properties[name] = c
		}
		return s, nil // a section's default is its keys'
	case kindString:
		if len(n.enum) > 0 {
			s.Type, s.Enum = "string", toAny(n.enum)
		} else {
			s.Types = []string{"string", "null"}
		}
	case kindBool:
		s.Type = "boolean"
	case kindInt:
		s.Type, s.Minimum, s.Maximum = "integer", n.min, n.max
	case kindDuration:
		s.OneOf = []*jsonschema.Schema{
			{Type: "string", Pattern: durationPattern},
			{Type: "integer", Minimum: n.min, Maximum: n.max},
		}
		if d, ok := def.(time.Duration); ok {
			def = d.String()
		}
	case kindList:
		s.Types = []string{"array", "null"}
		s.Items = &jsonschema.Schema{Type: "string"}
		if len(n.enum) > 0 {
			s.Items.Enum = toAny(n.enum)
		}
		s.UniqueItems = n.unique
	}
	if def != nil {
		b, err := json.Marshal(def)
		if err != nil {
			return nil, fmt.Errorf("default: %w", err)
		}
		s.Default = b
	}
	return s, nil
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
