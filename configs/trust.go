package configs

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// A key's trust level says what a project config (the nearest ccski.yaml,
// or the --config file) may do with it. A repository is written by
// someone else: the keys that turn a protection off or widen what is
// served, and to whom, come only from the user config, a managed config,
// CCSKI_ variables and flags; a project config may leave them as they are
// or make them stricter, and a value of it that would loosen one is
// ignored (or cut down to its stricter part) and reported (Loaded.Ignored).
// The same rule holds for the user config under a managed config, for the
// keys the managed config sets.
//
// Every key declares its level where it is declared, in a trust struct
// tag: on the fields of Config and of each provider's options struct
// (providers.Entry.Options), and for each provider's enabled key in
// providersNode. A key without one fails newSpec, so a new key cannot be
// added without deciding. The levels:
//
//	trust:"project"           a project config may set it freely
//	trust:"user"              a project config may not change it
//	trust:"stricter=a<b<c"    only to a stricter value: each chain lists
//	                          values from the loosest to the strictest,
//	                          chains are comma-separated (http<stdio,sse<stdio),
//	                          and values in no common chain are unrelated;
//	                          for a string of fixed values, every value must
//	                          be in a chain, and for a bool both
//	trust:"lower"             a number or duration, only lower: 0 (no limit)
//	                          counts as the highest
//	trust:"lower=default"     the same, for a number whose 0 means the
//	                          built-in value (limits.max_depth): 0 counts
//	                          as that value
//	trust:"more"              a list, only with more entries: the project's
//	                          list is taken with the entries below added
//	trust:"fewer"             a list, only with fewer entries: the project's
//	                          entries that the list below holds are taken
//	trust:"inside"            a path or list of paths, only inside the
//	                          project (the repository holding the project
//	                          config, else the config's folder), links
//	                          resolved; entries outside are left out
//	trust:"default"           only where no config file below sets it
const trustTag = "trust"

// trustRule is the kind of a trust level.
type trustRule int

const (
	trustProject trustRule = iota + 1
	trustUser
	trustStricter
	trustLower
	trustMore
	trustFewer
	trustInside
	trustDefault
)

// trustNames are the words of the tag.
var trustNames = map[string]trustRule{
	"project": trustProject, "user": trustUser, "stricter": trustStricter, "lower": trustLower,
	"more": trustMore, "fewer": trustFewer, "inside": trustInside, "default": trustDefault,
}

// trust is the parsed trust level of a key.
type trust struct {
	rule trustRule
	// looser maps a value of a stricter level (as fmt.Sprint writes it)
	// to every value strictly looser than it.
	looser map[string]map[string]bool
	// chains are the chains of a stricter level, as the tag writes
	// them, for messages: "off < warn < block".
	chains string
	// zeroDefault says, for lower, that 0 stands for the built-in value
	// rather than for no limit.
	zeroDefault bool
}

// enabledTrust is the level of every provider's enabled key: a project
// config may turn a provider off, never on, since a provider the user
// turned off would serve skills the user chose not to serve.
const enabledTrust = "stricter=true<false"

