package configs

import (
	"cmp"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/mcp/tools"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
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
	// order lists the keys of children in documentation order: the
	// order of the struct fields, and of the registry for providers.
	order []string
	// doc documents the key in full sentences: the description in the
	// JSON Schema and the comment in the example ccski.yaml.
	doc string
	// option marks a provider option: it lands in Provider.Options, where
	// lists are kept as []any like in Default().
	option bool
	// path marks a key holding one path (string) or several (list). A
	// "?query" suffix of each path is kept as is when query is set too.
	path, query bool
	// enum lists the valid values of a string, or of each list entry.
	enum []string
	// unique forbids repeated list entries.
	unique bool
	// check reports a problem with an already converted value; min and
	// max are the bounds it enforces on a number, for the JSON Schema
	// (a duration's are in milliseconds).
	check    func(v any) error
	min, max *float64
	// trust is what a project config may do with a leaf (see trust.go),
	// from its trust tag; nil for a section.
	trust *trust
}

// add adds child as the key name of the section n.
func (n *node) add(name string, child *node) {
	if n.children == nil {
		n.children = map[string]*node{}
	}
	n.children[name] = child
	n.order = append(n.order, name)
}

// spec is the tree of every valid key, built from Config and the
// registry.
type spec struct {
	root   *node
	leaves []string
}

// newSpec builds the key tree: the fields of Config, and under providers
// one section per registered provider with "enabled" and that provider's
// options (see providers.Entry.Options). The valid values of state,
// priority and mcp.tools come from the packages that own them (filters,
// pipeline, mcp/tools); the path keys from the config:"path" struct tags.
// Every key must be documented.
func newSpec(reg registry) (*spec, error) {
	root, err := structNode(reflect.TypeFor[Config](), "", reg)
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
	uniqueOf := func(valid ...string) func(*node) { return func(n *node) { n.enum, n.unique = valid, true } }
	rules := []struct {
		key string
		f   func(*node)
	}{
		{"state", oneOf(filters.States()...)},
		{"agent", oneOf(append([]string{filters.AgentAll}, reg.hostNames()...)...)},
		{"priority", uniqueOf(kindNames()...)},
		{"mcp.transport", oneOf("stdio", "http", "sse")},
		{"mcp.log_level", oneOf("debug", "info", "warn", "error")},
		{"mcp.log_format", oneOf("text", "json")},
		{"mcp.port", intRange("port", 1, 65535)},
		{"mcp.refresh_interval", positiveDuration("interval")},
		{"mcp.tools", func(n *node) { uniqueOf(tools.OptIn()...)(n); n.doc = toolsDoc() }},
		{"mcp.catalog", nonNegative},
		{"mcp.ask_context", nonNegative},
		{"mcp.session_idle_timeout", nonNegativeDuration("session idle timeout")},
		{"mcp.max_sessions", nonNegative},
		{"mcp.drain_delay", nonNegativeDuration("drain delay")},
		{"mcp.drain_timeout", positiveDuration("drain timeout")},
		{"mcp.scan", oneOf(scanmode.Values()...)},
		{"policy.min_scan_verdict", oneOf(scanmode.Verdicts()...)},
		{"limits.max_depth", nonNegative},
		{"limits.max_dirs", nonNegative},
	}
	for _, r := range rules {
		if err := set(r.key, r.f); err != nil {
			return nil, err
		}
	}
	if err := checkDocs(root, ""); err != nil {
		return nil, err
	}
	if err := checkTrust(root, ""); err != nil {
		return nil, err
	}
	return s, nil
}

// toolsDoc documents mcp.tools from the tool list.
func toolsDoc() string {
	var always, optIn []string
	for _, t := range tools.All() {
		if t.OptIn {
			optIn = append(optIn, t.Name+" ("+t.Doc+")")
		} else {
			always = append(always, t.Name)
		}
	}
	return "Tools served besides " + strings.Join(always, ", ") + ", which always is: " +
		strings.Join(optIn, ", ") + "."
}

