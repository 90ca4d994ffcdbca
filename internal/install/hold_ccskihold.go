//go:build ccski_hold

package install

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// With the ccski_hold build tag, which only the integration tests use, the
// steps of a change on disk (see at) can be paused at or killed at:
//
//   - an install pauses while the file $CCSKITEST_INSTALL_HOLD exists
//     after staging a skill, before any target changes, and while the
//     file $CCSKITEST_INSTALL_HOLD_SWAPPED exists after a skill's copy is
//     in place and recorded in the lock, before its links; it first
//     creates that name plus ".held" to say it waits: the test then kills
//     the process there, or starts another one;
//   - with $CCSKITEST_INSTALL_KILL_AT=N, the process kills itself
//     (SIGKILL where there are signals) at the Nth step, having written
//     "ccski-test: killed at step N (<step>)" to stderr;
//   - with $CCSKITEST_NO_EXCHANGE set, replacing a folder takes the way
//     of systems without an atomic exchange.
func init() {
	killAt, _ := strconv.Atoi(os.Getenv("CCSKITEST_INSTALL_KILL_AT"))
	steps := 0
	at = func(step string) {
		switch step {
		case stepStaged:
			hold(os.Getenv("CCSKITEST_INSTALL_HOLD"))
		case stepLocked:
			hold(os.Getenv("CCSKITEST_INSTALL_HOLD_SWAPPED"))
		}
		if steps++; steps == killAt {
			fmt.Fprintf(os.Stderr, "ccski-test: killed at step %d (%s)\n", steps, step)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Kill()
			}
			for {
				time.Sleep(time.Hour)
			}
		}
	}
	if os.Getenv("CCSKITEST_NO_EXCHANGE") != "" {
		exchange = func(a, b string) error { return errors.New("no atomic exchange in this test") }
	}
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
