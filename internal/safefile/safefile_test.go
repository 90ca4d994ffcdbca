package safefile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "ten"), []byte("0123456789"))
	write(t, filepath.Join(dir, "empty"), nil)
	write(t, filepath.Join(dir, "big"), bytes.Repeat([]byte("x"), 3*MiB+5))
	if err := os.Symlink("ten", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		file  string
		limit int64
		want  string
		is    error    // the error matches it
		says  []string // the error says these
	}{
		{"whole", "ten", 100, "0123456789", nil, nil},
		{"exactly the limit", "ten", 10, "0123456789", nil, nil},
		{"empty", "empty", 10, "", nil, nil},
		{"symlink to a regular file is followed", "link", 100, "0123456789", nil, nil},
		{"one byte over", "ten", 9, "", ErrTooLarge, []string{"ten", "10 bytes, over the 9 bytes limit"}},
		{"over a MiB cap, size and limit in the message", "big", 1 * MiB, "", ErrTooLarge,
			[]string{"big", "3145733 bytes (3.0 MiB), over the 1 MiB limit"}},
		{"folder", ".", 100, "", ErrNotRegular, []string{"it is a folder, not a regular file"}},
		{"symlink to a folder", "dirlink", 100, "", ErrNotRegular, []string{"dirlink", "folder"}},
		{"missing", "nope", 100, "", fs.ErrNotExist, []string{"nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(filepath.Join(dir, tt.file), tt.limit)
			if tt.is == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("Read = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.is) || got != nil {
				t.Fatalf("Read = %q, %v; want an error matching %v", got, err, tt.is)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

func TestReadPrefix(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, []byte("0123456789"))
	tests := []struct {
		n    int64
		want string
		more bool
	}{
		{0, "", true},
		{4, "0123", true},
		{9, "012345678", true},
		{10, "0123456789", false},
		{1 << 20, "0123456789", false},
	}
	for _, tt := range tests {
		got, more, err := ReadPrefix(file, tt.n)
		if err != nil || string(got) != tt.want || more != tt.more {
			t.Errorf("ReadPrefix(%d) = %q, %v, %v; want %q, more %v", tt.n, got, more, err, tt.want, tt.more)
		}
	}
	if _, _, err := ReadPrefix(filepath.Dir(file), 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadPrefix(folder): %v, want not a regular file", err)
	}
}

// TestReadAllGrown: a file that grows past the cap after it was opened
// (its size then said it fitted) is refused, not read on.
func TestReadAllGrown(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, []byte("short"))
	f, st, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, file, bytes.Repeat([]byte("y"), 100))
	_, err = ReadAll(f, st, 50)
	var big *TooLargeError
	if !errors.As(err, &big) || big.Limit != 50 || !strings.Contains(err.Error(), "larger than the 50 bytes limit") {
		t.Errorf("ReadAll of a grown file: %v, want larger than the 50 bytes limit", err)
	}
}

// TestReadIn: a read through an os.Root stays inside it and is as safe as
// Read.
func TestReadIn(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret"), []byte("s"))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "a.txt"), []byte("inside"))
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "in")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name string
		want string
		is   error
		fail bool
	}{
		{"a.txt", "inside", nil, false},
		{"in", "inside", nil, false}, // a symlink inside the root is followed
		{"sub", "", ErrNotRegular, true},
		{"out", "", nil, true},  // leads out of the root
		{"../x", "", nil, true}, // so does ..
		{"a.txt2", "", fs.ErrNotExist, true},
	}
	for _, tt := range tests {
		got, err := ReadIn(root, tt.name, 100)
		switch {
		case !tt.fail && (err != nil || string(got) != tt.want):
			t.Errorf("ReadIn(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.fail && err == nil:
			t.Errorf("ReadIn(%s) = %q, want an error", tt.name, got)
		case tt.is != nil && !errors.Is(err, tt.is):
			t.Errorf("ReadIn(%s): %v, want %v", tt.name, err, tt.is)
		}
	}
	if _, err := ReadIn(root, "a.txt", 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadIn over the cap: %v", err)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 bytes", 1000: "1000 bytes", 1024: "1 KiB", 1500: "1500 bytes (1.5 KiB)", 16 * MiB: "16 MiB",
		64 << 10: "64 KiB", 50*MiB + 1: "52428801 bytes (50.0 MiB)",
	} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// BenchmarkRead compares a read through Read with os.ReadFile on a
// SKILL.md-sized file: the price of the non-blocking open and the fstat.
func BenchmarkRead(b *testing.B) {
	file := filepath.Join(b.TempDir(), "SKILL.md")
	if err := os.WriteFile(file, bytes.Repeat([]byte("a line of a skill\n"), 450), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("safefile.Read", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(file, 16*MiB); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.ReadFile", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadFile(file); err != nil {
				b.Fatal(err)
			}
		}
	})
}
