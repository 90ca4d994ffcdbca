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

// cleanField replaces the control characters in the field *s with clean
// (CleanName or CleanText) and, if it held some, appends the problem that
// says so to probs. A field without any is left exactly as read.
func cleanField(probs []Problem, field string, s *string, clean func(string) (string, []rune), line int) []Problem {
	c, found := clean(*s)
	if found == nil {
		return probs
	}
	*s = c
	return append(probs, Problem{Code: problems.ControlCharacters, Line: line, Message: fmt.Sprintf(
		"%s holds control characters (%s), which a terminal acts on or which reorder text; "+
			"ccski shows each as U+FFFD: delete them", field, safetext.Describe(found))})
}

// cleanFront cleans f's name and description (cleanField).
func cleanFront(f *Front, line int) []Problem {
	probs := cleanField(nil, "name", &f.Name, CleanName, line)
	return cleanField(probs, "description", &f.Description, CleanText, line)
}

// cleanCommand cleans a command's description and argument-hint
// (cleanField).
func cleanCommand(c *Command, line int) []Problem {
	probs := cleanField(nil, "description", &c.Description, CleanText, line)
	return cleanField(probs, "argument-hint", &c.ArgumentHint, CleanText, line)
}
