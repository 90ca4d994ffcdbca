package install

import (
	"bytes"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/report"
)

// maxDiffFile is the largest file whose lines a change's diff shows; a
// larger one, or one holding a NUL byte, is named as a binary change.
const maxDiffFile = 1 << 20

// changeDiff is the unified diff (report.Diff, labelled relative to
// base) that turns the installed copy oldDir of a skill into its staged
// copy newDir, over the paths ch names: what an update writes over the
// files on disk, local edits included.
func changeDiff(base, oldDir, newDir string, ch *manifest.Changes) string {
	if ch.Empty() {
		return ""
	}
	rels := slices.Concat(ch.Added, ch.Changed, ch.Removed)
	slices.Sort(rels)
	rels = slices.Compact(rels)
	var out strings.Builder
	for _, rel := range rels {
		if strings.HasPrefix(rel, "(") {
			continue // a note of diskState, not a file
		}
		oldPath := filepath.Join(oldDir, filepath.FromSlash(rel))
		old, oldOK := readForDiff(oldPath)
		nw, newOK := readForDiff(filepath.Join(newDir, filepath.FromSlash(rel)))
		name := report.DiffName(base, oldPath)
		if binary(old) || binary(nw) {
			out.WriteString("Binary file " + path.Clean(name) + " differs\n")
			continue
		}
		if !newOK {
			// Removed: report.Diff has no /dev/null on the new side.
			d := report.Diff(base, oldPath, old, nil, true)
			out.WriteString(strings.Replace(d, "+++ b/"+name+"\n", "+++ /dev/null\n", 1))
			continue
		}
		out.WriteString(report.Diff(base, oldPath, old, nw, oldOK))
	}
	return out.String()
}

// readForDiff reads a regular file of at most maxDiffFile bytes (a larger
// one reads as binary); ok is false when there is none.
func readForDiff(p string) (b []byte, ok bool) {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false
	}
	if st.Size() > maxDiffFile {
		return []byte{0}, true
	}
	b, err = os.ReadFile(p)
	return b, err == nil
}

// binary reports whether b holds a NUL byte.
func binary(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }
