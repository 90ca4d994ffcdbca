package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/pipeline"
)

// TestLoadedSaltsDoNotKeepTheFile decodes a docs table (as LoadIndex
// does) and wants no doc's salt, empty or not, to point into the
// decoder's buffer: one that did would keep the whole file in memory for
// as long as the doc lives.
func TestLoadedSaltsDoNotKeepTheFile(t *testing.T) {
	ix := &Index{}
	for i := range 200 {
		salt := ""
		if i%2 == 1 {
			salt = fmt.Sprintf("judged=sha256:%0*d;", 1+i%37, i)
		}
		ix.docs = append(ix.docs, doc{file: fmt.Sprintf("/skills/s%d/SKILL.md", i), salt: salt})
	}
	var e binenc.Encoder
	docsTable{ix}.EncodeTable(&e)
	e.String("tail") // read last, as a slice: where the buffer ends
	d := binenc.NewDecoder(e.B)
	var got Index
	keep := docsTable{&got}.DecodeTable(d)
	tail := d.Slice()
	if err := d.Err(); err != nil || tail != "tail" {
		t.Fatalf("decode: %v (tail %q)", err, tail)
	}
	keep()
	end := uintptr(unsafe.Pointer(unsafe.StringData(tail))) + uintptr(len(tail))
	start := end - uintptr(len(e.B))
	if len(got.docs) != len(ix.docs) {
		t.Fatalf("decoded %d docs, want %d", len(got.docs), len(ix.docs))
	}
	for i, doc := range got.docs {
		if doc.salt != ix.docs[i].salt {
			t.Fatalf("doc %d: salt %q, want %q", i, doc.salt, ix.docs[i].salt)
		}
		if p := uintptr(unsafe.Pointer(unsafe.StringData(doc.salt))); p >= start && p <= end {
			t.Fatalf("doc %d: its salt %q points into the decoder's buffer, which it keeps alive", i, doc.salt)
		}
	}
}

