package configs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"

	"github.com/ccski/ccski/providers"
)

// registry holds what configs derives from the packages that own a part of
// the configuration: the providers' sections (their defaults, keys, path
// keys, valid values and documentation) come from their entries, which
// the caller passes in (package providers/all lists the built-in ones:
// configs imports no provider). The valid values of state and mcp.tools
// come from packages filters and mcp/tools, which need no registry.
type registry struct {
	providers []providers.Entry
}

// hostNames lists the hosts with skill switches (providers.HostOwner),
// in registry order: the values of the agent key besides all.
func (r registry) hostNames() []string {
	return providers.HostNames(providers.Hosts(providers.Build(r.providers)))
}

// option is one option of a provider: a field of its options struct.
type option struct {
	key   string
	field reflect.StructField
	// value is the field's value.
	value reflect.Value
}

// providerOptions lists the options of e, the fields of its options
// struct that are keys of ccski.yaml (see optionFields), in field order.
func providerOptions(e providers.Entry) ([]option, error) {
	if e.Options == nil {
		return nil, nil
	}
	v := reflect.ValueOf(e.Options())
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("configs: provider %s: Options returns %s, not a pointer to a struct", e.Name, v.Type())
	}
	return optionFields(v), nil
}

// optionFields lists the koanf-tagged exported fields of the options
// struct v points to that are keys of the provider's section: not tagged
// "-", nor config:"from=KEY" (see fromKey).
func optionFields(v reflect.Value) []option {
	v = v.Elem()
	var out []option
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("koanf"), ",")
		if key == "" || key == "-" || !f.IsExported() || fromKey(f) != "" {
			continue
		}
		out = append(out, option{key: key, field: f, value: v.Field(i)})
	}
	return out
}

// fromKey returns KEY for a field tagged config:"from=KEY": an option that
// is no key of its own but takes the value of the configuration's key KEY
// (see Config.ProviderOptions). It returns "" for any other field.
func fromKey(f reflect.StructField) string {
	for w := range tagFlags(f) {
		if k, ok := strings.CutPrefix(w, "from="); ok {
			return k
		}
	}
	return ""
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
// registered provider enabled, with its options at their defaults.
func (r registry) providerDefaults() map[string]Provider {
	out := make(map[string]Provider, len(r.providers))
	for _, e := range r.providers {
		p := Provider{Enabled: true}
		if e.Options != nil {
			p.Options = e.Options()
		}
		out[e.Name] = p
	}
	return out
}

// optionValues returns the options of a provider (a pointer to its
// options struct, or nil) as the keys of its section map them: lists are
// []any, as a YAML file gives them, and named string types plain strings.
func optionValues(options any) map[string]any {
	out := map[string]any{}
	v := reflect.ValueOf(options)
	if options == nil || v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return out
	}
	for _, o := range optionFields(v) {
		out[o.key] = plainValue(o.value)
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

// decodeProviders decodes the merged providers section (each provider's
// keys, validated and converted by the layers) into each registered
// provider's options struct, on top of its defaults: the one decoding of
// a provider's options, whose result the provider's factory takes as it
// is.
func (r registry) decodeProviders(raw map[string]any) (map[string]Provider, error) {
	out := make(map[string]Provider, len(r.providers))
	for _, e := range r.providers {
		sec, _ := raw[e.Name].(map[string]any)
		p := Provider{Enabled: true}
		if b, ok := sec["enabled"].(bool); ok {
			p.Enabled = b
		}
		if e.Options != nil {
			p.Options = e.Options()
			keys := make(map[string]any, len(sec))
			for k, v := range sec {
				if k != "enabled" {
					keys[k] = v
				}
			}
			dec, err := mapstructure.NewDecoder(decoderConfig(p.Options, true))
			if err != nil {
				return nil, err
			}
			if err := dec.Decode(keys); err != nil {
				return nil, fmt.Errorf("configs: decode providers.%s: %w", e.Name, err)
			}
		}
		out[e.Name] = p
	}
	return out, nil
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

// checker is implemented by a named string type whose values are checked
// beyond their type, such as custom.Folder: Check returns what is wrong
// with one value, or nil.
type checker interface{ Check(value string) error }

// checkOf returns the check of a string, or of each entry of a list of
// strings, whose type t implements checker; nil otherwise.
func checkOf(t reflect.Type) func(v any) error {
	if !t.Implements(reflect.TypeFor[checker]()) {
		return nil
	}
	c := reflect.Zero(t).Interface().(checker)
	return func(v any) error {
		switch x := v.(type) {
		case string:
			return c.Check(x)
		case []string:
			for _, s := range x {
				if err := c.Check(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
}
