package configs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// registry holds what configs derives from the packages that own a part of
// the configuration: the providers' sections (their defaults, keys, path
// keys, valid values and documentation) come from their entries. (The
// valid values of state and mcp.tools come from packages filters and
// mcp/tools, which need no registry.) Load, Default, Values and Schema use
// the built-in one; tests use others, to show what a new provider gets.
type registry struct {
	providers []providers.Entry
}

// hostNames lists the hosts with skill switches (providers.Entry.Host),
// in registry order: the values of the agent key besides all.
func (r registry) hostNames() []string {
	var out []string
	for _, e := range r.providers {
		if e.Host != nil {
			out = append(out, e.Host.Name)
		}
	}
	return out
}

// builtin is the registry of the built-in providers.
func builtin() registry { return registry{providers: all.Registry()} }

// option is one option of a provider: a field of its options struct.
type option struct {
	key   string
	field reflect.StructField
	// value is the field's default value.
	value reflect.Value
}

// providerOptions lists the options of e, the koanf-tagged fields of its options
// struct that are keys of ccski.yaml (no config:"-" tag), in field order.
func providerOptions(e providers.Entry) ([]option, error) {
	if e.Options == nil {
		return nil, nil
	}
	v := reflect.ValueOf(e.Options())
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("configs: provider %s: Options returns %s, not a pointer to a struct", e.Name, v.Type())
	}
	v = v.Elem()
	var out []option
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if key == "" || key == "-" || !f.IsExported() || tagFlags(f)["-"] {
			continue
		}
		out = append(out, option{key: key, field: f, value: v.Field(i)})
	}
	return out, nil
}

// tagFlags returns the comma-separated words of f's config tag.
func tagFlags(f reflect.StructField) map[string]bool {
	flags := map[string]bool{}
	for w := range strings.SplitSeq(f.Tag.Get("config"), ",") {
		if w = strings.TrimSpace(w); w != "" {
			flags[w] = true
		}
	}
	return flags
}

// providerDefaults returns the providers section of the defaults: every
// registered provider enabled, with its options at their defaults. Lists
// are []any, as a YAML file gives them, and named string types plain
// strings.
func (r registry) providerDefaults() map[string]Provider {
	out := make(map[string]Provider, len(r.providers))
	for _, e := range r.providers {
		opts, err := providerOptions(e)
		if err != nil {
			// newSpec reports it, so that Load fails with it.
			opts = nil
		}
		m := make(map[string]any, len(opts))
		for _, o := range opts {
			m[o.key] = plainValue(o.value)
		}
		out[e.Name] = Provider{Enabled: true, Options: m}
	}
	return out
}

// plainValue is v as the defaults layer holds it: a string, bool, int,
// time.Duration or []any of strings.
func plainValue(v reflect.Value) any {
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		return time.Duration(v.Int())
	case v.Kind() == reflect.String:
		return v.String()
	case v.Kind() == reflect.Bool:
		return v.Bool()
	case v.Kind() == reflect.Int:
		return int(v.Int())
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		list := make([]any, v.Len())
		for i := range v.Len() {
			list[i] = v.Index(i).String()
		}
		return list
	}
	return v.Interface()
}

// enumer is implemented by a named string type that takes only some
// values, such as providers.PrecedenceOption.
type enumer interface{ Values() []string }

// enumOf returns the values of t when it implements enumer, or nil.
func enumOf(t reflect.Type) []string {
	if t.Implements(reflect.TypeFor[enumer]()) {
		return slices.Clone(reflect.Zero(t).Interface().(enumer).Values())
	}
	return nil
}
