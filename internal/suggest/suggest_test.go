package suggest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosest(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		valid []string
		want  string
	}{
		{"one edit", "hom", []string{"home"}, "home"},
		{"swapped letters are one edit", "max_depht", []string{"min_depth", "max_depth"}, "max_depth"},
		{"case is ignored", "SKIL", []string{"command", "skill"}, "skill"},
		{"_ and - are ignored", "allowed_tools", []string{"allowed-tools", "allowed-tool"}, "allowed-tools"},
		{"_ and - are ignored both ways", "maxdepth", []string{"max_depth"}, "max_depth"},
		{"ties go to the smaller", "ab", []string{"ac", "aa"}, "aa"},
		{"ties go to the smaller whatever the order", "hom", []string{"home", "homa"}, "homa"},
		{"an equal entry counts", "pdf", []string{"pdf", "pdx"}, "pdf"},
		{"a typo beats a prefix", "meta", []string{"metadata", "meto"}, "meto"},
		{"the key starts the name", "meta", []string{"metadata"}, "metadata"},
		{"the name starts the key", "claude-code", []string{"claude", "codex"}, "claude"},
		{"a prefix needs four letters", "met", []string{"metadata"}, ""},
		{"a prefix at most half the name", "desc", []string{"description"}, ""},
		{"too far", "xyz", []string{"skill", "command"}, ""},
		{"five letters: two edits are too many", "tools", []string{"hooks"}, ""},
		{"six letters: two edits are close", "Relase", []string{"rebase"}, "rebase"},
		{"nine letters: three edits are too many", "abcdefghi", []string{"abcdefxyz"}, ""},
		{"twelve letters: three edits are too many", "aaaaaaaaaaaa", []string{"aaaaaaaaabbb"}, ""},
		{"no entries", "key", nil, ""},
		{"blank key", "  ", []string{"a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.key, tt.valid); got != tt.want {
				t.Errorf("Closest(%q, %q) = %q, want %q", tt.key, tt.valid, got, tt.want)
			}
		})
	}
}

func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name  string
		key   string
		valid []string
		want  string
	}{
		{"one edit", "hom", []string{"home"}, `; did you mean "home"?`},
		{"closest of several", "sytem_dirs", []string{"home", "system_dirs", "dynamic"}, `; did you mean "system_dirs"?`},
		{"the key itself is never suggested", "home", []string{"home"}, ""},
		{"the key itself is skipped for the next closest", "home", []string{"home", "homes"}, `; did you mean "homes"?`},
		{"nothing close", "ab", []string{"home"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DidYouMean(tt.key, tt.valid); got != tt.want {
				t.Errorf("DidYouMean(%q, %q) = %q, want %q", tt.key, tt.valid, got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	names := []string{"review", "deploy", "Release", "rebase", "deploy-prod"}
	orig := slices.Clone(names)
	tests := []struct {
		q    string
		n    int
		want []string
	}{
		{"rev", 3, []string{"review"}},
		// A fuzzy match ranks before one a single edit away.
		{"Relase", 3, []string{"Release", "rebase"}},
		{"deply", 3, []string{"deploy", "deploy-prod"}},
		// A name the query starts with comes after the typos.
		{"deploy-prd", 3, []string{"deploy-prod", "deploy"}},
		{"re", 2, []string{"rebase", "review"}},
		{"zzzz", 3, []string{}},
		{"  ", 3, nil},
		{"rev", 0, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Names(tt.q, names, tt.n)); diff != "" {
			t.Errorf("Names(%q, %d) (-want +got):\n%s", tt.q, tt.n, diff)
		}
	}
	if !slices.Equal(names, orig) {
		t.Errorf("Names changed its input: %q", names)
	}
	if got := Names("rev", nil, 3); got != nil {
		t.Errorf("Names(no names) = %q, want nil", got)
	}
	if got := Names("pdf", []string{"pdf", "pdf"}, 3); !slices.Equal(got, []string{"pdf"}) {
		t.Errorf("a name listed twice: %q", got)
	}
}

// TestNamesBy: a name is found through the other strings it answers to,
// and equal fuzzy scores keep the caller's order.
func TestNamesBy(t *testing.T) {
	ids := []string{"claude:pdf", "codex:pdf-tools", "codex:docx"}
	also := map[int][]string{0: {"pdf"}, 1: {"pdf-tools"}, 2: {"docx"}}
	got := NamesBy("docs", ids, 3, func(i int) []string { return also[i] })
	if !slices.Equal(got, []string{"codex:docx"}) {
		t.Errorf("NamesBy(docs) = %q, want the id whose short name it misspells", got)
	}
	got = NamesBy("pdf", ids, 3, func(i int) []string { return also[i] })
	if !slices.Equal(got, []string{"claude:pdf", "codex:pdf-tools"}) {
		t.Errorf("NamesBy(pdf) = %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"ab", "ba", 1},
		{"abcd", "acbd", 1}, {"ca", "abc", 3}, {"héllo", "hello", 1}, {"same", "same", 0},
		// Longer than the stack buffers.
		{strings.Repeat("a", 40), strings.Repeat("a", 38) + "bc", 2},
		{strings.Repeat("ab", 20), strings.Repeat("ab", 19) + "ba", 1},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