// parseTrust reads the trust tag of the key at key.
func parseTrust(key, tag string) (*trust, error) {
	if tag == "" {
		return nil, fmt.Errorf("configs: spec: key %q has no trust level: tag it %s:\"project\" when a project config "+
			"may set it freely, or with the rule that keeps it from loosening a protection (see configs/trust.go)", key, trustTag)
	}
	name, arg, _ := strings.Cut(tag, "=")
	rule, ok := trustNames[name]
	if !ok {
		return nil, fmt.Errorf("configs: spec: key %q: unknown trust level %q; valid levels: %s", key, tag,
			strings.Join(slices.Sorted(maps.Keys(trustNames)), ", "))
	}
	t := &trust{rule: rule}
	if rule == trustLower && arg != "" {
		if arg != "default" {
			return nil, fmt.Errorf("configs: spec: key %q: trust level %q: lower takes only =default (0 means the built-in value)", key, tag)
		}
		t.zeroDefault = true
		return t, nil
	}
	if (rule == trustStricter) != (arg != "") {
		return nil, fmt.Errorf("configs: spec: key %q: trust level %q: only stricter takes values (stricter=a<b)", key, tag)
	}
	if rule != trustStricter {
		return t, nil
	}
	t.looser = map[string]map[string]bool{}
	var chains []string
	for chain := range strings.SplitSeq(arg, ",") {
		values := strings.Split(chain, "<")
		if len(values) < 2 {
			return nil, fmt.Errorf("configs: spec: key %q: trust level %q: chain %q orders nothing", key, tag, chain)
		}
		for i, v := range values {
			if v = strings.TrimSpace(v); v == "" {
				return nil, fmt.Errorf("configs: spec: key %q: trust level %q: empty value in chain %q", key, tag, chain)
			}
			values[i] = v
			if t.looser[v] == nil {
				t.looser[v] = map[string]bool{}
			}
			for _, w := range values[:i] {
				t.looser[v][w] = true
			}
		}
		chains = append(chains, strings.Join(values, " < "))
	}
	t.chains = strings.Join(chains, ", ")
	// Close the order over chains that share a value (a<b, b<c gives
	// a<c), and refuse one that contradicts itself.
	for changed := true; changed; {
		changed = false
		for v, below := range t.looser {
			for w := range below {
				for u := range t.looser[w] {
					if !below[u] {
						below[u], changed = true, true
					}
				}
			}
			if below[v] {
				return nil, fmt.Errorf("configs: spec: key %q: trust level %q: %s is both looser and stricter than itself", key, tag, v)
			}
		}
	}
	return t, nil
}

// checkTrust reports the first leaf below n, at prefix, whose trust level
// does not fit its kind: stricter needs a bool or a string of fixed
// values, each of them ordered; lower a number or duration; more and
// fewer a list; inside a path.
func checkTrust(n *node, prefix string) error {
	for _, name := range n.order {
		c, key := n.children[name], join(prefix, name)
		if c.kind == kindSection {
			if err := checkTrust(c, key); err != nil {
				return err
			}
			continue
		}
		if c.trust == nil {
			return fmt.Errorf("configs: spec: key %q has no trust level", key)
		}
		bad := func(what string) error {
			return fmt.Errorf("configs: spec: key %q: trust level %s needs %s, and the key is %s", key, c.trust.name(), what, c.kind)
		}
		switch c.trust.rule {
		case trustStricter:
			var valid []string
			switch {
			case c.kind == kindBool:
				valid = []string{"false", "true"}
			case c.kind == kindString && len(c.enum) > 0:
				valid = c.enum
			default:
				return bad("a boolean or a string of fixed values")
			}
			for v := range c.trust.looser {
				if !slices.Contains(valid, v) {
					return fmt.Errorf("configs: spec: key %q: trust level orders %q, which is no value of it; valid values: %s",
						key, v, strings.Join(valid, ", "))
				}
			}
			for _, v := range valid {
				if _, ok := c.trust.looser[v]; !ok {
					return fmt.Errorf("configs: spec: key %q: trust level leaves %q unordered: put every value in a chain", key, v)
				}
			}
		case trustLower:
			if c.kind != kindInt && c.kind != kindDuration {
				return bad("a number or a duration")
			}
		case trustMore, trustFewer:
			if c.kind != kindList {
				return bad("a list")
			}
		case trustInside:
			if !c.path {
				return bad("a path")
			}
		}
	}
	return nil
}

// name is the level as its tag names it.
func (t *trust) name() string {
	for name, r := range trustNames {
		if r == t.rule {
			return name
		}
	}
	return "?"
}

// sensitive reports whether a project config may not set the key freely.
func (t *trust) sensitive() bool { return t != nil && t.rule != trustProject }

// describe says, in a clause, what subject ("a project config") may do
// with the key; root, when known, is the project folder of inside.
func (t *trust) describe(subject, root string) string {
	switch t.rule {
	case trustUser:
		return subject + " may not change it"
	case trustStricter:
		switch t.chains {
		case "false < true":
			return subject + " may only turn it on"
		case "true < false":
			return subject + " may only turn it off"
		}
		return subject + " may only make it stricter (" + t.chains + ")"
	case trustLower:
		if t.zeroDefault {
			return subject + " may only lower it (0 counts as the built-in value)"
		}
		return subject + " may only lower it (0 counts as the highest)"
	case trustMore:
		return subject + " may only add entries"
	case trustFewer:
		return subject + " may only leave entries out"
	case trustInside:
		if root != "" {
			return subject + " may only name paths inside the project (" + root + ")"
		}
		return subject + " may only name paths inside the project"
	case trustDefault:
		return subject + " may set it only where no config file below sets it"
	}
	return subject + " may set it"
}

