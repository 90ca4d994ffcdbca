package mcp

import "hash/maphash"

// sigSeed seeds the signatures of registered prompts and resources: a
// seed chosen at random when the process starts, so that no file can be
// written to collide with another's signature.
var sigSeed = maphash.MakeSeed()

// signature sums parts up in 64 bits: what a registered prompt or
// resource shows, kept to tell whether it must be registered again. A
// server keeps one per skill for as long as it runs, so it keeps the sum
// rather than a copy of the strings (a description is hundreds of bytes).
// Two different inputs share a sum with probability 2^-64.
func signature(parts ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(sigSeed)
	for _, p := range parts {
		_, _ = h.WriteString(p)
		_ = h.WriteByte(0)
	}
	return h.Sum64()
}
