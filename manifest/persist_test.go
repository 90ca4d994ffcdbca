package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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
	var saved bytes.Buffer
	if err := first.Save(&saved); err != nil {
		t.Fatal(err)
	}
	next := trusting()
	if err := next.Load(bytes.NewReader(saved.Bytes())); err != nil {
		t.Fatal(err)
	}
	got, err := next.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest from the loaded cache differs (-want +got):\n%s", diff)
	}
	if st := next.Stats(); st.Hashed != 0 {
		t.Errorf("the loaded cache hashed %d files; want none", st.Hashed)
	}
	// An edit changes the stat: that file is hashed again, with its new digest.
	p := filepath.Join(dir, "references", "r.md")
	if err := os.WriteFile(p, []byte("rr"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = os.Chtimes(p, old, old)
	later := trusting()
	if err := later.Load(bytes.NewReader(saved.Bytes())); err != nil {
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

func TestLoadRefuses(t *testing.T) {
	for _, in := range []string{"{", `{"version":2,"entries":[]}`} {
		c := NewCache()
		if err := c.Load(strings.NewReader(in)); err == nil {
			t.Errorf("Load(%q) = nil, want an error", in)
		}
	}
	// Entries with a malformed digest are skipped.
	c := NewCache()
	err := c.Load(strings.NewReader(`{"version":1,"entries":[{"path":"/x","size":1,"digest":"sha256:zz"}]}`))
	if err != nil || c.Stats().Entries != 0 {
		t.Errorf("a malformed digest: %v, %d entries; want it skipped", err, c.Stats().Entries)
	}
}