// kindNames lists the root kinds in their default priority order.
func kindNames() []string {
	var out []string
	for _, k := range pipeline.DefaultPriority() {
		out = append(out, string(k))
	}
	return out
}

// intRange checks that an int is between lo and hi; what names it in the
// error.
func intRange(what string, lo, hi int) func(*node) {
	return func(n *node) {
		n.min, n.max = ptr(float64(lo)), ptr(float64(hi))
		n.check = func(v any) error {
			if p := v.(int); p < lo || p > hi {
				return fmt.Errorf("%s %d is out of range %d-%d", what, p, lo, hi)
			}
			return nil
		}
	}
}

// positiveDuration checks that a duration is above zero; what names it in
// the error.
func positiveDuration(what string) func(*node) {
	return func(n *node) {
		n.min = ptr(1.0) // one millisecond, the smallest plain number
		n.check = func(v any) error {
			if d := v.(time.Duration); d <= 0 {
				return fmt.Errorf("%s %s must be positive", what, d)
			}
			return nil
		}
	}
}

// nonNegativeDuration checks that a duration is zero or more; what names
// it in the error.
func nonNegativeDuration(what string) func(*node) {
	return func(n *node) {
		n.min = ptr(0.0)
		n.check = func(v any) error {
			if d := v.(time.Duration); d < 0 {
				return fmt.Errorf("%s %s must not be negative", what, d)
			}
			return nil
		}
	}
}

func nonNegative(n *node) {
	n.min = ptr(0.0)
	n.check = func(v any) error {
		if i := v.(int); i < 0 {
			return fmt.Errorf("%d must not be negative", i)
		}
		return nil
	}
}

func ptr[T any](v T) *T { return &v }

