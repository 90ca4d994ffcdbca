//go:build !linux

package install

import "errors"

// exchange is not available here: replace moves the old path aside
// instead. It is a variable as on Linux, where tests replace it.
var exchange = func(a, b string) error { return errors.New("no atomic exchange on this system") }
