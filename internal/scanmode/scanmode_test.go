package scanmode

import (
	"strings"
	"testing"
)

// TestParse checks that every listed value parses to itself, warn first
// (the default of mcp.scan), and that anything else is an error naming
// the value and the valid ones.
func TestParse(t *testing.T) {
	if Values()[0] != string(Warn) {
		t.Errorf("Values()[0] = %q, want the default %q", Values()[0], Warn)
	}
	for _, v := range Values() {
		if m, err := Parse(v); err != nil || string(m) != v {
			t.Errorf("Parse(%q) = %q, %v", v, m, err)
		}
	}
	for _, bad := range []string{"", "Warn", "strict"} {
		_, err := Parse(bad)
		if err == nil || !strings.Contains(err.Error(), `"`+bad+`"`) || !strings.Contains(err.Error(), "warn, off, block") {
			t.Errorf("Parse(%q) error = %v", bad, err)
		}
	}
}
