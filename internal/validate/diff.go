package validate

import (
	"bytes"
	"fmt"
	"strings"
)

// UnifiedDiff returns a unified diff (three lines of context) from a to b,
// labelled a/name and b/name, that patch and git apply accept; "" when
// they are equal. Lines are compared byte for byte, so a changed line
// ending shows as a changed line.
func UnifiedDiff(name string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	al, bl := splitKeep(a), splitKeep(b)
	// Only the frontmatter changes, so trimming the common ends leaves a
	// small middle for the quadratic LCS.
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
	ops = append(ops, lcsDiff(al[pre:len(al)-suf], bl[pre:len(bl)-suf])...)
	for i := len(al) - suf; i < len(al); i++ {
		ops = append(ops, diffOp{' ', al[i]})
	}

	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
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
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aStart, aLen), hunkRange(bStart, bLen))
		for _, op := range ops[start:stop] {
			out.WriteByte(op.kind)
			out.WriteString(op.line)
			if !strings.HasSuffix(op.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		i = stop
	}
	return out.String()
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
