package suggest

import "testing"

func TestClosest(t *testing.T) {
	tests := []struct {
		key   string
		valid []string
		want  string
	}{
		{"max_depht", []string{"min_depth", "max_depth"}, "max_depth"},
		{"SKIL", []string{"command", "skill"}, "skill"},   // case is ignored
		{"ab", []string{"ac", "aa"}, "aa"},                // ties go to the smaller
		{"pdf", []string{"pdf", "pdx"}, "pdf"},            // an equal entry counts
		{"xyz", []string{"skill", "command"}, ""},         // too far
		{"abcdefghi", []string{"abcdefxyz"}, "abcdefxyz"}, // 3 edits, len/3 = 3
		{"key", nil, ""},
	}
	for _, tt := range tests {
		if got := Closest(tt.key, tt.valid); got != tt.want {
			t.Errorf("Closest(%q, %q) = %q, want %q", tt.key, tt.valid, got, tt.want)
		}
	}
}
