// Command floor is the physical floor of skill discovery: it walks the
// roots given as arguments with os.ReadDir (skipping hidden folders and
// node_modules, stopping at skill folders, like ccski) and reads the first
// 4 KB of every SKILL.md and .SKILL.md found, then prints how many it read.
// The benchmark suite (go run ./internal/bench) times it beside `ccski list --json`.
//
//	floor ROOT...
package main

import (
	"fmt"
	"os"

	"github.com/ccski/ccski/internal/bench/floor/floorlib"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor ROOT...")
		os.Exit(2)
	}
	res, err := floorlib.Walk(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	fmt.Println(res.Skills)
}
