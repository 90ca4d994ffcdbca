// Package trust records the files of the project and plugin skills ccski
// sees, the first time it sees each (trust on first use), and tells when
// they change: a skill from a cloned repository or a plugin update can
// change under the user, and an agent would follow the new instructions
// without anyone reading them.
//
// The store is one JSON file in ccski's user config folder (trust.json),
// keyed by each skill's real folder path. An entry holds the skill's
// manifest (package manifest: every file's path, size and SHA-256 digest,
// and every symlink it records, such as one leading out of the skill),
// when it was first seen, and whether the user accepted it with ccski
// trust. Recording a first sight is not accepting: mcp.require_trusted
// serves a project skill only once its current files match an accepted
// entry.
//
// Writers lock the store (where the system has file locks), read it again,
// change it and replace it atomically, so that two ccski processes that
// record at once both keep their entries. A store that cannot be parsed
// is an error that names it, and is never overwritten.
package trust

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// FileName is the store's name in ccski's user config folder.
const FileName = "trust.json"

// version is the store format this package writes and reads.
const version = 1

// maxStoreBytes is the largest store read: about 40,000 skills of a few
// files each.
const maxStoreBytes = 64 << 20

// Entry is what the store holds of one skill folder.
type Entry struct {
	// ID, Provider and Plugin say which skill the folder held when it was
	// recorded, for people reading the store; the folder is the key.
	ID       string `json:"id"`
	Provider string `json:"provider"`
	Plugin   string `json:"plugin,omitempty"`
	// FirstSeen is when ccski first recorded the folder.
	FirstSeen time.Time `json:"firstSeen"`
	// Accepted is true once the user accepted Files with ccski trust;
	// AcceptedAt says when.
	Accepted   bool       `json:"accepted"`
	AcceptedAt *time.Time `json:"acceptedAt,omitempty"`
	// Files are the skill's files and recorded links (its manifest),
	// sorted by Path.
	Files []manifest.File `json:"files"`
}

// Store is the content of a trust store. The zero Store is empty.
type Store struct {
	// Skills are the entries by the skill's real folder path.
	Skills map[string]Entry
}

// document is the store's JSON form. Go encodes map keys sorted, so the
// file is stable and diffs well.
type document struct {
	Version int              `json:"version"`
	Skills  map[string]Entry `json:"skills"`
}

// CorruptError is the error for a store that cannot be parsed.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("trust store %s cannot be read: %v; ccski leaves it as it is: fix it, or remove it to "+
		"record every project and plugin skill afresh (what you accepted with ccski trust is then forgotten)",
		e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Load reads the store at path. A missing store is an empty one.
func Load(path string) (*Store, error) {
	s, _, err := load(path)
	return s, err
}

// storeReads counts the reads of a store, for tests: a check whose
// results are all in Results reads none.
var storeReads atomic.Int64

// load reads the store and returns the bytes it was read from (nil when
// missing).
func load(path string) (*Store, []byte, error) {
	storeReads.Add(1)
	data, err := safefile.Read(path, maxStoreBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{Skills: map[string]Entry{}}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("trust store %s: %w", path, err)
	}
	doc, err := decodeStore(data)
	if err != nil {
		return nil, nil, &CorruptError{Path: path, Err: err}
	}
	if doc.Version != version {
		return nil, nil, &CorruptError{Path: path,
			Err: fmt.Errorf("format version %d, this ccski reads version %d", doc.Version, version)}
	}
	if doc.Skills == nil {
		doc.Skills = map[string]Entry{}
	}
	for dir, e := range doc.Skills {
		if !filepath.IsAbs(dir) {
			return nil, nil, &CorruptError{Path: path, Err: fmt.Errorf("skill folder %q is not an absolute path", dir)}
		}
		if !slices.IsSortedFunc(e.Files, func(a, b manifest.File) int { return strings.Compare(a.Path, b.Path) }) {
			return nil, nil, &CorruptError{Path: path, Err: fmt.Errorf("the files of %s are not sorted by path", dir)}
		}
	}
	return &Store{Skills: doc.Skills}, data, nil
}

// decodeStore decodes a store's document as json.Decoder's Decode with
// DisallowUnknownFields does, but one skill's entry at a time: Decode
// buffers the whole value it decodes, and for the document that was a
// copy of the file grown by doubling (96 MB for the 37 MB store of
// 100,000 skills) on top of the bytes read and what they decode to.
// Field names match as encoding/json matches them, without regard to
// case; what follows the document is not read, as Decode does not.
func decodeStore(data []byte) (document, error) {
	var doc document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if tok, err := dec.Token(); err != nil || tok == nil {
		return doc, err // io.EOF for an empty file, as Decode; null decodes to nothing
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return doc, fmt.Errorf("json: cannot unmarshal %v into the store, an object", tok)
	}
	for dec.More() {
		tok, err := token(dec)
		if err != nil {
			return doc, err
		}
		key, _ := tok.(string) // an object's keys are strings
		switch {
		case strings.EqualFold(key, "version"):
			if err := dec.Decode(&doc.Version); err != nil {
				return doc, err
			}
		case strings.EqualFold(key, "skills"):
			if err := decodeSkills(dec, &doc); err != nil {
				return doc, err
			}
		default:
			return doc, fmt.Errorf("json: unknown field %q", key)
		}
	}
	return doc, delim(dec, '}', "the store")
}

// decodeSkills decodes the store's skills object into doc.Skills, an entry
// at a time, as Decode does: a later key replaces an earlier one, null
// leaves no map.
func decodeSkills(dec *json.Decoder, doc *document) error {
	tok, err := token(dec)
	if err != nil {
		return err
	}
	if tok == nil {
		doc.Skills = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("json: cannot unmarshal %v into skills, an object of skill folders", tok)
	}
	if doc.Skills == nil {
		doc.Skills = map[string]Entry{}
	}
	for dec.More() {
		tok, err := token(dec)
		if err != nil {
			return err
		}
		dir, _ := tok.(string)
		var e Entry
		if err := dec.Decode(&e); err != nil {
			return err
		}
		doc.Skills[dir] = e
	}
	return delim(dec, '}', "skills")
}

// delim reads the next token of dec and wants it to be d.
func delim(dec *json.Decoder, d json.Delim, what string) error {
	tok, err := dec.Token()
	if err != nil {
		if d == '}' && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	if got, ok := tok.(json.Delim); !ok || got != d {
		return fmt.Errorf("json: %s: found %v where %v was expected", what, tok, d)
	}
	return nil
}

// token is dec.Token inside the document: its end is an unexpected one.
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// encode returns the store's JSON form.
func (s *Store) encode() ([]byte, error) {
	skills := s.Skills
	if skills == nil {
		skills = map[string]Entry{}
	}
	data, err := json.MarshalIndent(document{Version: version, Skills: skills}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Update reads the store at path, lets change edit it, and writes it back
// atomically when change returns true (a store that does not change is
// not written). Concurrent updates, in this process or others, are
// serialised and checked by safefile.Update: an update that would lose
// another's is done again from the new content. A store that cannot be
// parsed is an error, and is left as it is.
func Update(path string, change func(*Store) (bool, error)) error {
	err := safefile.Update(path, 0o600, func() ([]byte, []byte, error) {
		s, before, err := load(path)
		if err != nil {
			return nil, nil, err
		}
		changed, err := change(s)
		if err != nil || !changed {
			return before, nil, err
		}
		data, err := s.encode()
		if err != nil {
			return nil, nil, fmt.Errorf("trust store %s: %w", path, err)
		}
		return before, data, nil
	})
	return safefile.WrapUpdate("trust store "+path, err)
}
