package configs

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/suggest"
)

// kind is the type a key accepts.
type kind int

const (
	kindSection kind = iota
	kindString
	kindBool
	kindInt
	kindDuration
	kindList
)

// String describes the kind for error messages.
func (k kind) String() string {
	switch k {
	case kindSection:
		return "a mapping"
	case kindString:
		return "a string"
	case kindBool:
		return "a boolean"
	case kindInt:
		return "an integer"
	case kindDuration:
		return `a duration such as "10s" or a number of milliseconds`
	case kindList:
		return "a list of strings"
	}
	return "a value"
}

// node describes one key of the configuration: a section holding other
// keys, or a leaf with a type and optional constraints.
type node struct {
	kind     kind
	children map[string]*node
	// option marks a provider option: it lands in Provider.Options, where
	// lists are kept as []any like in Default().
	option bool
	// path marks a key holding one path (string) or several (list).
	path bool
	// enum lists the valid values of a string, or of each list entry.
	enum []string
	// unique forbids repeated list entries.
	unique bool
	// check reports a problem with an already converted value.
	check func(v any) error
}

// spec is the tree of every valid key, built from Config and Default().
type spec struct {
	root   *node
	leaves []string
}

// pathKeys lists the keys whose values are paths, resolved against the
// folder of the file that set them.
func pathKeys() []string {
	return []string{
		"user_dir", "workspace", "skill_dirs",
		"providers.custom.dirs",
		"providers.marketplace.plugins_file", "providers.marketplace.plugins_root",
		"providers.claude.home",
		"providers.codex.home", "providers.codex.system_dirs",
	}
}

// newSpec builds the key tree for defaults: the fields of Config, and
// under providers one section per provider in defaults with "enabled"
// and that provider's option keys, typed after their default values.
func newSpec(defaults Config) (*spec, error) {
	root, err := structNode(reflect.TypeFor[Config](), defaults)
	if err != nil {
		return nil, err
	}
	s := &spec{root: root}
	s.leaves = flattenSpec(root, "")
	sort.Strings(s.leaves)

	set := func(key string, f func(n *node)) error {
		n := s.lookup(key)
		if n == nil {
			return fmt.Errorf("configs: spec: no key %q", key)
		}
		f(n)
		return nil
	}
	oneOf := func(valid ...string) func(*node) { return func(n *node) { n.enum = valid } }
	rules := []struct {
		key string
		f   func(*node)
	}{
		{"state", oneOf("enabled", "disabled", "all")},
		{"mcp.transport", oneOf("stdio", "http", "sse")},
		{"providers.claude.precedence", oneOf("user", "project")},
		{"providers.codex.precedence", oneOf("user", "project")},
		{"providers.agents.precedence", oneOf("user", "project")},
		{"mcp.log_level", oneOf("debug", "info", "warn", "error")},
		{"mcp.log_format", oneOf("text", "json")},
		{"priority", func(n *node) { n.enum, n.unique = slices.Clone(defaults.Priority), true }},
		{"mcp.port", func(n *node) {
			n.check = func(v any) error {
				if p := v.(int); p < 1 || p > 65535 {
					return fmt.Errorf("port %d is out of range 1-65535", p)
				}
				return nil
			}
		}},
		{"mcp.refresh_interval", func(n *node) {
			n.check = func(v any) error {
				if d := v.(time.Duration); d <= 0 {
					return fmt.Errorf("interval %s must be positive", d)
				}
				return nil
			}
		}},
		{"mcp.tools", func(n *node) {
			n.enum, n.unique = []string{"skills_list", "skills_search", "sources", "ask"}, true
		}},
		{"mcp.catalog", nonNegative},
		{"mcp.ask_context", nonNegative},
		{"limits.max_depth", nonNegative},
		{"limits.max_dirs", nonNegative},
	}
	for _, r := range rules {
		if err := set(r.key, r.f); err != nil {
			return nil, err
		}
	}
	for _, k := range pathKeys() {
		if err := set(k, func(n *node) { n.path = true }); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func nonNegative(n *node) {
	n.check = func(v any) error {
		if i := v.(int); i < 0 {
			return fmt.Errorf("%d must not be negative", i)
		}
		return nil
	}
}

// structNode builds the section for a struct type with koanf tags.
func structNode(t reflect.Type, defaults Config) (*node, error) {
	n := &node{kind: kindSection, children: map[string]*node{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if name == "" || name == "-" {
			continue
		}
		child, err := typeNode(f.Type, defaults)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		n.children[name] = child
	}
	return n, nil
}

// typeNode builds the node for one field type.
func typeNode(t reflect.Type, defaults Config) (*node, error) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return &node{kind: kindDuration}, nil
	case t == reflect.TypeFor[map[string]Provider]():
		return providersNode(defaults)
	}
	switch t.Kind() {
	case reflect.String:
		return &node{kind: kindString}, nil
	case reflect.Bool:
		return &node{kind: kindBool}, nil
	case reflect.Int:
		return &node{kind: kindInt}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return &node{kind: kindList}, nil
		}
	case reflect.Struct:
		return structNode(t, defaults)
	}
	return nil, fmt.Errorf("configs: spec: unsupported type %s", t)
}

