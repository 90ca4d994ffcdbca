package skillindex

import (
	"strings"
	"testing"
)

// TestValidName: the publisher and the installer take the same names,
// those of the Agent Skills rules.
func TestValidName(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf": true, "pdf-tools": true, "a1": true, strings.Repeat("a", 64): true,
		"": false, strings.Repeat("a", 65): false, "-pdf": false, "pdf-": false, "pdf--tools": false,
		"PDF": false, "pdf_tools": false, "pdf.tools": false, "déployer": false, "../x": false,
	} {
		if got := ValidName(name); got != ok {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, ok)
		}
	}
}
