package skillmd

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// converter turns YAML nodes into JSON-compatible data: map[string]any,
// []any, string, int64, uint64, float64, bool and nil. Aliases are
// expanded; one that contains itself is an error, as is a value that
// expands past limit nodes, so that a few aliases cannot blow it up.
//
// Two readings share it. The handoffs of a command (core false) type
// scalars as go-yaml resolves them (scalarData), honour merge keys and let
// a later duplicate key win. The frontmatter of a skill (core true) is
// read as a YAML 1.2 parser with the core schema reads it, which is what a
// host checks a skills/list entry against: scalars typed by coreScalar, no
// merge keys ("<<" is an ordinary key), duplicate keys refused, and keys
// written as JavaScript writes an object key (see jsKey).
type converter struct {
	limit  int
	used   int
	active map[*yaml.Node]bool // aliases being expanded
	core   bool
	// start is the file line of the first frontmatter line, for messages.
	start int
}

// data converts n. Its errors are phrased to follow the name of what is
// converted: "handoffs expand to more than 10000 values".
func (c *converter) data(n *yaml.Node) (any, error) {
	if c.used++; c.used > c.limit {
		return nil, fmt.Errorf("expand to more than %d values", c.limit)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.data(n.Content[0])
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		if c.active == nil {
			c.active = map[*yaml.Node]bool{}
		}
		if c.active[n.Alias] {
			return nil, fmt.Errorf("refer to themselves through the alias *%s, which JSON cannot hold", n.Value)
		}
		c.active[n.Alias] = true
		defer delete(c.active, n.Alias)
		return c.data(n.Alias)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, e := range n.Content {
			v, err := c.data(e)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		return c.mapping(n)
	case yaml.ScalarNode:
		if c.core {
			if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && noJSONNumber(n.Value) {
				return nil, fmt.Errorf("hold %q on line %d, a number JSON cannot hold (infinite or not a number): quote it to make it text",
					n.Value, c.start+n.Line-1)
			}
			return coreScalar(n), nil
		}
		return scalarData(n), nil
	}
	return nil, nil
}

// mapping converts a mapping node.
func (c *converter) mapping(n *yaml.Node) (any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var merged []map[string]any
	var lines map[any]int // core: the line of each key, by its value
	for i := 0; i+1 < len(n.Content); i += 2 {
		written, v := n.Content[i], n.Content[i+1]
		k := written
		for k.Kind == yaml.AliasNode && k.Alias != nil {
			k = k.Alias
		}
		val, err := c.data(v)
		if err != nil {
			return nil, err
		}
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("have a %s as a mapping key; keys must be plain values", kindName(k.Kind))
		}
		if !c.core {
			if k.ShortTag() == "!!merge" {
				merged = append(merged, mergeMaps(val)...)
				continue
			}
			out[k.Value] = val
			continue
		}
		key := coreScalar(k)
		id := keyIdentity(key)
		if lines == nil {
			lines = make(map[any]int, len(n.Content)/2)
		}
		if first, dup := lines[id]; dup {
			return nil, fmt.Errorf("have the key %q twice, on lines %d and %d: YAML keys must be unique, remove one",
				k.Value, c.start+first-1, c.start+written.Line-1)
		}
		lines[id] = written.Line
		// Keys that differ in YAML but not as text ("1" and 1) end as
		// one JavaScript property, the later one, as here.
		out[jsKey(key)] = val
	}
	// Merged keys never override keys written in the mapping; earlier
	// merges win over later ones, as in YAML.
	for _, mm := range merged {
		for key, val := range mm {
			if _, set := out[key]; !set {
				out[key] = val
			}
		}
	}
	return out, nil
}

// mergeMaps returns the mappings a merge key "<<" brings in: one mapping
// or a list of them.
func mergeMaps(v any) []map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return []map[string]any{m}
	case []any:
		var out []map[string]any
		for _, e := range m {
			if mm, ok := e.(map[string]any); ok {
				out = append(out, mm)
			}
		}
		return out
	}
	return nil
}

// scalarData types a scalar as go-yaml resolves it. Values JSON cannot
// hold (NaN, infinities, timestamps, binary) stay the text written.
func scalarData(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f
		}
	}
	return n.Value
}

