package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addProfileFlags adds the hidden --cpuprofile and --memprofile flags,
// for finding where a command's time and memory go as a user runs it
// (docs/benchmarks.md). The profiles start before the command runs
// (a.startProfiles) and are written when it returns; a failure to write
// them is reported on stderr and never changes the command's exit code.
func addProfileFlags(root *cobra.Command) {
	root.PersistentFlags().String("cpuprofile", "", "write a CPU profile to `file`")
	root.PersistentFlags().String("memprofile", "", "write a heap profile to `file` when the command ends")
	for _, name := range []string{"cpuprofile", "memprofile"} {
		_ = root.PersistentFlags().MarkHidden(name)
	}
}

// startProfiles starts the profiles the flags of cmd ask for; the
// function it returns writes them.
func (a *app) startProfiles(cmd *cobra.Command) func() {
	cpu, _ := cmd.Flags().GetString("cpuprofile")
	mem, _ := cmd.Flags().GetString("memprofile")
	return startProfiles(a, cpu, mem)
}

func startProfiles(a *app, cpu, mem string) func() {
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err == nil {
			if err = pprof.StartCPUProfile(f); err != nil {
				_ = f.Close()
			}
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "ccski: --cpuprofile: %v\n", err)
		} else {
			cpuFile = f
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			_ = cpuFile.Close()
		}
		if mem != "" {
			runtime.GC()
			f, err := os.Create(mem)
			if err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				fmt.Fprintf(a.stderr, "ccski: --memprofile: %v\n", err)
			}
		}
	}
}
