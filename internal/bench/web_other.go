//go:build !linux

package main

import (
	"context"
	"errors"

	"github.com/ccski/ccski/internal/fixture"
)

// webRows needs internal/bench/benchproc, which is Linux's.
func (s *suite) webRows(context.Context, *fixture.Tree, string, *sizeResult) error {
	return errors.New("the web rows run on Linux only")
}
