package configs

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/ccski/ccski/providers"
)

// RedactedValue stands for the value of a secret in what ccski prints.
const RedactedValue = "<redacted>"

// secretWords mark a key as a secret when its last segment contains one.
var secretWords = []string{"token", "secret", "password", "passwd", "credential", "api_key", "apikey", "private_key"}

// IsSecret reports whether the flattened key holds a secret: its last
// segment names a token, secret, password, credential or API key, as
// mcp.auth_token does. ccski never prints the value of a secret (see
// Redact); a provider option named that way is a secret too.
func IsSecret(key string) bool {
	last := strings.ToLower(key[strings.LastIndex(key, ".")+1:])
	for _, w := range secretWords {
		if strings.Contains(last, w) {
			return true
		}
	}
	return false
}

// Redact returns a copy of m, a flat map (Config.Flat) or a nested one
// (Config.Tree), in which the value of every secret that is set is
// RedactedValue, and the flattened keys it redacted, sorted. A secret that
// is not set (an empty value) keeps its value, so that the output still
// shows it unset.
func Redact(m map[string]any) (map[string]any, []string) {
	var keys []string
	out := redact(m, "", &keys)
	sort.Strings(keys)
	return out, keys
}

func redact(m map[string]any, prefix string, keys *[]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		key := join(prefix, k)
		if sub, ok := v.(map[string]any); ok {
			out[k] = redact(sub, key, keys)
			continue
		}
		if IsSecret(key) && !empty(v) {
			v = RedactedValue
			*keys = append(*keys, key)
		}
		out[k] = v
	}
	return out
}

// empty reports whether v is unset: nil, or a zero-length string, list or
// map.
func empty(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Map:
		return rv.Len() == 0
	}
	return false
}

// Values returns the values a key accepts when it takes one of a fixed
// set ("state", "mcp.transport", or each entry of the list "mcp.tools"),
// in documentation order, or nil: for shell completion and messages. The
// providers' keys are those of reg.
func Values(reg []providers.Entry, key string) []string {
	sp, err := newSpec(registry{providers: reg})
	if err != nil {
		return nil
	}
	if n := sp.lookup(key); n != nil {
		return slices.Clone(n.enum)
	}
	return nil
}
