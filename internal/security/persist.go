package security

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/filestamp"
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

// memoryFormat is the file form of a scanner's memory (see binenc): its
// header is the build key, and it holds two tables, the findings of each
// file by its real path (stamp, mode, class, then per finding its code,
// line, column and message, then whether it was hashed, its digest and
// the bytes the digest stands for) and the folder listings
// (manifest.Listings.Table).
var memoryFormat = binenc.Format{Name: "scan cache", Magic: "ccski-scan\x00", Version: 3}

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
// written by this executable; anything else is an error and adds nothing.
func (s *Scanner) LoadFile(path string) error {
	return s.loadFile(path, buildKey())
}

// SaveFile writes the settled part of the scanner's memory to path,
// atomically; a failure only means the next run reads the files again.
func (s *Scanner) SaveFile(path string) error {
	return s.saveFile(path, buildKey(), time.Now())
}

// errNoMemory is the error of LoadFile when there is nothing to load.
var errNoMemory = errors.New("scan cache: no file, no build key, or the memory is off")

// loadFile is LoadFile for the build key.
func (s *Scanner) loadFile(path, key string) error {
	if path == "" || key == "" || s.NoCache {
		return errNoMemory
	}
	files := findingsTable(nil)
	err := memoryFormat.Load(path, func(d *binenc.Decoder) {
		if d.Slice() != key {
			d.Fail(binenc.ErrForeign)
		}
	}, files, s.listings.Table())
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.cache = files.Into(s.cache)
	s.mu.Unlock()
	return nil
}

// saveFile is SaveFile for the build key: it writes the entries whose
// stamps had settled at now.
func (s *Scanner) saveFile(path, key string, now time.Time) error {
	if path == "" || key == "" || s.NoCache {
		return nil
	}
	s.mu.Lock()
	rows := make(map[string]cached, len(s.cache))
	for k, c := range s.cache {
		if c.stamp.Settled(now) {
			rows[k] = c
		}
	}
	s.mu.Unlock()
	return memoryFormat.Save(path, func(e *binenc.Encoder) { e.String(key) }, findingsTable(rows), s.listings.Table())
}

// findingsTable is the findings table of the file form, of the rows
// given.
func findingsTable(rows map[string]cached) *binenc.Rows[cached] {
	return &binenc.Rows[cached]{
		Rows: rows,
		Put: func(e *binenc.Encoder, c cached) {
			c.stamp.Encode(e)
			e.Uvarint(uint64(c.mode))
			e.Uvarint(uint64(c.class))
			e.Uvarint(uint64(len(c.findings)))
			for _, f := range c.findings {
				e.String(f.code)
				e.Uvarint(uint64(f.line))
				e.Uvarint(uint64(f.col))
				e.String(f.msg)
			}
			hashed := uint64(0)
			if c.hashed {
				hashed = 1
			}
			e.Uvarint(hashed)
			e.String(c.digest)
			e.Varint(c.size)
		},
		Get: func(d *binenc.Decoder, k string) cached {
			if k == "" {
				d.Fail(fmt.Errorf("an empty path: %w", binenc.ErrCorrupt))
			}
			c := cached{stamp: filestamp.Decode(d), mode: fs.FileMode(d.Uvarint()), class: class(d.Uvarint())}
			c.findings = make([]finding, d.Count())
			for i := range c.findings {
				c.findings[i] = finding{code: d.Slice(), line: int(d.Uvarint()), col: int(d.Uvarint()), msg: d.Slice()}
			}
			c.hashed = d.Uvarint() == 1
			c.digest, c.size = d.Slice(), d.Varint()
			return c
		},
	}
}
