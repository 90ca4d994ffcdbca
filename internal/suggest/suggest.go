// Package suggest finds the one valid key closest to a mistyped one, for
// the "did you mean" part of an error message. Each caller words its own
// message; this package only picks the key.
package suggest

import (
	"strings"

	"github.com/agnivade/levenshtein"
)

// Closest returns the entry of valid closest to key by edit distance,
// ignoring case, or "" when the closest is more than max(2, len(key)/3)
// edits away (len in bytes). Ties go to the smaller entry. An entry equal
// to key counts, at distance 0.
func Closest(key string, valid []string) string {
	k := strings.ToLower(key)
	best, bestD := "", 1<<30
	for _, v := range valid {
		d := levenshtein.ComputeDistance(k, strings.ToLower(v))
		if d < bestD || (d == bestD && v < best) {
			best, bestD = v, d
		}
	}
	if best == "" || bestD > max(2, len(key)/3) {
		return ""
	}
	return best
}
