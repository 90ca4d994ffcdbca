package pipeline

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSuggestNames(t *testing.T) {
	names := []string{"review", "deploy", "Release", "rebase"}
	orig := slices.Clone(names)
	tests := []struct {
		q    string
		n    int
		want []string
	}{
		{"rev", 3, []string{"review"}},
		// A fuzzy match ranks before one a single edit away.
		{"Relase", 3, []string{"Release", "rebase"}},
		{"deply", 3, []string{"deploy"}},
		{"re", 2, []string{"rebase", "review"}},
		{"zzzz", 3, []string{}},
		{"  ", 3, nil},
		{"rev", 0, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, SuggestNames(tt.q, names, tt.n)); diff != "" {
			t.Errorf("SuggestNames(%q, %d) (-want +got):\n%s", tt.q, tt.n, diff)
		}
	}
	if !slices.Equal(names, orig) {
		t.Errorf("SuggestNames changed its input: %q", names)
	}
	if got := SuggestNames("rev", nil, 3); got != nil {
		t.Errorf("SuggestNames(no names) = %q, want nil", got)
	}
}
