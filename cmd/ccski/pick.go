package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"charm.land/huh/v2"
	"golang.org/x/term"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/safetext"
)

// pickSkills shows the candidates of a source in a checklist on the
// terminal (in on input, the list drawn on out) and returns the names
// ticked: ↑/↓ move, space or x ticks, ctrl+a ticks all, / filters, enter
// confirms. Nothing is ticked at first. Esc or ctrl+c cancels.
func pickSkills(ctx context.Context, source string, cands []install.Candidate, in, out *os.File) ([]string, error) {
	if len(cands) == 0 {
		return nil, nil
	}
	opts := make([]huh.Option[string], len(cands))
	for i, c := range cands {
		opts[i] = huh.NewOption(pickLabel(c), c.Name)
	}
	height := len(cands) + 4
	if _, rows, err := term.GetSize(int(out.Fd())); err == nil && rows > 6 && height > rows-2 {
		height = rows - 2
	}
	var picked []string
	field := huh.NewMultiSelect[string]().
		Title(fmt.Sprintf("Skills to install from %s", cleanText(source))).
		Description("space: tick • ctrl+a: all • /: filter • enter: install").
		Options(opts...).
		Height(height).
		Value(&picked)
	form := huh.NewForm(huh.NewGroup(field)).WithInput(in).WithOutput(out).WithShowHelp(false)
	if err := form.RunWithContext(ctx); err != nil {
		if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, context.Canceled) {
			return nil, errors.New("cancelled: nothing was installed")
		}
		return nil, fmt.Errorf("the skill picker failed: %w", err)
	}
	return picked, nil
}

// oneLine cuts s to n characters on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// cleanText is s with control characters replaced (safetext.Clean).
func cleanText(s string) string {
	c, _ := safetext.Clean(s)
	return c
}

// pickLabel is a candidate's line in the picker: its name, plugin and the
// start of its description. The picker draws on the terminal itself, past
// the CLI's escaping writer, so control characters (from a marketplace
// file, say) are replaced here.
func pickLabel(c install.Candidate) string {
	label := c.Name
	if c.Plugin != "" {
		label += " (" + c.Plugin + ")"
	}
	if d := oneLine(c.Description, 70); d != "" {
		label += " — " + d
	}
	return cleanText(label)
}
