package testfs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	base := t.TempDir()
	Write(t, base, map[string]string{
		"a/b/file.txt": "content",
		"empty/":       "ignored",
		"a/link":       "-> b/file.txt",
		"abs":          "-> " + filepath.Join(base, "a"),
		"dangling":     "-> nowhere",
		"a/b/":         "",
	})
	if b, err := os.ReadFile(filepath.Join(base, "a", "b", "file.txt")); err != nil || string(b) != "content" {
		t.Errorf("a/b/file.txt = %q, %v; want content", b, err)
	}
	if st, err := os.Stat(filepath.Join(base, "empty")); err != nil || !st.IsDir() {
		t.Errorf("empty/ is not a folder: %v", err)
	}
	for link, want := range map[string]string{
		"a/link":   filepath.FromSlash("b/file.txt"),
		"abs":      filepath.Join(base, "a"),
		"dangling": "nowhere",
	} {
		got, err := os.Readlink(filepath.Join(base, filepath.FromSlash(link)))
		if err != nil || got != want {
			t.Errorf("%s -> %q, %v; want %q", link, got, err, want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(base, "a", "link")); err != nil || string(b) != "content" {
		t.Errorf("reading through a/link = %q, %v; want content", b, err)
	}
}

func TestAge(t *testing.T) {
	base := t.TempDir()
	Write(t, base, map[string]string{"d/f": "x", "d/link": "-> f", "dangling": "-> nowhere"})
	Age(t, base, time.Hour)
	limit := time.Now().Add(-59 * time.Minute)
	for _, p := range []string{"", "d", "d/f"} {
		st, err := os.Stat(filepath.Join(base, filepath.FromSlash(p)))
		if err != nil {
			t.Fatal(err)
		}
		if !st.ModTime().Before(limit) {
			t.Errorf("%q: time %v, want an hour ago", p, st.ModTime())
		}
	}
}

func TestTempDir(t *testing.T) {
	d := TempDir(t)
	real, err := filepath.EvalSymlinks(d)
	if err != nil || real != d {
		t.Errorf("TempDir = %q, resolves to %q (%v)", d, real, err)
	}
}
