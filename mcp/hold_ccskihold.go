//go:build ccski_hold

package mcp

import (
	"os"
	"time"
)

// With the ccski_hold build tag, which only the integration tests use, a
// skill load waits while a file named like the SKILL.md plus ".hold"
// exists, after creating one plus ".held" to say it is waiting. It is how
// those tests keep a call in flight over a real transport, now that a
// FIFO in place of a SKILL.md is refused at once.
func init() {
	read := readSkill
	readSkill = func(file string, j *judged) (skillText, error) {
		if _, err := os.Stat(file + ".hold"); err == nil {
			_ = os.WriteFile(file+".held", nil, 0o644)
			for {
				if _, err := os.Stat(file + ".hold"); err != nil {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		return read(file, j)
	}
}