// TestSaveFileLimit wants an index whose file would be over the limit
// refused by SaveFile, with the size and the limit named and the file
// left as it was, and a file over it refused by LoadIndex.
func TestSaveFileLimit(t *testing.T) {
	recs := corpus(t, 40, 5)
	ix, err := (*Index)(nil).Update(context.Background(), recs, Source{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "search.bin")
	if err := ix.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	small, _ := os.ReadFile(path)
	if indexFormat.MaxFile != MaxFile {
		t.Fatalf("the index format's limit is %d, want MaxFile (%d)", indexFormat.MaxFile, MaxFile)
	}
	defer func(n int) { indexFormat.MaxFile = n }(indexFormat.MaxFile)
	indexFormat.MaxFile = len(small) + 100

	// Long distinct words make the index larger than the limit.
	big := make([]string, 0, 200)
	for i := range 200 {
		big = append(big, fmt.Sprintf("%s%d", strings.Repeat("w", 30), i))
	}
	bigger, err := ix.Update(context.Background(), recs, Source{Body: func(r *pipeline.Record) string {
		return strings.Join(big, " ") + " " + r.Name
	}, Salt: func(*pipeline.Record) string { return "big" }})
	if err != nil {
		t.Fatal(err)
	}
	err = bigger.SaveFile(path)
	if !errors.Is(err, binenc.ErrTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(indexFormat.MaxFile)) ||
		!strings.Contains(err.Error(), path) {
		t.Fatalf("SaveFile over the limit: %v, want an error naming the file, its size and the limit", err)
	}
	if !bigger.Changed() {
		t.Error("an index not saved says it is unchanged")
	}
	if now, _ := os.ReadFile(path); string(now) != string(small) {
		t.Error("SaveFile over the limit changed the file")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 { // search.bin and its lock
		t.Errorf("SaveFile over the limit left %d files, want search.bin and search.bin.lock", len(entries))
	}

	// A file over the limit is not read.
	indexFormat.MaxFile = len(small) - 1
	if _, err := LoadIndex(path); err == nil {
		t.Error("LoadIndex read a file over the limit")
	}
}

// TestSaveFileKeepsOtherRecordSets saves the indexes of two record sets
// (a server's and a project's: overlapping) into one file by turns, and
// wants neither to read again what the other's save would have dropped;
// a file changed since it was indexed is dropped by the next save, and a
// save that would write what the file holds writes nothing.
func TestSaveFileKeepsOtherRecordSets(t *testing.T) {
	all := corpus(t, 160, 7)
	setA, setB := all[:100], all[60:]
	path := filepath.Join(t.TempDir(), "search.bin")
	reads := 0
	counted := Source{Body: func(r *pipeline.Record) string { reads++; return readBody(r.File) }, Workers: 1}
	// run is one process: load the file, update for recs, save.
	run := func(name string, recs []*pipeline.Record) *Index {
		t.Helper()
		loaded, _ := LoadIndex(path) // missing the first time
		reads = 0
		ix, err := loaded.Update(context.Background(), recs, counted)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Changed() {
			if err := ix.SaveFile(path); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		compare(t, recs, ix)
		return ix
	}
	// corpus removes some files: Update finds them missing without
	// reading them.
	present := func(recs []*pipeline.Record) int {
		n := 0
		for _, r := range recs {
			if _, err := os.Stat(r.File); err == nil {
				n++
			}
		}
		return n
	}
	if present(all) == len(all) {
		t.Fatal("the corpus has no missing file: the test would miss that case")
	}

	run("A", setA)
	run("B", setB)
	if want := present(all[100:]); reads != want {
		t.Errorf("B's first run read %d files, want %d (those A does not index)", reads, want)
	}
	st, _ := os.Stat(path)
	run("A again", setA)
	if reads != 0 {
		t.Errorf("A after B read %d files, want 0: B's save dropped A's docs", reads)
	}
	if again, _ := os.Stat(path); !os.SameFile(st, again) {
		t.Error("A's save after B's rewrote a file holding its docs already")
	}
	run("B again", setB)
	if reads != 0 {
		t.Errorf("B again read %d files, want 0", reads)
	}

	// The union, loaded whole, answers as reading every body does.
	loaded, err := LoadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	reads = 0
	both, err := loaded.Update(context.Background(), all, counted)
	if err != nil {
		t.Fatal(err)
	}
	if reads != 0 {
		t.Errorf("the union read %d files, want 0", reads)
	}
	compare(t, all, both)

	// A file of A changed since: B's save drops it, and A reads it
	// alone.
	changed := setA[3].File
	if err := os.WriteFile(changed, []byte("---\nname: x\n---\nchanged body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(setB[len(setB)-1].File, []byte("---\nname: y\n---\nother body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("B after the edits", setB)
	if reads != 1 {
		t.Errorf("B after its edit read %d files, want 1", reads)
	}
	if loaded, _ := LoadIndex(path); loaded != nil {
		if _, ok := loaded.files[changed]; ok {
			t.Errorf("B's save kept the doc of %s, changed since it was read", changed)
		}
	}
	run("A after the edits", setA)
	if reads != 1 {
		t.Errorf("A after the edits read %d files, want 1 (the changed one)", reads)
	}
}

// TestSaveFileOverLimitWritesItsOwn wants a save whose union with the
// file's other docs is over the limit to write the index alone.
func TestSaveFileOverLimitWritesItsOwn(t *testing.T) {
	all := corpus(t, 80, 9)
	path := filepath.Join(t.TempDir(), "search.bin")
	a, err := (*Index)(nil).Update(context.Background(), all[:40], Source{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	aSize := fileSize(t, path)
	b, err := (*Index)(nil).Update(context.Background(), all[40:], Source{})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	union := fileSize(t, path)
	if union <= aSize {
		t.Fatalf("the union is %d bytes, A's alone %d", union, aSize)
	}
	defer func(n int) { indexFormat.MaxFile = n }(indexFormat.MaxFile)
	indexFormat.MaxFile = int(union) - 1
	a.changed = true
	if err := a.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadIndex(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Len() != a.Len() {
		t.Errorf("the file holds %d docs, want A's %d alone", loaded.Len(), a.Len())
	}
	again, err := loaded.Update(context.Background(), all[:40], Source{})
	if err != nil || again.Changed() {
		t.Fatalf("the update of A's own file read or dropped files (err %v)", err)
	}
	compare(t, all[:40], again)
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}
