//go:build !linux

package install

import "errors"

// exchange is not available here: replace moves the old path aside
// instead.
func exchange(a, b string) error { return errors.New("no atomic exchange on this system") }