// providersNode builds the providers section: one section per provider in
// defaults, holding "enabled" and the provider's option keys.
func providersNode(defaults Config) (*node, error) {
	n := &node{kind: kindSection, children: map[string]*node{}}
	for name, p := range defaults.Providers {
		sec := &node{kind: kindSection, children: map[string]*node{"enabled": {kind: kindBool}}}
		for key, v := range p.Options {
			var k kind
			switch v.(type) {
			case string:
				k = kindString
			case bool:
				k = kindBool
			case int:
				k = kindInt
			case []any, []string:
				k = kindList
			default:
				return nil, fmt.Errorf("configs: spec: providers.%s.%s: unsupported default %T", name, key, v)
			}
			sec.children[key] = &node{kind: k, option: true}
		}
		n.children[name] = sec
	}
	return n, nil
}

// flattenSpec lists the flattened keys of every leaf below n.
func flattenSpec(n *node, prefix string) []string {
	var out []string
	for name, c := range n.children {
		key := join(prefix, name)
		if c.kind == kindSection {
			out = append(out, flattenSpec(c, key)...)
		} else {
			out = append(out, key)
		}
	}
	return out
}

// lookup returns the node of a flattened key, or nil.
func (s *spec) lookup(key string) *node {
	n := s.root
	for part := range strings.SplitSeq(key, ".") {
		if n.kind != kindSection {
			return nil
		}
		if n = n.children[part]; n == nil {
			return nil
		}
	}
	return n
}

// closest returns the valid key nearest to the unknown key full, whose
// last segment is name, found below parent (the section at prefix). It
// looks among the siblings first and then at the last segment of every
// key, so "max_depth" at the top level suggests "limits.max_depth".
func (s *spec) closest(prefix, name string, parent *node) string {
	var siblings []string
	for k := range parent.children {
		siblings = append(siblings, k)
	}
	if best := suggest.Closest(name, siblings); best != "" {
		return join(prefix, best)
	}
	var all []string
	bySegment := map[string][]string{}
	for _, k := range s.leaves {
		seg := k[strings.LastIndex(k, ".")+1:]
		all = append(all, seg)
		bySegment[seg] = append(bySegment[seg], k)
	}
	if best := suggest.Closest(name, all); best != "" {
		return bySegment[best][0]
	}
	// Last try: the whole key, for keys written at the wrong depth.
	return suggest.Closest(join(prefix, name), s.leaves)
}

// closestKey returns the valid flattened key nearest to key, or "".
func (s *spec) closestKey(key string) string {
	return suggest.Closest(key, s.leaves)
}

// defaultMap turns c into the nested map of the defaults layer.
func defaultMap(c Config) map[string]any {
	return structMap(reflect.ValueOf(c))
}

func structMap(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("koanf"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = valueMap(v.Field(i))
	}
	return out
}

func valueMap(v reflect.Value) any {
	switch {
	case v.Type() == reflect.TypeFor[map[string]Provider]():
		m := map[string]any{}
		for name, p := range v.Interface().(map[string]Provider) {
			sec := map[string]any{"enabled": p.Enabled}
			for k, o := range p.Options {
				if l, ok := o.([]any); ok {
					o = slices.Clone(l)
					if o == nil {
						o = []any{}
					}
				}
				sec[k] = o
			}
			m[name] = sec
		}
		return m
	case v.Kind() == reflect.Struct:
		return structMap(v)
	case v.Kind() == reflect.Slice:
		s := slices.Clone(v.Interface().([]string))
		if s == nil {
			s = []string{}
		}
		return s
	}
	return v.Interface()
}

// join appends name to the flattened key prefix.
func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// envName is the CCSKI_ variable of a flattened key.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
}

// envKey is the flattened key of a CCSKI_ variable.
func envKey(name string) string {
	if name == envAuthToken {
		return "mcp.auth_token"
	}
	return strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(name, envPrefix)), "__", ".")
}

const (
	envPrefix    = "CCSKI_"
	envAuthToken = "CCSKI_AUTH_TOKEN"
)
