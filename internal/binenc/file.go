package binenc

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/ccski/ccski/internal/safefile"
)

// MaxFile is the largest cache file Load reads and Save writes, unless
// the Format says otherwise.
const MaxFile = 64 << 20

// ErrTooLarge is the error for a file over its Format's limit: Save
// writes none, Load reads none.
var ErrTooLarge = errors.New("over the size limit")

// Format is the form of one of ccski's cache files. Every cache file is
//
//	magic    Magic
//	version  uvarint (Version)
//	header   what the cache writes with its head function (nothing when nil):
//	         what its records were computed against
//	tables   one after another, each a uvarint count, then per record, in
//	         key order: the key, prefix coded (Encoder.Path), then the record
//
// A cache declares its Format, its header and the encoding of its records
// (Rows); Save and Load do the rest. A file that does not decode whole is
// refused whole: nothing of it is kept.
type Format struct {
	// Name says what the file is in errors, e.g. "digest cache".
	Name string
	// Magic starts the file.
	Magic string
	// Version is the version of the file's form. A cache whose meaning
	// changes (what its records are a function of) changes it too, so
	// that no record of the old meaning is read.
	Version uint64
	// MaxFile is the largest file Save writes and Load reads (0:
	// binenc.MaxFile).
	MaxFile int
}

// limit is the largest file of the form.
func (f Format) limit() int {
	if f.MaxFile > 0 {
		return f.MaxFile
	}
	return MaxFile
}

// Table is one table of a cache file. Rows is the one to use; a cache
// whose records are kept elsewhere adapts it.
type Table interface {
	// EncodeTable appends the table.
	EncodeTable(e *Encoder)
	// DecodeTable reads the table and returns what keeps it, which
	// Decode calls once the whole file decoded.
	DecodeTable(d *Decoder) (keep func())
}

// Rows is a table of records of type R by key.
type Rows[R any] struct {
	// Rows are the records: what EncodeTable writes, and what a
	// successful Decode read.
	Rows map[string]R
	// Put appends one record.
	Put func(e *Encoder, r R)
	// Get reads one record, whose key is key; it fails the decoder
	// (Decoder.Fail) on a record that cannot be right.
	Get func(d *Decoder, key string) R
}

// EncodeTable appends the rows in key order.
func (t *Rows[R]) EncodeTable(e *Encoder) {
	keys := make([]string, 0, len(t.Rows))
	for k := range t.Rows {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.Uvarint(uint64(len(keys)))
	prev := ""
	for _, k := range keys {
		e.Path(prev, k)
		prev = k
		t.Put(e, t.Rows[k])
	}
}

// DecodeTable reads rows; their keys must be in strictly increasing
// order, as EncodeTable writes them.
func (t *Rows[R]) DecodeTable(d *Decoder) func() {
	n := d.Count()
	rows := make(map[string]R, n)
	prev := ""
	for i := range n {
		k := d.Path(prev)
		if d.Failed() {
			break
		}
		if i > 0 && k <= prev {
			d.Fail(fmt.Errorf("key %q after %q: %w", k, prev, ErrCorrupt))
			break
		}
		prev = k
		r := t.Get(d, k)
		if d.Failed() {
			break
		}
		rows[k] = r
	}
	return func() { t.Rows = rows }
}

// Into adds the rows a Decode read to dst, keeping the ones dst has (what
// a process found itself is newer than what it loads), and returns the
// map to keep: the rows themselves when dst is empty.
func (t *Rows[R]) Into(dst map[string]R) map[string]R {
	if len(dst) == 0 {
		return t.Rows
	}
	for k, r := range t.Rows {
		if _, ok := dst[k]; !ok {
			dst[k] = r
		}
	}
	return dst
}

// Encode returns the file form of tables, after the header head writes.
func (f Format) Encode(head func(*Encoder), tables ...Table) []byte {
	e := Encoder{B: append(make([]byte, 0, 4096), f.Magic...)}
	e.Uvarint(f.Version)
	if head != nil {
		head(&e)
	}
	for _, t := range tables {
		t.EncodeTable(&e)
	}
	return e.B
}

// ErrForeign is the error for data that is not a cache file of the form
// (another magic or version), and which a header function gives for a
// file written for something else.
var ErrForeign = errors.New("not a cache file of this form and version")

// Decode reads data, which Encode wrote: head reads the header (and may
// fail the decoder, with ErrForeign for one it does not take), then each
// table in turn. Only when everything decoded, with no byte left over,
// are the tables kept.
func (f Format) Decode(data []byte, head func(*Decoder), tables ...Table) error {
	rest, ok := bytes.CutPrefix(data, []byte(f.Magic))
	if !ok {
		return fmt.Errorf("%s: %w", f.Name, ErrForeign)
	}
	d := NewDecoder(rest)
	if v := d.Uvarint(); !d.Failed() && v != f.Version {
		return fmt.Errorf("%s: version %d, not %d: %w", f.Name, v, f.Version, ErrForeign)
	}
	if head != nil && !d.Failed() {
		head(d)
	}
	keep := make([]func(), 0, len(tables))
	for _, t := range tables {
		if d.Failed() {
			break
		}
		keep = append(keep, t.DecodeTable(d))
	}
	if err := d.Err(); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	for _, k := range keep {
		k()
	}
	return nil
}

// Save writes the file form of tables to path, atomically and readable
// by the user alone. A form over the Format's limit is not written (the
// file at path is left as it was): the error wraps ErrTooLarge.
func (f Format) Save(path string, head func(*Encoder), tables ...Table) error {
	data := f.Encode(head, tables...)
	if len(data) > f.limit() {
		return fmt.Errorf("%s: %s is %d bytes, %w of %d bytes: not saved", f.Name, path, len(data), ErrTooLarge, f.limit())
	}
	if err := safefile.WriteAtomic(path, data, 0o600); err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return nil
}

// Load reads the file at path (at most the Format's limit, MaxFile unless
// it says otherwise) into tables, as Decode does.
func (f Format) Load(path string, head func(*Decoder), tables ...Table) error {
	data, err := safefile.Read(path, int64(f.limit()))
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	return f.Decode(data, head, tables...)
}

// Strings appends a count and the strings of list.
func (e *Encoder) Strings(list []string) {
	e.Uvarint(uint64(len(list)))
	for _, s := range list {
		e.String(s)
	}
}

// Strings reads what Encoder.Strings wrote (nil for none), as slices of
// the data (see Slice).
func (d *Decoder) Strings() []string {
	n := d.Count()
	if n == 0 {
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, d.Slice())
	}
	return out
}
