package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"charm.land/huh/v2"
	"github.com/charmbracelet/x/ansi"
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
	cols, rows, err := term.GetSize(int(out.Fd()))
	if err != nil {
		cols, rows = 0, 0
	}
	var picked []string
	form := pickForm(source, cands, cols, rows, &picked).WithInput(in).WithOutput(out)
	if err := form.RunWithContext(ctx); err != nil {
		if errors.Is(err, huh.ErrUserAborted) || errors.Is(err, context.Canceled) {
			return nil, errors.New("cancelled: nothing was installed")
		}
		return nil, fmt.Errorf("the skill picker failed: %w", err)
	}
	return picked, nil
}

// pickTheme is the picker's look; pickForm measures its frame.
var pickTheme = huh.ThemeFunc(huh.ThemeCharm)

// pickForm builds the checklist of pickSkills for a terminal cols wide
// and rows high (0 when unknown: 80 columns, a row per candidate), with
// the ticked names going to picked. Every row fits on one line: a label
// wider than the room the frame, cursor and tick mark leave is cut with
// …, by display width (a CJK character or an emoji takes two columns),
// since a wrapped row would break the list at every common width.
func pickForm(source string, cands []install.Candidate, cols, rows int, picked *[]string) *huh.Form {
	if cols <= 0 {
		cols = 80
	}
	st := pickTheme.Theme(true)
	frame := st.Focused.Base.GetHorizontalFrameSize() + st.Form.Base.GetHorizontalFrameSize() +
		st.Group.Base.GetHorizontalFrameSize()
	mark := max(ansi.StringWidth(st.Focused.MultiSelectSelector.String()), ansi.StringWidth(st.Blurred.MultiSelectSelector.String())) +
		max(ansi.StringWidth(st.Focused.SelectedPrefix.String()), ansi.StringWidth(st.Focused.UnselectedPrefix.String()))
	// One column spare: some terminals wrap a line that fills the last
	// column.
	room := max(cols-frame-mark-1, 8)
	opts := make([]huh.Option[string], len(cands))
	for i, c := range cands {
		opts[i] = huh.NewOption(pickLabel(c, room), c.Name)
	}
	height := len(cands) + 4
	if rows > 6 && height > rows-2 {
		height = rows - 2
	}
	title := ansi.Truncate(cleanText(fmt.Sprintf("Skills to install from %s", oneLine(source, 4096))), max(cols-frame-1, 8), "…")
	field := huh.NewMultiSelect[string]().
		Title(title).
		Description("space: tick • ctrl+a: all • /: filter • enter: install").
		Options(opts...).
		Height(height).
		Value(picked)
	return huh.NewForm(huh.NewGroup(field)).WithTheme(pickTheme).WithWidth(cols).WithShowHelp(false)
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

// pickLabel is a candidate's line in the picker: its name, plugin and as
// much of its description as fits in width columns, cut with …. The
// picker draws on the terminal itself, past the CLI's escaping writer, so
// control characters (from a marketplace file, say) are replaced here.
func pickLabel(c install.Candidate, width int) string {
	label := c.Name
	if c.Plugin != "" {
		label += " (" + c.Plugin + ")"
	}
	if d := oneLine(c.Description, 1024); d != "" {
		label += " — " + d
	}
	return ansi.Truncate(cleanText(oneLine(label, 4096)), width, "…")
}
