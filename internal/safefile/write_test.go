package safefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		setup func(path string)
		path  string // relative to dir; "" means "file"
		perm  fs.FileMode
		want  fs.FileMode // the mode afterwards
		is    error
	}{
		{name: "new file gets perm", perm: 0o600, want: 0o600},
		{name: "new file in new folders", path: "a/b/settings.json", perm: 0o644, want: 0o644},
		{name: "existing file keeps its mode", perm: 0o644, want: 0o640,
			setup: func(p string) { write(t, p, []byte("old")); os.Chmod(p, 0o640) }},
		{name: "folder refused", is: ErrNotRegular,
			setup: func(p string) { os.Mkdir(p, 0o755) }},
		{name: "dangling symlink refused", is: fs.ErrNotExist,
			setup: func(p string) { os.Symlink(filepath.Join(dir, "missing", "target"), p) }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel := tt.path
			if rel == "" {
				rel = fmt.Sprintf("file%d", i)
			}
			p := filepath.Join(dir, rel)
			if tt.setup != nil {
				tt.setup(p)
			}
			err := WriteAtomic(p, []byte("new"), tt.perm)
			if tt.is != nil {
				var dl *DanglingLinkError
				if !errors.Is(err, tt.is) && !errors.As(err, &dl) {
					t.Fatalf("got %v, want %v", err, tt.is)
				}
				// Nothing replaced what was there.
				if st, err := os.Lstat(p); err != nil || st.Mode().IsRegular() {
					t.Errorf("after a refused write: %v, %v", st, err)
				}
				if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
					t.Error("a write through a dangling link made its target's folder")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			st, _ := os.Stat(p)
			if string(data) != "new" || st.Mode().Perm() != tt.want {
				t.Errorf("got %q mode %v, want \"new\" mode %v", data, st.Mode().Perm(), tt.want)
			}
		})
	}
}

// TestWriteAtomicFollowsSymlink: a settings file kept in a dotfiles
// repository and linked into place stays a link; its target changes.
func TestWriteAtomicFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	write(t, target, []byte("old"))
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("target holds %q", data)
	}
}

// The helper process of TestWriteAtomicKilled: it rewrites the file named
// by CCSKI_WRITE_FILE with two contents in turn, forever, and prints the
// number of each finished write.
func TestWriteAtomicHelper(t *testing.T) {
	file := os.Getenv("CCSKI_WRITE_FILE")
	if file == "" {
		return // not the helper
	}
	a, b := killContents()
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		data := a
		if i%2 == 1 {
			data = b
		}
		if err := WriteAtomic(file, data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		fmt.Fprintln(out, i)
		out.Flush()
	}
}

// killContents are two large contents, so that a write takes long
// enough to be interrupted in the middle.
func killContents() (a, b []byte) {
	return bytes.Repeat([]byte("a"), 4*MiB), bytes.Repeat([]byte("b"), 4*MiB+1)
}

// TestWriteAtomicKilled kills a process that is rewriting a file, at
// several points, and checks that the file then holds one of the two
// contents whole: never a mix, a truncated file or nothing.
func TestWriteAtomicKilled(t *testing.T) {
	a, b := killContents()
	for round := range 4 {
		dir := t.TempDir()
		file := filepath.Join(dir, "settings.json")
		write(t, file, a)
		cmd := exec.Command(os.Args[0], "-test.run=^TestWriteAtomicHelper$")
		cmd.Env = append(os.Environ(), "CCSKI_WRITE_FILE="+file)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it finish round+1 writes, then kill it in the next one.
		sc := bufio.NewScanner(stdout)
		for n := 0; n <= round && sc.Scan(); n++ {
			if _, err := strconv.Atoi(sc.Text()); err != nil {
				t.Fatalf("helper said %q", sc.Text())
			}
		}
		cmd.Process.Kill()
		cmd.Wait()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !bytes.Equal(data, a) && !bytes.Equal(data, b) {
			t.Fatalf("round %d: the file holds %d bytes that are neither content", round, len(data))
		}
		// The next write removes the temporary file the killed one may
		// have left (and one planted for certain).
		write(t, filepath.Join(dir, ".settings.json.ccski-planted"), a)
		if err := WriteAtomic(file, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		if left := temps(t, dir); len(left) != 0 {
			t.Fatalf("round %d: temporary files left after a later write: %v", round, left)
		}
	}
}

// temps lists the temporary files of writes in dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, ".*.ccski-*"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWriteOptions: MustExist creates nothing; a failing Check leaves
// the file and no temporary file behind; stale temporary files of the
// file go, those of other files stay.
func TestWriteOptions(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "sub", "SKILL.md")
	if err := Write(missing, []byte("x"), WriteOptions{MustExist: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("MustExist on a missing file: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("MustExist made the missing file's folder")
	}

	file := filepath.Join(dir, "settings.json")
	write(t, file, []byte("old"))
	write(t, filepath.Join(dir, ".settings.json.ccski-123"), []byte("stale"))
	write(t, filepath.Join(dir, ".other.json.ccski-123"), []byte("another file's"))
	changed := errors.New("changed meanwhile")
	err := Write(file, []byte("new"), WriteOptions{Check: func() error { return changed }})
	if !errors.Is(err, changed) {
		t.Fatalf("a failing check: %v", err)
	}
	if data, _ := os.ReadFile(file); string(data) != "old" {
		t.Errorf("a failing check wrote %q", data)
	}
	if left := temps(t, dir); len(left) != 1 || filepath.Base(left[0]) != ".other.json.ccski-123" {
		t.Errorf("temporary files left: %v", left)
	}
	checked := false
	if err := Write(file, []byte("new"), WriteOptions{Check: func() error { checked = true; return nil }}); err != nil || !checked {
		t.Fatalf("a passing check: %v (ran: %v)", err, checked)
	}
	if data, _ := os.ReadFile(file); string(data) != "new" {
		t.Errorf("after a passing check: %q", data)
	}
}
