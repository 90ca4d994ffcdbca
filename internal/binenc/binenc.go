// Package binenc writes and reads the small binary cache files of ccski
// (the digest cache of package manifest, the integrity results of package
// trust, the security scanner's memory): one file form (Format), with a
// header and tables of records by key (Rows), built of varints,
// length-prefixed strings and prefix-coded sorted paths. Each cache only
// declares its form and how one record is written and read. These caches
// are read at every run, so they must decode in a few milliseconds where
// JSON takes tens.
package binenc

import (
	"encoding/binary"
	"errors"
)

// ErrCorrupt is the error for data that is truncated or malformed.
var ErrCorrupt = errors.New("the file is truncated or malformed")

// Encoder appends to B.
type Encoder struct{ B []byte }

// Uvarint appends v.
func (e *Encoder) Uvarint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }

// Varint appends v.
func (e *Encoder) Varint(v int64) { e.B = binary.AppendVarint(e.B, v) }

// Byte appends v.
func (e *Encoder) Byte(v byte) { e.B = append(e.B, v) }

// Bytes appends v as it is (its length is the reader's to know).
func (e *Encoder) Bytes(v []byte) { e.B = append(e.B, v...) }

// String appends the length of s and s.
func (e *Encoder) String(s string) {
	e.Uvarint(uint64(len(s)))
	e.B = append(e.B, s...)
}

// Path appends p as the number of bytes it shares with prev (the path
// written before it) and the rest: sorted paths mostly share a long
// prefix.
func (e *Encoder) Path(prev, p string) {
	n := 0
	for n < len(prev) && n < len(p) && prev[n] == p[n] {
		n++
	}
	e.Uvarint(uint64(n))
	e.String(p[n:])
}

// Decoder reads what an Encoder wrote. The first error sticks: every later
// read returns a zero value, and Err returns it.
type Decoder struct {
	b   []byte
	all string // the whole data, for Slice
	off int    // of b within all
	err error
}

// NewDecoder reads data. It copies data once into a string, which the
// strings Slice returns share.
func NewDecoder(data []byte) *Decoder {
	return &Decoder{b: data, all: string(data)}
}

// Err returns the first error, or ErrCorrupt when data is left over after
// the last read (call it once everything was read).
func (d *Decoder) Err() error {
	if d.err == nil && len(d.b) != 0 {
		return ErrCorrupt
	}
	return d.err
}

// Fail records err as the decoder's error, unless it has one.
func (d *Decoder) Fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// Failed reports whether a read failed.
func (d *Decoder) Failed() bool { return d.err != nil }

func (d *Decoder) advance(n int) {
	d.b = d.b[n:]
	d.off += n
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 { return readVarint(d, binary.Uvarint) }

// Varint reads a signed varint.
func (d *Decoder) Varint() int64 { return readVarint(d, binary.Varint) }

// readVarint reads one varint with read, binary.Uvarint or binary.Varint.
func readVarint[T uint64 | int64](d *Decoder, read func([]byte) (T, int)) T {
	if d.err != nil {
		return 0
	}
	v, n := read(d.b)
	if n <= 0 {
		d.Fail(ErrCorrupt)
		return 0
	}
	d.advance(n)
	return v
}

// Count reads a number of items that each take at least one byte, so no
// more than the bytes left: a corrupt count cannot make the caller
// allocate more than the data's size.
func (d *Decoder) Count() int {
	v := d.Uvarint()
	if v > uint64(len(d.b)) {
		d.Fail(ErrCorrupt)
		return 0
	}
	return int(v)
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.Fail(ErrCorrupt)
		return 0
	}
	v := d.b[0]
	d.advance(1)
	return v
}

// Bytes reads n bytes; the slice shares the data.
func (d *Decoder) Bytes(n int) []byte {
	if d.err != nil || n < 0 || len(d.b) < n {
		d.Fail(ErrCorrupt)
		return nil
	}
	v := d.b[:n:n]
	d.advance(n)
	return v
}

// Slice reads a string String wrote, as a slice of the data's string
// (no allocation).
func (d *Decoder) Slice() string {
	n := d.Count()
	start := d.off
	if d.Bytes(n) == nil {
		return ""
	}
	return d.all[start : start+n]
}

// Path reads a path Path wrote after prev.
func (d *Decoder) Path(prev string) string {
	shared := d.Uvarint()
	suffix := d.Bytes(d.Count())
	if d.err != nil {
		return ""
	}
	if shared > uint64(len(prev)) {
		d.Fail(ErrCorrupt)
		return ""
	}
	return prev[:shared] + string(suffix)
}
