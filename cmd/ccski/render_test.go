package main

import "testing"

// TestWrapWidth checks the order in which the wrap width is chosen: the
// terminal's own width, then $COLUMNS, then 80, kept within 40 to 120.
func TestWrapWidth(t *testing.T) {
	tests := []struct {
		cols    int
		columns string
		want    int
	}{
		{200, "", 120},
		{100, "", 100},
		{100, "60", 100}, // the terminal beats a stale $COLUMNS
		{30, "", 40},
		{0, "100", 100},
		{0, " 90 ", 90},
		{0, "wide", 80},
		{0, "", 80},
		{0, "0", 80},
	}
	for _, tt := range tests {
		if got := wrapWidth(tt.cols, tt.columns); got != tt.want {
			t.Errorf("wrapWidth(%d, %q) = %d, want %d", tt.cols, tt.columns, got, tt.want)
		}
	}
}
