//go:build linux

// Command peakrss runs a command and writes its wall time and peak
// resident set to a file, so that the benchmark suite can measure a
// process's memory without its own: on Linux a child's ru_maxrss starts at
// the resident set of the process that exec'd it, which for the suite
// (vfork from a large process) would hide any figure below the suite's own.
// Here the command is forked from this small process instead.
//
//	peakrss OUTFILE CMD [ARG...]
//
// The command inherits stdin, stdout, stderr, the environment and the
// folder. OUTFILE gets "<wall nanoseconds> <peak RSS KiB>\n". The exit
// code is the command's (2 for a usage error, 1 if it could not start).
// This process's own resident set (about 2.5 MiB) is still a lower bound
// of what it reports: smaller figures are not resolved.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss OUTFILE CMD [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	rss := int64(-1)
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru != nil {
		rss = int64(ru.Maxrss)
	}
	if werr := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d %d\n", wall.Nanoseconds(), rss), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", werr)
		os.Exit(1)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
