package report

import "slices"

// Catalog is a table of rules in documentation order, each found by its
// code: validate's catalog and the security scan's table are each one.
type Catalog[R any] struct {
	rules []R
	index map[string]int
}

// NewCatalog indexes rules by the code of each. It keeps rules as they
// are: the caller does not change the slice afterwards.
func NewCatalog[R any](rules []R, code func(R) string) *Catalog[R] {
	c := &Catalog[R]{rules: rules, index: make(map[string]int, len(rules))}
	for i, r := range rules {
		c.index[code(r)] = i
	}
	return c
}

// Rules returns a copy of the table, in documentation order.
func (c *Catalog[R]) Rules() []R { return slices.Clone(c.rules) }

// Lookup returns the rule of code.
func (c *Catalog[R]) Lookup(code string) (R, bool) {
	i, ok := c.index[code]
	if !ok {
		var zero R
		return zero, false
	}
	return c.rules[i], true
}
