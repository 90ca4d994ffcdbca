package security

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveHits finds every anchor in data by brute force, ignoring ASCII
// case.
func naiveHits(anchors []string, data []byte) []hit {
	// The matcher folds ASCII letters only (anchors in other scripts are
	// matched as written) and reads a line break or a tab as a space, so
	// the brute force does the same.
	low := bytes.Map(func(r rune) rune {
		switch {
		case 'A' <= r && r <= 'Z':
			return r + 'a' - 'A'
		case r == '\n' || r == '\t':
			return ' '
		}
		return r
	}, data)
	var out []hit
	for id, a := range anchors {
		for i := 0; i+len(a) <= len(low); i++ {
			if string(low[i:i+len(a)]) == a {
				out = append(out, hit{id: id, start: i, end: i + len(a)})
			}
		}
	}
	return out
}

func sortHits(hs []hit) {
	slices.SortFunc(hs, func(a, b hit) int { return cmp.Or(cmp.Compare(a.end, b.end), cmp.Compare(a.id, b.id)) })
}

// TestMatcher compares the automaton with a brute-force search on random
// texts over a small alphabet, short ones and ones long enough to be
// scanned as two halves, so that anchors overlap, nest, repeat and cross
// the middle.
func TestMatcher(t *testing.T) {
	anchors := []string{"ab", "abc", "bca", "c", "aab", "<sys", "sys>", "a|b", "ccc"}
	m := newMatcher(anchors)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "abcABC<>|sySY x"
	for _, n := range []int{0, 1, 5, 64, 4095, 4096, 4097, 9000, 20001} {
		for range 20 {
			data := make([]byte, n)
			for i := range data {
				data[i] = alphabet[rng.IntN(len(alphabet))]
			}
			got, want := m.scan(data), naiveHits(anchors, data)
			if !slices.IsSortedFunc(got, func(a, b hit) int { return cmp.Compare(a.end, b.end) }) {
				t.Fatalf("n=%d: hits are not ordered by their end", n)
			}
			sortHits(got)
			sortHits(want)
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d: the automaton found %d hits, brute force %d", n, len(got), len(want))
			}
		}
	}
}

// TestMatcherAnchors checks the real anchor table the same way on text
// built from the anchors themselves, in mixed case.
func TestMatcherAnchors(t *testing.T) {
	table, m := anchors()
	texts := make([]string, len(table))
	for i, a := range table {
		texts[i] = a.text
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for b.Len() < 50000 {
		a := texts[rng.IntN(len(texts))]
		if rng.IntN(2) == 0 {
			a = strings.ToUpper(a)
		}
		b.WriteString(a)
		b.WriteString([]string{"", " ", "\n", "x"}[rng.IntN(4)])
	}
	data := []byte(b.String())
	got, want := m.scan(data), naiveHits(texts, data)
	sortHits(got)
	sortHits(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the automaton found %d hits, brute force %d", len(got), len(want))
	}
}

// TestMatcherAcrossTheMiddle places every anchor at every offset around
// the middle of a long text, where the two halves of the scan meet.
func TestMatcherAcrossTheMiddle(t *testing.T) {
	anchors := []string{"ab", "abcdefgh", "h", "<system>"}
	m := newMatcher(anchors)
	const n = 8192
	for _, a := range anchors {
		for start := n/2 - len(a) - 1; start <= n/2+1; start++ {
			data := bytes.Repeat([]byte{'x'}, n)
			copy(data[start:], a)
			got, want := m.scan(data), naiveHits(anchors, data)
			sortHits(got)
			sortHits(want)
			if !slices.Equal(got, want) {
				t.Errorf("%q at %d: got %v, want %v", a, start, got, want)
			}
		}
	}
}
