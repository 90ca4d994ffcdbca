// Package scanmode names what `ccski mcp` does with the findings of the
// offline security scan: the values of the mcp.scan setting. It is a leaf,
// so that package configs can list the values without importing the
// scanner (package security), which serves them.
package scanmode

import (
	"fmt"
	"strings"
)

// Mode is what `ccski mcp` does with the findings (the mcp.scan setting).
type Mode string

// The modes.
const (
	// Off scans nothing.
	Off Mode = "off"
	// Warn serves every skill and logs each skill's findings once.
	Warn Mode = "warn"
	// Block also keeps skills with an error-level finding from agents:
	// they are not listed, and loading one is refused with the rule.
	Block Mode = "block"
)

// Values lists the valid values of mcp.scan, the default first.
func Values() []string { return []string{string(Warn), string(Off), string(Block)} }

// Parse checks a mode name.
func Parse(s string) (Mode, error) {
	for _, m := range Values() {
		if s == m {
			return Mode(m), nil
		}
	}
	return "", fmt.Errorf("unknown scan mode %q: use %s", s, strings.Join(Values(), ", "))
}
