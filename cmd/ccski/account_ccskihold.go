//go:build ccski_hold

package main

import "os"

// With the ccski_hold build tag, which only the integration tests use,
// CCSKITEST_ACCOUNT_HOME stands for the account's home folder, so that a
// test never reads or writes the real one; unset, it is $HOME, as a test
// home folder is. A release build always asks the user database.
func init() {
	accountHome = func() string {
		if h := os.Getenv("CCSKITEST_ACCOUNT_HOME"); h != "" {
			return h
		}
		return os.Getenv("HOME")
	}
}
