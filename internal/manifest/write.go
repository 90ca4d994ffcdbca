package manifest

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Mode is the mode ccski gives a file of a skill it writes from a
// fetched source (an archive, a well-known index, an MCP server): 0o755
// when the source marks the file executable (an archive's header can;
// an MCP server's manifest and a v0.1.0 index cannot) or when a folder
// of its '/'-separated path rel is named scripts (where a skill keeps
// what it runs), else 0o644. Nothing else of a source's mode is kept:
// no setuid, no group or world write.
func Mode(rel string, exec bool) fs.FileMode {
	if exec || slices.Contains(strings.Split(path.Dir(rel), "/"), "scripts") {
		return 0o755
	}
	return 0o644
}

// WriteNew writes the file dst, which must not exist yet (its folders
// are made 0o755 as needed), from r with mode Mode(rel, exec), and
// returns the bytes written: the one writer of fetched trees, so that
// every source's files get the same mode. A bound on the bytes is the
// caller's, on r (io.LimitReader).
func WriteNew(dst, rel string, exec bool, r io.Reader) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, Mode(rel, exec))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, err
}