// doc is the sentence the example and the schema add to a key's
// documentation, or "" for a key a project config may set freely.
func (t *trust) doc() string {
	if !t.sensitive() {
		return ""
	}
	return t.describe("A project config", "") + "."
}

// bounds is what a layer's value of a sensitive key is held to.
type bounds struct {
	// base is the value below the layer, plain (see plain).
	base any
	// set says that a config file below the layer set base, rather than
	// the defaults.
	set bool
	// root is the project folder, for inside; "" where inside does not
	// apply.
	root string
	// builtin is the key's built-in value, which 0 stands for under
	// lower=default.
	builtin any
}

// tighten returns the value of the key n taken from a layer that set v,
// both plain: v itself when the level lets the layer set it, base when
// it does not, or v cut down to its stricter part (more, fewer, inside).
func (t *trust) tighten(n *node, v any, b bounds) any {
	switch t.rule {
	case trustProject:
		return v
	case trustUser:
		return b.base
	case trustStricter:
		if reflect.DeepEqual(v, b.base) || t.looser[fmt.Sprint(v)][fmt.Sprint(b.base)] {
			return v
		}
		return b.base
	case trustLower:
		value, base := v, b.base
		if t.zeroDefault {
			// 0 is not "no limit" here but the built-in value: compare
			// that, so a 0 below does not let any value through.
			if number(value) <= 0 {
				value = b.builtin
			}
			if number(base) <= 0 {
				base = b.builtin
			}
		}
		if atMost(value, base) {
			return v
		}
		return b.base
	case trustMore:
		out := slices.Clone(v.([]string))
		for _, s := range b.base.([]string) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	case trustFewer:
		out := []string{}
		for _, s := range v.([]string) {
			if slices.Contains(b.base.([]string), s) {
				out = append(out, s)
			}
		}
		return out
	case trustInside:
		if b.root == "" {
			return v
		}
		if p, ok := v.(string); ok {
			if p == "" || within(b.root, stripQuery(n, p)) {
				return v
			}
			return b.base
		}
		out := []string{}
		for _, p := range v.([]string) {
			if within(b.root, stripQuery(n, p)) {
				out = append(out, p)
			}
		}
		if len(out) == 0 && len(v.([]string)) > 0 {
			return b.base // nothing left: as if the layer had not set it
		}
		return out
	case trustDefault:
		if b.set {
			return b.base
		}
		return v
	}
	return v
}

// atMost reports whether the number or duration v is at most base,
// where 0 means none and is the highest.
func atMost(v, base any) bool {
	switch {
	case number(base) == 0:
		return true
	case number(v) == 0:
		return false
	}
	return number(v) <= number(base)
}

// number returns an int or a duration as an int64.
func number(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case time.Duration:
		return int64(x)
	}
	return 0
}

// stripQuery returns p without the "?query" suffix a path,query key keeps.
func stripQuery(n *node, p string) string {
	if n.query {
		p, _, _ = strings.Cut(p, "?")
	}
	return p
}

// within reports whether the absolute path p is root or inside it, both
// as written and with their links resolved (safefile.WithinResolved), so
// that a link inside the project leading out of it does not count as
// inside. A path whose links cannot be resolved (a loop) is not inside.
func within(root, p string) bool {
	_, ok, err := safefile.WithinResolved(root, p)
	return err == nil && ok
}

// plain returns a layer's value in the form the levels compare: lists as
// []string (a provider option's list is []any in its layer).
func plain(v any) any {
	if l, ok := v.([]any); ok {
		out := make([]string, len(l))
		for i, e := range l {
			out[i] = fmt.Sprint(e)
		}
		return out
	}
	return v
}

// stored returns the plain value v as the layer of the key n holds it.
func stored(n *node, v any) any {
	if l, ok := v.([]string); ok && n.option {
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = e
		}
		return out
	}
	return v
}

