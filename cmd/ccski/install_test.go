package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestTimeoutUsageNamesWhatItBounds: --timeout bounds each git command,
// each request to an MCP server and each HTTP download, and says so.
func TestTimeoutUsageNamesWhatItBounds(t *testing.T) {
	cmd := &cobra.Command{Use: "x"}
	timeoutFlag(cmd)
	usage := cmd.Flags().Lookup("timeout").Usage
	for _, want := range []string{"git command", "MCP server", "HTTP download"} {
		if !strings.Contains(usage, want) {
			t.Errorf("--timeout usage %q does not name %s", usage, want)
		}
	}
}
