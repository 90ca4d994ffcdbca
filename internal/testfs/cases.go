package testfs

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// CopyCase copies the test case folder src to dst (regular files and
// folders, byte for byte, mode 0o644 and 0o755), then carries out the
// lines of src/setup.txt, which a repository cannot hold as files (git
// keeps no symlinks on some systems, and no thousand files are committed
// for one test). Paths are slash-separated and relative to dst:
//
//	symlink LINK -> TARGET   a symlink; TARGET relative to LINK's folder, or absolute
//	exec PATH                chmod 0o755
//	fill DIR N               N small files DIR/file-1 ... DIR/file-N
//
// Blank lines and lines starting with # are skipped. setup.txt itself is
// not copied. Any error fails the test at once.
func CopyCase(tb testing.TB, src, dst string) {
	tb.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case rel == "setup.txt":
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := setup(dst, filepath.Join(src, "setup.txt")); err != nil {
		tb.Fatal(err)
	}
}

// setup carries out the setup file's lines in dir.
func setup(dir, file string) error {
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		verb, rest, _ := strings.Cut(line, " ")
		if err := apply(dir, verb, rest); err != nil {
			return fmt.Errorf("%s:%d: %w", file, n, err)
		}
	}
	return sc.Err()
}

func apply(dir, verb, rest string) error {
	at := func(p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }
	switch verb {
	case "symlink":
		link, target, ok := strings.Cut(rest, " -> ")
		if !ok {
			return fmt.Errorf("symlink needs LINK -> TARGET, got %q", rest)
		}
		if err := os.MkdirAll(filepath.Dir(at(link)), 0o755); err != nil {
			return err
		}
		return os.Symlink(filepath.FromSlash(target), at(link))
	case "exec":
		return os.Chmod(at(rest), 0o755)
	case "fill":
		d, count, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(count)
		if err != nil {
			return fmt.Errorf("fill needs DIR N, got %q", rest)
		}
		if err := os.MkdirAll(at(d), 0o755); err != nil {
			return err
		}
		for i := 1; i <= n; i++ {
			if err := os.WriteFile(filepath.Join(at(d), fmt.Sprintf("file-%d", i)), []byte("x\n"), 0o644); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown setup verb %q: use symlink, exec or fill", verb)
}
