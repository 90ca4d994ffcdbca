// Command ccski gives every coding agent one view of all the Agent Skills
// on a machine: it finds them, filters, ranks and dedupes them, and serves
// them to people through this CLI and to agents over MCP.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