// coreScalar types a scalar by the YAML 1.2 core schema. go-yaml keeps
// parts of YAML 1.1 (0b binary, 1_000, 017 as octal, timestamps), which a
// YAML 1.2 parser reads as text or as decimal; this follows the 1.2 rules:
//
//   - quoted and block scalars are strings;
//   - plain ones are null (~, null, Null, NULL or nothing), a bool (true,
//     True, TRUE, false, False, FALSE), an integer (decimal, 0o octal, 0x
//     hex), a float, or else a string: yes, on, 2024-01-01 and 1_000 are
//     strings;
//   - an explicit !!str, !!null, !!bool, !!int or !!float tag types the
//     value, when it is written as that type allows; any other tag is not
//     in the core schema and the value stays its text.
//
// Integers are int64, uint64 above its range, and float64 beyond that (as
// JavaScript reads every number). Values JSON cannot hold (.inf, .nan, an
// integer past the float range) stay the text written.
func coreScalar(n *yaml.Node) any {
	const written = yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle | yaml.LiteralStyle | yaml.FoldedStyle
	tag := ""
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		tag = n.ShortTag()
	case n.Style&written != 0:
		return n.Value
	}
	s := n.Value
	switch tag {
	case "":
		switch s {
		case "", "~", "null", "Null", "NULL":
			return nil
		}
		if b, ok := coreBool(s); ok {
			return b
		}
		if v, ok := coreInt(s); ok {
			return v
		}
		if f, ok := coreFloat(s); ok {
			return f
		}
	case "!!null":
		return nil
	case "!!bool":
		if b, ok := coreBool(s); ok {
			return b
		}
	case "!!int":
		if v, ok := coreInt(s); ok {
			return v
		}
	case "!!float":
		if v, ok := coreInt(s); ok {
			return toFloat(v)
		}
		if f, ok := coreFloat(s); ok {
			return f
		}
	}
	return s
}

func coreBool(s string) (bool, bool) {
	switch s {
	case "true", "True", "TRUE":
		return true, true
	case "false", "False", "FALSE":
		return false, true
	}
	return false, false
}

// coreInt reads [-+]?[0-9]+, 0o[0-7]+ or 0x[0-9a-fA-F]+.
func coreInt(s string) (any, bool) {
	digits, base := s, 10
	switch {
	case strings.HasPrefix(s, "0o"):
		digits, base = s[2:], 8
	case strings.HasPrefix(s, "0x"):
		digits, base = s[2:], 16
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		digits = s[1:]
	}
	if digits == "" {
		return nil, false
	}
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		ok := '0' <= c && c <= '9'
		switch base {
		case 8:
			ok = '0' <= c && c <= '7'
		case 16:
			ok = ok || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
		}
		if !ok {
			return nil, false
		}
	}
	neg := s[0] == '-'
	if u, err := strconv.ParseUint(digits, base, 64); err == nil {
		switch {
		case !neg && u <= math.MaxInt64:
			return int64(u), true
		case !neg:
			return u, true
		case u <= 1<<63:
			return int64(-u), true // -(1<<63) wraps to itself: MinInt64
		}
	}
	// Past 64 bits: the nearest float, as JavaScript reads it.
	x, _ := new(big.Int).SetString(digits, base)
	if neg {
		x.Neg(x)
	}
	f, _ := new(big.Float).SetInt(x).Float64()
	if math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

// noJSONNumber reports whether a plain scalar is a YAML 1.2 float that
// JSON cannot hold: .inf or .nan in their spellings, or a number past the
// float range (1e400), which a YAML 1.2 parser reads as Infinity.
func noJSONNumber(s string) bool {
	switch t := strings.TrimLeft(s, "+-"); t {
	case ".inf", ".Inf", ".INF":
		return len(s)-len(t) <= 1
	case ".nan", ".NaN", ".NAN":
		return t == s
	}
	if !coreFloatSyntax(s) {
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err != nil && math.IsInf(f, 0)
}

// coreFloat reads [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?,
// within the float range.
func coreFloat(s string) (float64, bool) {
	if !coreFloatSyntax(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// coreFloatSyntax reports whether s is written as a YAML 1.2 core float.
func coreFloatSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	intDigits := digitRun(s[i:])
	i += intDigits
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		fracDigits = digitRun(s[i:])
		i += fracDigits
	}
	if intDigits == 0 && fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		n := digitRun(s[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return i == len(s)
}

// digitRun counts the decimal digits s starts with.
func digitRun(s string) int {
	n := 0
	for n < len(s) && '0' <= s[n] && s[n] <= '9' {
		n++
	}
	return n
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// keyIdentity is what makes two keys the same key to a JavaScript YAML
// parser: equal values, all numbers being float64.
func keyIdentity(key any) any {
	switch key.(type) {
	case int64, uint64:
		return toFloat(key)
	}
	return key
}

// jsKey writes a key as JavaScript's String() does, which is how a
// JavaScript YAML parser names the property of a non-string key: null is
// "", 0x1F is "31", 1.0 is "1", True is "true".
func jsKey(key any) string {
	switch k := key.(type) {
	case nil:
		return ""
	case string:
		return k
	case bool:
		return strconv.FormatBool(k)
	case int64, uint64, float64:
		return jsNumber(toFloat(k))
	}
	return fmt.Sprint(key)
}

// jsNumber formats a finite float as JavaScript's Number.prototype.toString:
// the shortest digits, in exponent form below 1e-6 and from 1e21 on.
func jsNumber(f float64) string {
	if f == 0 {
		return "0" // and -0 too
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e-07, 1.5e+21
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[:1]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + sign + exp
}
