package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// DisplayPath is p as ccski shows it to a person working in dir: relative
// to dir when p lies below it, else as it is; cleaned either way.
func DisplayPath(dir, p string) string {
	if !filepath.IsAbs(p) || dir == "" {
		return filepath.Clean(p)
	}
	if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// DiffName is the name a diff gives the file at path for a person working
// in dir: DisplayPath with forward slashes, an absolute path without its
// leading slash (the a/ and b/ prefixes stand before it, as git diff
// --no-index writes a file outside the repository).
func DiffName(dir, path string) string {
	return strings.TrimPrefix(filepath.ToSlash(DisplayPath(dir, path)), "/")
}

// Diff returns the unified diff, three lines of context, that turns old
// into new, the content of the file at path: the one format of every
// --dry-run of ccski. The file is labelled a/NAME and b/NAME, NAME being
// DiffName(dir, path), so that patch -p1 and git apply accept the diff in
// dir; a file that does not exist yet (existed false) is "--- /dev/null".
// Diff is "" when nothing changes. Lines are compared byte for byte, so a
// changed line ending shows as a changed line.
func Diff(dir, path string, old, new []byte, existed bool) string {
	if existed && bytes.Equal(old, new) {
		return ""
	}
	name := DiffName(dir, path)
	var out strings.Builder
	if existed {
		fmt.Fprintf(&out, "--- a/%s\n", name)
	} else {
		out.WriteString("--- /dev/null\n")
	}
	fmt.Fprintf(&out, "+++ b/%s\n", name)
	writeHunks(&out, diffLines(splitKeep(old), splitKeep(new)))
	return out.String()
}

// maxLCSCells bounds the table of the longest common subsequence: a
// larger changed middle is written as removed then added, one block.
const maxLCSCells = 1 << 20

// diffLines diffs two files' lines: the common start and end stay, and
// the middle between them goes through their longest common subsequence
// when it is small (edits touch one place of a file: the middle is a few
// lines), else is all removed then all added.
func diffLines(al, bl []string) []diffOp {
	pre := 0
	for pre < len(al) && pre < len(bl) && al[pre] == bl[pre] {
		pre++
	}
	suf := 0
	for suf < len(al)-pre && suf < len(bl)-pre && al[len(al)-1-suf] == bl[len(bl)-1-suf] {
		suf++
	}
	ops := make([]diffOp, 0, len(al)+len(bl))
	for i := range pre {
		ops = append(ops, diffOp{' ', al[i]})
	}
	am, bm := al[pre:len(al)-suf], bl[pre:len(bl)-suf]
	if (len(am)+1)*(len(bm)+1) <= maxLCSCells {
		ops = append(ops, lcsDiff(am, bm)...)
	} else {
		for _, l := range am {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range bm {
			ops = append(ops, diffOp{'+', l})
		}
	}
	for i := len(al) - suf; i < len(al); i++ {
		ops = append(ops, diffOp{' ', al[i]})
	}
	return ops
}

// writeHunks writes the hunks of ops: each change with up to three lines
// of context around it, changes closer than that sharing a hunk.
func writeHunks(out *strings.Builder, ops []diffOp) {
	const ctx = 3
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from ctx lines before this change to ctx lines after the
		// last change that is within 2*ctx of the previous one.
		start := max(i-ctx, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j
			} else if j-end > 2*ctx {
				break
			}
		}
		stop := min(end+ctx+1, len(ops))
		aStart, bStart := lineNumbers(ops, start)
		aLen, bLen := 0, 0
		for _, op := range ops[start:stop] {
			if op.kind != '+' {
				aLen++
			}
			if op.kind != '-' {
				bLen++
			}
		}
		fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[start:stop] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// lineNumbers returns the 1-based line numbers in a and b of ops[k].
func lineNumbers(ops []diffOp, k int) (int, int) {
	a, b := 1, 1
	for _, op := range ops[:k] {
		if op.kind != '+' {
			a++
		}
		if op.kind != '-' {
			b++
		}
	}
	return a, b
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", start-1)
	case 1:
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitKeep splits b into lines that keep their "\n".
func splitKeep(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, string(b[:i+1]))
		b = b[i+1:]
	}
	return out
}

// lcsDiff diffs two short line slices through their longest common
// subsequence.
func lcsDiff(a, b []string) []diffOp {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i++
			j++
		case t[i+1][j] >= t[i][j+1]:
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', a[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', b[j]})
	}
	return ops
}
