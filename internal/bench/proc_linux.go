//go:build linux

package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/ccski/ccski/internal/bench/benchproc"
)

// statusKiB is a size field of a running process's /proc/<pid>/status,
// in KiB (benchproc.StatusKiB).
func statusKiB(pid int, field string) float64 { return benchproc.StatusKiB(pid, field) }

// cpuMS is the CPU time (user + system) a running process has used, from
// /proc/<pid>/stat, assuming the usual 100 clock ticks per second.
func cpuMS(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return math.NaN()
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is the first, utime the 12th, stime the 13th.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return math.NaN()
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return math.NaN()
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return math.NaN()
	}
	return (u + s) * 10
}

// selfCPUMS is the CPU time this process has used.
func selfCPUMS() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e6
}
