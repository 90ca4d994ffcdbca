package binenc

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"testing"
)

// TestFormat: a file of two tables and a header saves and loads back; a
// file of another magic, version or header, truncated anywhere, with a
// byte left over or with keys out of order is refused whole.
func TestFormat(t *testing.T) {
	f := Format{Name: "test cache", Magic: "test\n", Version: 2}
	nums := func(rows map[string]int64) *Rows[int64] {
		return &Rows[int64]{Rows: rows, Put: func(e *Encoder, v int64) { e.Varint(v) },
			Get: func(d *Decoder, k string) int64 {
				v := d.Varint()
				if v < 0 {
					d.Fail(fmt.Errorf("%s: negative", k))
				}
				return v
			}}
	}
	lists := func(rows map[string][]string) *Rows[[]string] {
		return &Rows[[]string]{Rows: rows, Put: func(e *Encoder, v []string) { e.Strings(v) },
			Get: func(d *Decoder, _ string) []string { return d.Strings() }}
	}
	head := func(key string) func(*Decoder) {
		return func(d *Decoder) {
			if d.Slice() != key {
				d.Fail(ErrForeign)
			}
		}
	}
	a := map[string]int64{"/a": 1, "/a/b": 2, "/b": 300}
	b := map[string][]string{"x": {"one", "two"}, "y": nil}
	data := f.Encode(func(e *Encoder) { e.String("key") }, nums(a), lists(b))

	gotA, gotB := nums(nil), lists(nil)
	if err := f.Decode(data, head("key"), gotA, gotB); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(gotA.Rows, a) || len(gotB.Rows) != 2 || fmt.Sprint(gotB.Rows["x"]) != "[one two]" || gotB.Rows["y"] != nil {
		t.Fatalf("round trip: %v %v", gotA.Rows, gotB.Rows)
	}
	path := filepath.Join(t.TempDir(), "cache.bin")
	if err := f.Save(path, func(e *Encoder) { e.String("key") }, nums(a), lists(b)); err != nil {
		t.Fatal(err)
	}
	if loaded := nums(nil); f.Load(path, head("key"), loaded, lists(nil)) != nil || !maps.Equal(loaded.Rows, a) {
		t.Errorf("Load of what Save wrote: %v", loaded.Rows)
	}

	bad := map[string][]byte{
		"another magic":   append([]byte("tesT\n"), data[len(f.Magic):]...),
		"another version": append([]byte(f.Magic), append([]byte{3}, data[len(f.Magic)+1:]...)...),
		"a byte left":     append(append([]byte{}, data...), 0),
		"a record refused": f.Encode(func(e *Encoder) { e.String("key") }, nums(map[string]int64{"/a": -1}),
			lists(nil)),
	}
	for n := range len(data) {
		bad[fmt.Sprintf("truncated to %d bytes", n)] = data[:n]
	}
	for name, d := range bad {
		gotA, gotB := nums(nil), lists(nil)
		if err := f.Decode(d, head("key"), gotA, gotB); err == nil {
			t.Errorf("%s: Decode = nil, want an error", name)
		}
		if gotA.Rows != nil || gotB.Rows != nil {
			t.Errorf("%s: a refused file kept rows", name)
		}
	}
	if err := f.Decode(data, head("other"), nums(nil), lists(nil)); !errors.Is(err, ErrForeign) {
		t.Errorf("another header: %v, want ErrForeign", err)
	}
	// Keys out of order: "/b" written before "/a".
	var e Encoder
	e.B = append(e.B, f.Magic...)
	e.Uvarint(f.Version)
	e.String("key")
	e.Uvarint(2)
	e.Path("", "/b")
	e.Varint(1)
	e.Path("/b", "/a")
	e.Varint(1)
	e.Uvarint(0)
	if err := f.Decode(e.B, head("key"), nums(nil), lists(nil)); err == nil {
		t.Error("keys out of order were read")
	}
}
