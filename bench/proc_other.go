//go:build !linux

package main

import "math"

// vmRSSKiB is not measured outside Linux (no /proc).
func vmRSSKiB(int) float64 { return math.NaN() }

// cpuMS is not measured outside Linux (no /proc).
func cpuMS(int) float64 { return math.NaN() }

// selfCPUMS is not measured outside Linux.
func selfCPUMS() float64 { return math.NaN() }
