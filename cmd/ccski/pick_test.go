package main

import (
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/install"
)

func TestPickLabelHasNoControlCharacters(t *testing.T) {
	c := install.Candidate{Name: "pdf", Plugin: "evil\x1b]0;pwned\x07\x1b[2J", Description: "Reads\x9b31m PDFs"}
	got := pickLabel(c)
	if strings.ContainsAny(got, "\x1b\x07\u009b") {
		t.Errorf("pickLabel = %q: control characters reach the terminal", got)
	}
	if !strings.HasPrefix(got, "pdf (evil") || !strings.Contains(got, "PDFs") {
		t.Errorf("pickLabel = %q: want the name, plugin and description", got)
	}
}
