//go:build ccski_hold

package install

import (
	"os"
	"time"
)

// With the ccski_hold build tag, which only the integration tests use, an
// install pauses after staging a skill, before any target changes, while
// the file $CCSKITEST_INSTALL_HOLD exists, after creating that name plus
// ".held" to say it waits: the test then kills the process there.
func init() {
	afterStage = func(string) {
		hold := os.Getenv("CCSKITEST_INSTALL_HOLD")
		if hold == "" {
			return
		}
		if _, err := os.Stat(hold); err != nil {
			return
		}
		_ = os.WriteFile(hold+".held", nil, 0o644)
		for {
			if _, err := os.Stat(hold); err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}
