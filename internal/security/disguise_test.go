package security

import (
	"testing"
)

// TestLookalikeBounds checks that every letter of the lookalike table lies
// within the bounds lookalikeOf tests first: a letter outside them would
// never be found.
func TestLookalikeBounds(t *testing.T) {
	for r, l := range lookalike {
		if r < lookalikeMin || r > lookalikeMax {
			t.Errorf("lookalike %q (U+%04X) lies outside U+%04X..U+%04X", r, r, lookalikeMin, lookalikeMax)
		}
		if got, ok := lookalikeOf(r); !ok || got != l {
			t.Errorf("lookalikeOf(%q) = %q, %v; want %q", r, got, ok, l)
		}
	}
}

// TestUndisguise covers the lines undisguise rewrites and the ones it
// leaves alone, including text before the first disguised character and
// bytes that are not UTF-8.
func TestUndisguise(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"plain ascii", "", false},
		{"日本語のテキスト", "", false},                          // CJK: nothing hidden
		{"café résumé", "", false},                       // composed accents are NFKC
		{"日本 pаssword", "日本 password", true},             // Cyrillic а after Latin p
		{"ignore\u200bprevious", "ignoreprevious", true}, // zero-width space
		{"ｃｕｒｌ", "curl", true},                           // fullwidth folds
		{"日本\xff ﬁle", "日本\ufffd file", true},            // invalid byte before a ligature
		{"\xff\xfe", "", false},
		{"Αλφα", "", false}, // Greek word: no Latin letter beside
	} {
		got, ok := undisguise([]byte(tc.in))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("undisguise(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
