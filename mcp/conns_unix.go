//go:build unix

package mcp

import "syscall"

// openFilesLimit is the number of files the process may have open, 0 when
// unknown.
func openFilesLimit() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur > 1<<30 {
		return 0
	}
	return int(rl.Cur)
}
