package skillmd

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/safetext"
)

// CleanName is the name discovery puts on a record: white space trimmed,
// and every control character (safetext.Control, tab and newline
// included) and byte that is not UTF-8 replaced by U+FFFD. found lists
// what was replaced; it is nil when nothing was.
func CleanName(name string) (clean string, found []rune) {
	return safetext.Clean(strings.TrimSpace(name))
}

// CleanText is a description as discovery puts it on a record: white
// space folded (FoldSpace, which turns tabs and newlines into spaces), and
// every control character left and byte that is not UTF-8 replaced by
// U+FFFD. found lists what was replaced; it is nil when nothing was.
func CleanText(s string) (clean string, found []rune) {
	return safetext.Clean(FoldSpace(s))
}

// controlProblem is the problem of a field that held control characters.
func controlProblem(field string, found []rune, line int) Problem {
	return Problem{Code: problems.ControlCharacters, Line: line, Message: fmt.Sprintf(
		"%s holds control characters (%s), which a terminal acts on or which reorder text; "+
			"ccski shows each as U+FFFD: delete them", field, safetext.Describe(found))}
}

// cleanFront replaces the control characters in f's name and description
// (CleanName, CleanText) and reports each field that held some. A field
// without any is left exactly as read.
func cleanFront(f *Front, line int) []Problem {
	var probs []Problem
	if clean, found := CleanName(f.Name); found != nil {
		f.Name = clean
		probs = append(probs, controlProblem("name", found, line))
	}
	if clean, found := CleanText(f.Description); found != nil {
		f.Description = clean
		probs = append(probs, controlProblem("description", found, line))
	}
	return probs
}

// cleanCommand is cleanFront for a command's description and
// argument-hint.
func cleanCommand(c *Command, line int) []Problem {
	var probs []Problem
	if clean, found := CleanText(c.Description); found != nil {
		c.Description = clean
		probs = append(probs, controlProblem("description", found, line))
	}
	if clean, found := CleanText(c.ArgumentHint); found != nil {
		c.ArgumentHint = clean
		probs = append(probs, controlProblem("argument-hint", found, line))
	}
	return probs
}
