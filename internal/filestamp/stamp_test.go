package filestamp

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/binenc"
)

// TestStamp checks that a stamp changes with a write that keeps the size
// and puts the modification time back (where change times are read), that
// a fresh file has not settled, and that Encode and Decode agree.
func TestStamp(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	before := Of(st)
	if before.Size() != 3 || !before.ModTime().Equal(st.ModTime()) {
		t.Errorf("stamp %+v of a 3-byte file modified at %v", before, st.ModTime())
	}
	if before.Settled(time.Now()) {
		t.Error("a file written just now has settled")
	}
	var e binenc.Encoder
	before.Encode(&e)
	d := binenc.NewDecoder(e.B)
	if got := Decode(d); got != before || d.Err() != nil {
		t.Errorf("decoded %+v (%v), encoded %+v", got, d.Err(), before)
	}
	if !ChangeTimesRead {
		return
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(p, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	st2, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if Of(st2) == before {
		t.Error("a write that kept the size and put the time back left the stamp unchanged")
	}
	if !Of(st2).Settled(time.Now().Add(Window + time.Second)) {
		t.Error("a stamp has not settled a window after its times")
	}
}