// checkDocs reports the first key below n, at prefix, without
// documentation.
func checkDocs(n *node, prefix string) error {
	for _, name := range n.order {
		c, key := n.children[name], join(prefix, name)
		if strings.TrimSpace(c.doc) == "" {
			return fmt.Errorf("configs: spec: key %q is not documented", key)
		}
		if c.kind == kindSection {
			if err := checkDocs(c, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// structNode builds the section for a struct type with koanf tags, at the
// flattened key prefix. A field's documentation is its doc tag, else the
// entry of docs for its key; a config tag marks paths (see
// providers.Entry.Options).
func structNode(t reflect.Type, prefix string, reg registry) (*node, error) {
	n := &node{kind: kindSection}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if name == "" || name == "-" {
			continue
		}
		key := join(prefix, name)
		child, err := typeNode(f.Type, key, reg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if child.doc == "" {
			child.doc = cmp.Or(f.Tag.Get("doc"), docs[key])
		}
		flags := tagFlags(f)
		child.path, child.query = flags["path"], flags["query"]
		if child.kind != kindSection {
			if child.trust, err = parseTrust(key, f.Tag.Get(trustTag)); err != nil {
				return nil, err
			}
		}
		n.add(name, child)
	}
	return n, nil
}

// typeNode builds the node for one field type at the flattened key.
func typeNode(t reflect.Type, key string, reg registry) (*node, error) {
	switch {
	case t == reflect.TypeFor[time.Duration]():
		return &node{kind: kindDuration}, nil
	case t == reflect.TypeFor[map[string]Provider]():
		return providersNode(reg)
	}
	switch t.Kind() {
	case reflect.String:
		return &node{kind: kindString, enum: enumOf(t), check: checkOf(t)}, nil
	case reflect.Bool:
		return &node{kind: kindBool}, nil
	case reflect.Int:
		return &node{kind: kindInt}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return &node{kind: kindList, enum: enumOf(t.Elem()), check: checkOf(t.Elem())}, nil
		}
	case reflect.Struct:
		return structNode(t, key, reg)
	}
	return nil, fmt.Errorf("configs: spec: %s: unsupported type %s", key, t)
}

// providersNode builds the providers section: one section per registered
// provider, in registry order, holding "enabled" and the provider's
// options. A provider must document itself and each of its options.
func providersNode(reg registry) (*node, error) {
	n := &node{kind: kindSection}
	for _, e := range reg.providers {
		if _, dup := n.children[e.Name]; dup || e.Name == "" {
			return nil, fmt.Errorf("configs: spec: provider %q is registered twice or has no name", e.Name)
		}
		sec := &node{kind: kindSection, doc: e.Doc}
		enabled := &node{kind: kindBool, doc: "Whether the provider runs."}
		var err error
		if enabled.trust, err = parseTrust("providers."+e.Name+".enabled", enabledTrust); err != nil {
			return nil, err
		}
		sec.add("enabled", enabled)
		opts, err := providerOptions(e)
		if err != nil {
			return nil, err
		}
		if err := checkFromKeys(e); err != nil {
			return nil, err
		}
		for _, o := range opts {
			key := "providers." + e.Name + "." + o.key
			if o.key == "enabled" {
				return nil, fmt.Errorf("configs: spec: %s: an option may not be called enabled", key)
			}
			c, err := typeNode(o.field.Type, key, reg)
			if err != nil {
				return nil, err
			}
			if c.kind == kindSection {
				return nil, fmt.Errorf("configs: spec: %s: an option may not be a section", key)
			}
			if c.doc = o.field.Tag.Get("doc"); c.doc == "" {
				return nil, fmt.Errorf("configs: spec: %s: the option has no doc tag", key)
			}
			flags := tagFlags(o.field)
			c.option, c.path, c.query = true, flags["path"], flags["query"]
			if c.trust, err = parseTrust(key, o.field.Tag.Get(trustTag)); err != nil {
				return nil, err
			}
			sec.add(o.key, c)
		}
		n.add(e.Name, sec)
	}
	return n, nil
}

// checkFromKeys reports a field of e's options struct tagged
// config:"from=KEY" whose KEY is no key of Config, or whose value the
// field cannot hold.
func checkFromKeys(e providers.Entry) error {
	if e.Options == nil {
		return nil
	}
	t := reflect.TypeOf(e.Options()).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		key := fromKey(f)
		if key == "" {
			continue
		}
		src, _, ok := fieldByKey(reflect.TypeFor[Config](), key)
		if !ok {
			return fmt.Errorf("configs: spec: provider %s: field %s takes %q, which is no key", e.Name, f.Name, key)
		}
		if !src.Type.AssignableTo(f.Type) {
			return fmt.Errorf("configs: spec: provider %s: field %s is a %s, but %s is a %s", e.Name, f.Name, f.Type, key, src.Type)
		}
	}
	return nil
}

// fieldByKey returns the field of the struct type t at the flattened key
// (koanf names joined by dots), with its index path for
// reflect.Value.FieldByIndex.
func fieldByKey(t reflect.Type, key string) (f reflect.StructField, index []int, ok bool) {
	for part := range strings.SplitSeq(key, ".") {
		if t.Kind() != reflect.Struct {
			return f, nil, false
		}
		found := false
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("koanf"), ","); name == part {
				f, found = t.Field(i), true
				index = append(index, i)
				break
			}
		}
		if !found {
			return f, nil, false
		}
		t = f.Type
	}
	return f, index, true
}

// pathKeys lists the flattened keys whose values are paths, sorted.
func (s *spec) pathKeys() []string {
	var out []string
	for _, k := range s.leaves {
		if s.lookup(k).path {
			out = append(out, k)
		}
	}
	return out
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
			sec := optionValues(p.Options)
			sec["enabled"] = p.Enabled
			m[name] = sec
		}
		return m
	case v.Kind() == reflect.Struct:
		return structMap(v)
	case v.Kind() == reflect.Slice:
		// A list of strings, or of a named string type (httpfetch.Token).
		s := make([]string, v.Len())
		for i := range s {
			s[i] = v.Index(i).String()
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
	// envHTTPTokenPrefix started the retired per-host token variables
	// (CCSKI_HTTP_TOKEN_<HOST>), whose names two hosts could share: the
	// environment layer refuses them, naming what replaces them.
	envHTTPTokenPrefix = "CCSKI_HTTP_TOKEN_"
)
