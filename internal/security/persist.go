package security

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// A Scanner's memory can be kept between runs, so that a server started
// under mcp.scan: block reads only the files that changed since the last
// run rather than every file of every skill before it serves anything.
// The file is a cache: a missing, unreadable, corrupt or foreign one only
// costs reading the files again.
//
// An entry is used only when its stamp (size, modification and change
// times, inode, device) matches a new stat, as in memory, and only
// entries whose stamp had settled are saved (see filestamp.Stamp.Settled):
// a write or rename sets the change time to the current time, which no
// user-space call can set back, so a file changed since cannot match.
// Findings depend on the rules, so the file is tied to the executable
// that wrote it: another build (an update, a rebuilt binary) reads none
// of it.

// scanMagic starts a saved scanner memory; scanVersion is its format.
const (
	scanMagic   = "ccski-scan\x00"
	scanVersion = 1
)

// maxScanCache caps the size of a saved memory read back.
const maxScanCache = 64 << 20

// CachePath is the scanner memory file in the user's cache folder
// ($XDG_CACHE_HOME or ~/.cache on Linux); "" when there is none.
func CachePath() string { return userdirs.Cache("scan.bin") }

// buildKey identifies the running executable: its path and stamp.
var buildKey = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	var e binenc.Encoder
	e.String(exe)
	filestamp.Of(st).Encode(&e)
	return string(e.B)
})

// LoadFile fills the scanner's memory from the file at path, when it was
// written by this executable; anything else is ignored.
func (s *Scanner) LoadFile(path string) {
	key := buildKey()
	if path == "" || key == "" || s.NoCache {
		return
	}
	data, err := safefile.Read(path, maxScanCache)
	if err != nil {
		return
	}
	if m, err := decodeMemory(data, key); err == nil {
		s.mu.Lock()
		for k, c := range m {
			if _, ok := s.cache[k]; !ok {
				s.cache[k] = c
			}
		}
		s.mu.Unlock()
	}
}

// SaveFile writes the settled part of the scanner's memory to path,
// atomically; a failure only means the next run reads the files again.
func (s *Scanner) SaveFile(path string) error {
	key := buildKey()
	if path == "" || key == "" || s.NoCache {
		return nil
	}
	return safefile.WriteAtomic(path, s.encodeMemory(key, time.Now()), 0o600)
}

// encodeMemory encodes the entries whose stamps had settled at now, by
// path.
func (s *Scanner) encodeMemory(key string, now time.Time) []byte {
	s.mu.Lock()
	keys := make([]string, 0, len(s.cache))
	for k, c := range s.cache {
		if c.stamp.Settled(now) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	e := binenc.Encoder{B: append([]byte(scanMagic), make([]byte, 0, 64*len(keys))...)}
	e.Uvarint(scanVersion)
	e.String(key)
	e.Uvarint(uint64(len(keys)))
	prev := ""
	for _, k := range keys {
		c := s.cache[k]
		e.Path(prev, k)
		prev = k
		c.stamp.Encode(&e)
		e.Uvarint(uint64(c.mode))
		e.Uvarint(uint64(c.class))
		if k[0] == 0 { // a folder's key starts with NUL
			e.Uvarint(uint64(len(c.listing)))
			for _, d := range c.listing {
				e.String(d.name)
				e.Uvarint(uint64(d.typ))
			}
			continue
		}
		e.Uvarint(uint64(len(c.findings)))
		for _, f := range c.findings {
			e.String(f.code)
			e.Uvarint(uint64(f.line))
			e.Uvarint(uint64(f.col))
			e.String(f.msg)
		}
	}
	s.mu.Unlock()
	return e.B
}

// errForeign is the error for a memory another build (or format) wrote.
var errForeign = errors.New("written by another build of ccski")

// decodeMemory reads what encodeMemory wrote with the same key. A
// truncated or malformed file is refused whole.
func decodeMemory(data []byte, key string) (map[string]cached, error) {
	rest, ok := bytes.CutPrefix(data, []byte(scanMagic))
	if !ok {
		return nil, errForeign
	}
	d := binenc.NewDecoder(rest)
	if d.Uvarint() != scanVersion || d.Slice() != key {
		return nil, errForeign
	}
	n := d.Count()
	out := make(map[string]cached, n)
	prev := ""
	for range n {
		k := d.Path(prev)
		if d.Failed() || k == "" || k <= prev && prev != "" {
			return nil, fmt.Errorf("scan cache: %w", binenc.ErrCorrupt)
		}
		prev = k
		c := cached{stamp: filestamp.Decode(d), mode: fs.FileMode(d.Uvarint()), class: class(d.Uvarint())}
		if k[0] == 0 {
			c.listing = make([]dirEntry, d.Count())
			for i := range c.listing {
				c.listing[i] = dirEntry{name: d.Slice(), typ: fs.FileMode(d.Uvarint())}
			}
		} else {
			c.findings = make([]finding, d.Count())
			for i := range c.findings {
				c.findings[i] = finding{code: d.Slice(), line: int(d.Uvarint()), col: int(d.Uvarint()), msg: d.Slice()}
			}
		}
		out[k] = c
	}
	if err := d.Err(); err != nil { // also trailing bytes
		return nil, fmt.Errorf("scan cache: %w", err)
	}
	return out, nil
}
