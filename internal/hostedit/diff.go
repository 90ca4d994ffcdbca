package hostedit

import (
	"bytes"
	"fmt"
	"strings"
)

// Diff returns a unified diff (three lines of context) from old to new
// for the file path, labelled "--- path" and "+++ path", or
// "--- /dev/null" when existed is false. It is "" when
// nothing changed. The changed lines form one hunk, from the first line
// that differs to the last: edits touch one place of a file, so the
// hunk is as small as a minimal diff's.
func Diff(path string, old, new []byte, existed bool) string {
	if existed && bytes.Equal(old, new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	const ctx = 3
	from := max(pre-ctx, 0)
	aEnd, bEnd := len(a)-suf, len(b)-suf
	aTo, bTo := min(aEnd+ctx, len(a)), min(bEnd+ctx, len(b))

	var out strings.Builder
	if existed {
		fmt.Fprintf(&out, "--- %s\n", path)
	} else {
		out.WriteString("--- /dev/null\n")
	}
	fmt.Fprintf(&out, "+++ %s\n", path)
	fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(from, aTo-from), hunkRange(from, bTo-from))
	line := func(prefix byte, s string) {
		out.WriteByte(prefix)
		out.WriteString(strings.TrimSuffix(s, "\n"))
		out.WriteByte('\n')
		if !strings.HasSuffix(s, "\n") {
			out.WriteString("\\ No newline at end of file\n")
		}
	}
	for _, s := range a[from:pre] {
		line(' ', s)
	}
	for _, s := range a[pre:aEnd] {
		line('-', s)
	}
	for _, s := range b[pre:bEnd] {
		line('+', s)
	}
	for _, s := range a[aEnd:aTo] {
		line(' ', s)
	}
	return out.String()
}

// hunkRange is a hunk header's "start,count" for count lines from the
// 0-based line from.
func hunkRange(from, count int) string {
	if count == 0 {
		return fmt.Sprintf("%d,0", from)
	}
	if count == 1 {
		return fmt.Sprintf("%d", from+1)
	}
	return fmt.Sprintf("%d,%d", from+1, count)
}

// splitLines splits data after each newline; the last line may lack one.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(data), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
