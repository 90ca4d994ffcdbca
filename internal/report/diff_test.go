package report

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestDiff compares the diffs of a few edits, as a person working in
// /work/repo sees them, with testdata/diff/<case>.diff (go test
// ./internal/report -update rewrites them), and checks that each one
// turns the old content into the new.
func TestDiff(t *testing.T) {
	const dir = "/work/repo"
	numbers := func(from, to int, change map[int]string) string {
		var b strings.Builder
		for i := from; i <= to; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
				continue
			}
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, path, old, new string
		existed              bool
	}{
		{"new-file", "/work/repo/.claude/settings.local.json", "", "{\n  \"x\": 1\n}\n", false},
		{"one-line-in-the-middle", "/work/repo/notes.txt", numbers(1, 8, nil), numbers(1, 8, map[int]string{5: "X\n"}), true},
		{"appended-after-no-final-newline", "/work/repo/a.txt", "a", "a\nb\n", true},
		{"removed", "/work/repo/a.txt", "a\nb\nc\n", "a\nc\n", true},
		{"two-hunks", "/work/repo/skills/s/SKILL.md",
			"---\r\nname: a\nx: 1\n---\n" + strings.Repeat("body\n", 10) + "last",
			"---\nname: a\nmetadata:\n  x: \"1\"\n---\n" + strings.Repeat("body\n", 10) + "last!", true},
		{"close-changes-share-a-hunk", "/work/repo/n.txt", numbers(1, 20, nil),
			numbers(1, 20, map[int]string{5: "five\n", 11: "eleven\n"}), true},
		{"outside-the-folder", "/home/me/.claude/settings.json", "{}\n", "{\n  \"a\": true\n}\n", true},
		{"relative-path", "skills/../skills/s/SKILL.md", "a\n", "b\n", true},
		{"emptied", "/work/repo/a.txt", "a\nb\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(dir, tt.path, []byte(tt.old), []byte(tt.new), tt.existed)
			compareGolden(t, filepath.Join("testdata", "diff", tt.name+".diff"), got)
			if back := applyDiff(t, tt.old, got); back != tt.new {
				t.Errorf("the diff turns the old content into %q, not %q", back, tt.new)
			}
		})
	}
	if got := Diff(dir, "/work/repo/a", []byte("a\n"), []byte("a\n"), true); got != "" {
		t.Errorf("an unchanged file has a diff:\n%s", got)
	}
}

// TestDiffRoundTrip checks that the diffs of many edits, small ones that
// go through the longest common subsequence and one too large for it,
// turn the old content into the new.
func TestDiffRoundTrip(t *testing.T) {
	lines := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	base := lines(60, func(i int) string { return strconv.Itoa(i % 7) })
	cases := map[string]string{
		"every third line changed": lines(60, func(i int) string {
			if i%3 == 0 {
				return "x"
			}
			return strconv.Itoa(i % 7)
		}),
		"lines inserted and removed": lines(50, func(i int) string { return strconv.Itoa((i * 3) % 7) }),
		"all new":                    lines(5, func(i int) string { return "new" }),
		"empty":                      "",
	}
	big := lines(3000, strconv.Itoa)
	cases["big, every line changed"] = big
	for name, after := range cases {
		for _, before := range []string{base, lines(3000, func(i int) string { return "old " + strconv.Itoa(i) })} {
			d := Diff("/r", "/r/f", []byte(before), []byte(after), true)
			if back := applyDiff(t, before, d); back != after {
				t.Errorf("%s: the diff does not apply:\n%s", name, d)
			}
		}
	}
}

func TestDiffName(t *testing.T) {
	tests := []struct{ dir, path, want string }{
		{"/work/repo", "/work/repo/skills/a/SKILL.md", "skills/a/SKILL.md"},
		{"/work/repo", "/work/repo", "."},
		{"/work/repo", "/work/repository/x", "work/repository/x"},
		{"/work/repo", "/work/x", "work/x"},
		{"/work/repo", "/home/me/.claude/settings.json", "home/me/.claude/settings.json"},
		{"/work/repo", "skills/./a/SKILL.md", "skills/a/SKILL.md"},
		{"/work/repo", "../other/SKILL.md", "../other/SKILL.md"},
		{"", "/abs/x", "abs/x"},
	}
	for _, tt := range tests {
		if got := DiffName(filepath.FromSlash(tt.dir), filepath.FromSlash(tt.path)); got != tt.want {
			t.Errorf("DiffName(%q, %q) = %q, want %q", tt.dir, tt.path, got, tt.want)
		}
	}
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$`)

// applyDiff applies a diff as Diff writes it (one file, its headers
// first) to old and returns the result; it fails t on a diff that does
// not fit old.
func applyDiff(t *testing.T, old, diff string) string {
	t.Helper()
	if diff == "" {
		return old
	}
	src := strings.SplitAfter(old, "\n")
	if src[len(src)-1] == "" {
		src = src[:len(src)-1]
	}
	rows := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if len(rows) < 2 || !strings.HasPrefix(rows[0], "--- ") || !strings.HasPrefix(rows[1], "+++ b/") {
		t.Fatalf("bad headers:\n%s", diff)
	}
	var out []string
	next := 0 // the index in src of the next line not yet copied
	for i := 2; i < len(rows); i++ {
		m := hunkHeader.FindStringSubmatch(rows[i])
		if m == nil {
			t.Fatalf("line %d is no hunk header: %q\n%s", i+1, rows[i], diff)
		}
		start, _ := strconv.Atoi(m[1])
		if m[2] != "0" {
			start-- // 0-based, except for an empty old range, which names the line before
		}
		if start < next {
			t.Fatalf("hunk %q overlaps the one before\n%s", rows[i], diff)
		}
		out = append(out, src[next:start]...)
		next = start
		for i+1 < len(rows) && !strings.HasPrefix(rows[i+1], "@@ ") {
			i++
			row := rows[i]
			if row == `\ No newline at end of file` {
				continue
			}
			text := row[1:] + "\n"
			if i+1 < len(rows) && rows[i+1] == `\ No newline at end of file` {
				text = row[1:]
			}
			switch row[0] {
			case ' ', '-':
				if next >= len(src) || src[next] != text {
					t.Fatalf("line %d of the old content is not %q\n%s", next+1, text, diff)
				}
				if row[0] == ' ' {
					out = append(out, text)
				}
				next++
			case '+':
				out = append(out, text)
			default:
				t.Fatalf("bad line %q\n%s", row, diff)
			}
		}
	}
	return strings.Join(append(out, src[next:]...), "")
}

// compareGolden compares got with the golden file, or rewrites it with
// -update.
func compareGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./internal/report -update writes it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got; check the change, then rewrite it with -update):\n%s", file, d)
	}
}
