//go:build ccski_hold

package install

import (
	"os"
	"time"
)

// With the ccski_hold build tag, which only the integration tests use, an
// install pauses while the file $CCSKITEST_INSTALL_HOLD exists after
// staging a skill, before any target changes, and while the file
// $CCSKITEST_INSTALL_HOLD_SWAPPED exists after a skill's copy is in place
// and recorded in the lock, before its links; it first creates that name
// plus ".held" to say it waits: the test then kills the process there, or
// starts another one.
func init() {
	afterStage = func(string) { hold(os.Getenv("CCSKITEST_INSTALL_HOLD")) }
	afterSwap = func(string) { hold(os.Getenv("CCSKITEST_INSTALL_HOLD_SWAPPED")) }
}

// hold waits while the file exists.
func hold(file string) {
	if file == "" {
		return
	}
	if _, err := os.Stat(file); err != nil {
		return
	}
	_ = os.WriteFile(file+".held", nil, 0o644)
	for {
		if _, err := os.Stat(file); err != nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
