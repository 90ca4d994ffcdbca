package hostedit

import (
	"fmt"
	"strings"
)

// This file checks the rule of TOML that a table is defined once, as
// strictly as Codex's own TOML parser (and Python's tomllib) do.
// BurntSushi/toml, which decodes the file here, accepts a table defined by
// dotted keys and then again by a [table] header; Codex refuses to start
// with such a file. Every edit is checked with it, so that ccski never
// writes a file Codex cannot read.

// Flags of a key in strictTOML, as the TOML specification defines them.
const (
	// flagFrozen marks an inline table or array: nothing may be added to it.
	flagFrozen uint8 = 1 << iota
	// flagExplicit marks a table defined by a [table] header or by dotted
	// keys: no [table] header may define it again.
	flagExplicit
)

// flagNode holds the flags of one key and of the keys below it.
type flagNode struct {
	flags, recursive uint8
	nested           map[string]*flagNode
}

type flagTree struct {
	root    map[string]*flagNode
	pending [][]string // keys to mark explicit at the next header
}

func (f *flagTree) node(key []string, create bool) *flagNode {
	cont := f.root
	var n *flagNode
	for _, k := range key {
		n = cont[k]
		if n == nil {
			if !create {
				return nil
			}
			n = &flagNode{nested: map[string]*flagNode{}}
			cont[k] = n
		}
		cont = n.nested
	}
	return n
}

func (f *flagTree) set(key []string, flag uint8, recursive bool) {
	n := f.node(key, true)
	if recursive {
		n.recursive |= flag
	} else {
		n.flags |= flag
	}
}

// unsetAll forgets the flags of key and of the keys below it: a new
// [[array]] table starts afresh.
func (f *flagTree) unsetAll(key []string) {
	parent := f.root
	if len(key) > 1 {
		n := f.node(key[:len(key)-1], false)
		if n == nil {
			return
		}
		parent = n.nested
	}
	delete(parent, key[len(key)-1])
}

// is reports whether key has flag, itself or through a key above it that
// has it recursively.
func (f *flagTree) is(key []string, flag uint8) bool {
	if len(key) == 0 {
		return false
	}
	cont := f.root
	for _, k := range key[:len(key)-1] {
		n := cont[k]
		if n == nil {
			return false
		}
		if n.recursive&flag != 0 {
			return true
		}
		cont = n.nested
	}
	n := cont[key[len(key)-1]]
	return n != nil && (n.flags|n.recursive)&flag != 0
}

// dataNode is the shape of the decoded document: a table, an array of
// tables or a value.
type dataNode struct {
	kind  byte // 't' table, 'l' array of tables, 'v' any other value
	kids  map[string]*dataNode
	elems []*dataNode
}

func newTable() *dataNode { return &dataNode{kind: 't', kids: map[string]*dataNode{}} }

// nest returns the table at key, creating the missing ones; through an
// array of tables it goes to the last one. A value on the way is an
// error.
func (n *dataNode) nest(key []string) (*dataNode, bool) {
	cont := n
	for _, k := range key {
		next := cont.kids[k]
		if next == nil {
			next = newTable()
			cont.kids[k] = next
		}
		if next.kind == 'l' {
			next = next.elems[len(next.elems)-1]
		}
		if next.kind != 't' {
			return nil, false
		}
		cont = next
	}
	return cont, true
}

// strictTOML returns an error naming the line of the first statement of
// d that defines a table or a key a second time, or adds to an inline
// table or array; nil when there is none.
func strictTOML(d *tdoc) error {
	flags := &flagTree{root: map[string]*flagNode{}}
	data := newTable()
	var header []string
	fail := func(s tstmt, format string, args ...any) error {
		line, col := Position(d.src, s.start)
		return &SyntaxError{Line: line, Column: col, Msg: fmt.Sprintf(format, args...) +
			" (Codex's TOML parser refuses this, although others accept it)"}
	}
	for _, s := range d.stmts {
		if s.header {
			for _, k := range flags.pending {
				flags.set(k, flagExplicit, false)
			}
			flags.pending = nil
			header = s.key
			if !s.array {
				if flags.is(s.key, flagExplicit) || flags.is(s.key, flagFrozen) {
					return fail(s, "the table %s is defined twice", renderKey(s.key))
				}
				flags.set(s.key, flagExplicit, false)
				if _, ok := data.nest(s.key); !ok {
					return fail(s, "the table %s is already a value", renderKey(s.key))
				}
				continue
			}
			if flags.is(s.key, flagFrozen) {
				return fail(s, "%s is an inline array or table and cannot take a [[%s]] table", renderKey(s.key), renderKey(s.key))
			}
			flags.unsetAll(s.key)
			flags.set(s.key, flagExplicit, false)
			parent, ok := data.nest(s.key[:len(s.key)-1])
			if !ok {
				return fail(s, "the array %s is already a value", renderKey(s.key))
			}
			last := s.key[len(s.key)-1]
			switch arr := parent.kids[last]; {
			case arr == nil:
				parent.kids[last] = &dataNode{kind: 'l', elems: []*dataNode{newTable()}}
			case arr.kind == 'l':
				arr.elems = append(arr.elems, newTable())
			default:
				return fail(s, "%s is already a table or a value and cannot take a [[%s]] table", renderKey(s.key), renderKey(s.key))
			}
			continue
		}
		abs := append(append([]string(nil), header...), s.key...)
		for i := len(header) + 1; i < len(abs); i++ {
			cont := abs[:i]
			if flags.is(cont, flagExplicit) {
				return fail(s, "the dotted key %s defines the table %s again", strings.Join(s.key, "."), renderKey(cont))
			}
			flags.pending = append(flags.pending, cont)
		}
		parentKey := abs[:len(abs)-1]
		if flags.is(parentKey, flagFrozen) {
			return fail(s, "the dotted key %s adds to an inline table", renderKey(s.key))
		}
		parent, ok := data.nest(parentKey)
		if !ok {
			return fail(s, "the dotted key %s goes through a value", renderKey(s.key))
		}
		stem := abs[len(abs)-1]
		if parent.kids[stem] != nil {
			return fail(s, "the key %s is defined twice", renderKey(abs))
		}
		if c := d.src[s.valStart]; c == '{' || c == '[' {
			flags.set(abs, flagFrozen, true)
		}
		parent.kids[stem] = &dataNode{kind: 'v'}
	}
	return nil
}
