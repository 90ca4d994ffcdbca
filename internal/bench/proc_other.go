//go:build !linux

package main

import "math"

// statusKiB is not measured outside Linux (no /proc).
func statusKiB(int, string) float64 { return math.NaN() }

// cpuMS is not measured outside Linux (no /proc).
func cpuMS(int) float64 { return math.NaN() }

// selfCPUMS is not measured outside Linux.
func selfCPUMS() float64 { return math.NaN() }
