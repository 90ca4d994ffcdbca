//go:build !unix

package mcp

// openFilesLimit is the number of files the process may have open, 0 when
// unknown.
func openFilesLimit() int { return 0 }
