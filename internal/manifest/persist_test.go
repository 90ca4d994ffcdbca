package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// TestSaveLoad: a cache saved by one process and loaded by the next
// hashes nothing for unchanged files, and a changed file again.
func TestSaveLoad(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"a/SKILL.md": "a", "a/references/r.md": "r"})
	dir := filepath.Join(base, "a")
	first := trusting()
	want, err := first.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "manifests.bin")
	if err := first.SaveFile(saved); err != nil {
		t.Fatal(err)
	}
	next := trusting()
	if err := next.LoadFile(saved); err != nil {
		t.Fatal(err)
	}
	got, err := next.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest from the loaded cache differs (-want +got):\n%s", diff)
	}
	if st := next.Stats(); st.Hashed != 0 || changeTimesRead && st.Listed != 0 {
		t.Errorf("the loaded cache hashed %d files and read %d folders; want none", st.Hashed, st.Listed)
	}
	if next.Changed() {
		t.Errorf("a Build that found everything in the loaded cache changed it")
	}
	// An edit changes the stat: that file is hashed again, with its new digest.
	p := filepath.Join(dir, "references", "r.md")
	if err := os.WriteFile(p, []byte("rr"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(p, old, old)
	later := trusting()
	if err := later.LoadFile(saved); err != nil {
		t.Fatal(err)
	}
	m, err := later.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st := later.Stats(); st.Hashed != 1 || m.Files[1].Size != 2 {
		t.Errorf("after an edit: %d files hashed, %+v; want r.md hashed again", st.Hashed, m.Files)
	}
}

// The magic and version of the file form.
var (
	magic   = cacheFormat.Magic
	version = byte(cacheFormat.Version)
)

// TestLoadRefuses: a cache file of the old JSON form, of another version,
// truncated anywhere, with bytes left over, or with a bad listing entry or
// path is refused whole: nothing of it is added.
func TestLoadRefuses(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"a/SKILL.md": "a", "a/references/r.md": "r"})
	c := trusting()
	if _, err := c.Build(filepath.Join(base, "a")); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "manifests.bin")
	if err := c.SaveFile(saved); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"the JSON form of version 1": []byte(`{"version":1,"entries":[]}`),
		"another version":            append([]byte(magic), version+1, 0, 0),
		"bytes left over":            append(slices.Clone(good), 0),
		"a relative path":            append([]byte(magic), version, 1, 0, 3, 'a', '/', 'b', 0, 0, 0, 0, 0, 0, 0),
		"a listing entry with a slash": append([]byte(magic), version, 1, 0, 2, '/', 'a', 0, 0, 0, 0, 0,
			1, byte(kindFile), 3, 'b', '/', 'c', 0),
		"a listing entry of no kind": append([]byte(magic), version, 1, 0, 2, '/', 'a', 0, 0, 0, 0, 0,
			1, 0, 1, 'b', 0),
		"a .git entry listed": append([]byte(magic), version, 1, 0, 2, '/', 'a', 0, 0, 0, 0, 0,
			1, byte(kindDir), 4, '.', 'g', 'i', 't', 0),
	}
	for n := range len(good) {
		cases[fmt.Sprintf("truncated to %d bytes", n)] = good[:n]
	}
	load := func(c *Cache, data []byte) error {
		p := filepath.Join(t.TempDir(), "manifests.bin")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return c.LoadFile(p)
	}
	for name, data := range cases {
		c := NewCache()
		if err := load(c, data); err == nil {
			t.Errorf("%s: Load = nil, want an error", name)
		}
		if st := c.Stats(); st.Entries != 0 || st.Folders != 0 {
			t.Errorf("%s: %d digests and %d listings added; want none", name, st.Entries, st.Folders)
		}
	}
	// The well-formed ones that the cases above break load.
	for _, data := range [][]byte{good, append([]byte(magic), version, 1, 0, 2, '/', 'a', 0, 0, 0, 0, 0,
		1, byte(kindFile), 1, 'b', 0)} {
		if err := load(NewCache(), data); err != nil {
			t.Errorf("Load of a good file: %v", err)
		}
	}
}
