package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/ccski/ccski/internal/install"
)

func TestPickLabelHasNoControlCharacters(t *testing.T) {
	c := install.Candidate{Name: "pdf", Plugin: "evil\x1b]0;pwned\x07\x1b[2J", Description: "Reads\x9b31m PDFs"}
	got := pickLabel(c, 200)
	if strings.ContainsAny(got, "\x1b\x07\u009b") {
		t.Errorf("pickLabel = %q: control characters reach the terminal", got)
	}
	if !strings.HasPrefix(got, "pdf (evil") || !strings.Contains(got, "PDFs") {
		t.Errorf("pickLabel = %q: want the name, plugin and description", got)
	}
}

// pickCands are candidates whose labels overflow 80 and 100 columns, in
// ASCII, in wide characters (two columns each) and with an emoji.
var pickCands = []install.Candidate{
	{Name: "pdf", Plugin: "document-skills", Description: "Comprehensive PDF manipulation toolkit for extracting text and tables, " +
		"creating new PDFs, merging and splitting documents, and handling forms."},
	{Name: "docx", Description: "Short."},
	{Name: "wenshu", Description: "处理中文文档：读取、总结、翻译和排版，适用于需要处理大量中文资料的场景，包括合同、报告和论文。"},
	{Name: "emoji-notes", Description: "Notes 📝 with emoji 🎉 everywhere 🚀 so that every glyph takes two columns 🧪 and the line runs long."},
	{Name: "multi-line", Description: "First line\nsecond line\tafter a tab, and a long tail that goes past the edge of any terminal."},
}

// TestPickerFitsTheTerminal renders the -i checklist at 80 and 100
// columns and checks it against golden files: every row is one line no
// wider than the terminal (a wrapped row broke the list at both widths),
// the descriptions cut with … where they do not fit.
func TestPickerFitsTheTerminal(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []int{80, 100} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			var picked []string
			form := pickForm("https://github.com/anthropics/skills#document-skills", pickCands, cols, 30, &picked)
			form.Init()
			view := ansi.Strip(form.View())
			var lines []string
			for _, l := range strings.Split(view, "\n") {
				if w := ansi.StringWidth(l); w > cols {
					t.Errorf("a line is %d columns wide, over %d: %q", w, cols, l)
				}
				lines = append(lines, strings.TrimRight(l, " "))
			}
			view = strings.TrimRight(strings.Join(lines, "\n"), "\n") + "\n"
			for _, c := range pickCands {
				n := 0
				for _, l := range lines {
					if strings.Contains(l, " "+c.Name) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("%s is on %d lines, want 1", c.Name, n)
				}
			}
			// Five candidates, a title and a description: a wrapped row
			// adds a line (the frame pads the list to its height below).
			rows := 0
			for _, l := range lines {
				if strings.Trim(l, "┃ ") != "" {
					rows++
				}
			}
			if rows != len(pickCands)+2 {
				t.Errorf("the picker has %d lines, want %d:\n%s", rows, len(pickCands)+2, view)
			}
			if !strings.Contains(view, "…") {
				t.Errorf("no description was cut with …:\n%s", view)
			}
			compareGolden(t, filepath.Join(dir, fmt.Sprintf("pick_%d.txt", cols)), view)
		})
	}
}