// Ignored is a value a config file set that Load did not take as written,
// because the key's trust level does not let that file loosen it: a
// project config's, or a user config's under a managed config that sets
// the key. A value a CCSKI_ variable or a flag overrides anyway is not
// listed.
type Ignored struct {
	// Key is the flattened key ("mcp.scan").
	Key string `json:"key"`
	// Layer is the label of the file that set it ("project config
	// /repo/ccski.yaml").
	Layer string `json:"layer"`
	// Value is what the file set, and Used what Load took instead: the
	// value below the file, or the file's value cut down to its
	// stricter part (the entries of a list inside the project).
	// Durations are written as in ccski.yaml ("30s"), and a secret's
	// value as RedactedValue.
	Value any `json:"value"`
	Used  any `json:"used"`
	// Reason says what the file may do with the key: "a project config
	// may only make it stricter (off < warn < block)".
	Reason string `json:"reason"`
}

// shown returns the plain value v of key as Ignored holds it.
func shown(key string, v any) any {
	if d, ok := v.(time.Duration); ok {
		return d.String()
	}
	if IsSecret(key) && !empty(v) {
		return RedactedValue
	}
	return v
}

// confine holds the sensitive keys ly sets to their levels, where bound
// gives the bounds of a key (ok false: the key is not held here). A value
// that the level refuses is taken out of ly, so the layer below keeps the
// key and its label; one cut down is replaced. subject names ly in the
// reasons ("a project config").
func (l *loader) confine(ly *layer, subject string, bound func(key string) (bounds, bool)) []Ignored {
	var out []Ignored
	for _, key := range slices.Sorted(maps.Keys(ly.labels)) {
		n := l.spec.lookup(key)
		if n == nil || !n.trust.sensitive() {
			continue
		}
		b, ok := bound(key)
		if !ok {
			continue
		}
		raw, _ := lookupValue(ly.data, key)
		v := plain(raw)
		b.base = plain(b.base)
		got := n.trust.tighten(n, v, b)
		if reflect.DeepEqual(got, v) {
			continue
		}
		out = append(out, Ignored{Key: key, Layer: ly.labels[key], Value: shown(key, v), Used: shown(key, got),
			Reason: n.trust.describe(subject, b.root)})
		if reflect.DeepEqual(got, b.base) {
			deleteValue(ly.data, key)
			delete(ly.labels, key)
		} else {
			setValue(ly.data, key, stored(n, got))
		}
	}
	return out
}

// lookupValue returns the value of the flattened key in the nested map m.
func lookupValue(m map[string]any, key string) (any, bool) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			return nil, false
		}
		m = sub
	}
	v, ok := m[parts[len(parts)-1]]
	return v, ok
}

// setValue sets the flattened key in the nested map m, whose sections
// exist.
func setValue(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	m[parts[len(parts)-1]] = v
}

// deleteValue removes the flattened key from the nested map m, and the
// sections it leaves empty.
func deleteValue(m map[string]any, key string) {
	first, rest, nested := strings.Cut(key, ".")
	if !nested {
		delete(m, first)
		return
	}
	if sub, ok := m[first].(map[string]any); ok {
		deleteValue(sub, rest)
		if len(sub) == 0 {
			delete(m, first)
		}
	}
}

// projectRoot is the folder a project config's inside keys must stay in:
// the repository holding the file, else the file's folder.
func projectRoot(file, home string) string {
	dir := filepath.Dir(file)
	if r := repoRoot(dir, home); r != "" {
		dir = r
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// managedPath is the managed config of the system goos: a file an
// administrator writes for every user of the machine, like Claude Code's
// managed settings. /etc/ccski/config.yaml on Linux and other Unix
// systems, /Library/Application Support/ccski/config.yaml on macOS,
// %ProgramData%\ccski\config.yaml on Windows.
func managedPath(goos string, getenv func(string) string) string {
	switch goos {
	case "darwin":
		return "/Library/Application Support/ccski/config.yaml"
	case "windows":
		base := getenv("ProgramData")
		if base == "" {
			base = `C:\ProgramData`
		}
		return filepath.Join(base, "ccski", "config.yaml")
	}
	return "/etc/ccski/config.yaml"
}
