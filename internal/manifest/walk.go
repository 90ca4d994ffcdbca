package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
)

// Kind is what an Entry is.
type Kind uint8

// The kinds of entries.
const (
	// KindFile is a regular file, or a symlink to one inside the skill.
	KindFile Kind = iota + 1
	// KindLink is a recorded symlink (see the package documentation).
	KindLink
	// KindFolder is a folder: only Children lists folders, a walk goes
	// into them.
	KindFolder
)

// Entry is one entry of a skill folder, as the walk found it.
type Entry struct {
	// Path is '/'-separated and relative to the skill folder.
	Path string
	Kind Kind
	// Real is where a file's bytes are read: the path walked (through
	// the skill folder as given), or a symlink's target resolved.
	Real string
	// Info is the stat of a file (of its target, for a symlink) or of a
	// folder; nil for a link.
	Info fs.FileInfo
	// Link is what a recorded symlink holds (os.Readlink).
	Link string
	// Outside is set for a recorded symlink that leads out of the skill
	// (of Walk.Within, when set) or into a .git: resolved, or for a
	// broken link as its target reads.
	Outside bool
}

// Listing is what a walk found in a skill folder.
type Listing struct {
	// Dir is the skill folder, as given.
	Dir string
	// Entries are the files and recorded links, sorted by Path.
	Entries []Entry
	// Bytes is the total size of the files.
	Bytes int64
	// Limit is the limit the skill passes, nil when none. TooManyFiles
	// stopped the walk: Entries are those found before it. Of the size
	// limits, the first one passed is kept and the walk went on.
	Limit *LimitError
	// Omitted are the folders the walk did not enter, or not whole:
	// deeper than MaxDepth (ErrTooDeep), unreadable, or with an entry
	// that could not be stated.
	Omitted []Omission
}

// Omission is a folder a walk did not enter, or not whole, and why.
type Omission struct {
	// Path is the folder's, '/'-separated and relative to the skill
	// folder ("" for the skill folder itself).
	Path string
	Err  error
}

// ErrTooDeep is the reason of an Omission for a folder more than
// MaxDepth folders below the skill folder.
var ErrTooDeep = fmt.Errorf("more than %d folders deep", MaxDepth)

// Walk is how a skill folder is walked (see the package documentation).
// The zero Walk walks it as a manifest lists it; the security scan adds
// First and Listings, install Within and Folders.
type Walk struct {
	// First names a file of the skill folder to list before any other,
	// so that no limit of the walk leaves it out: the skill file.
	First string
	// Within is a folder holding the skill folder: a symlink that leads
	// inside it (and not into a .git) is followed, to a file, or with
	// Folders to a folder. "" is the skill folder itself. Install copies
	// a skill out of a repository with Within its root, so that a file
	// the skill shares with others through a link is copied as the file.
	Within string
	// Folders follows a symlink to a folder inside Within as the folder
	// it leads to (a loop is a recorded link); otherwise such a link is
	// recorded.
	Folders bool
	// Listings keeps folder listings between walks; nil reads every
	// folder.
	Listings *Listings
}

// List walks the skill folder dir. A folder that is missing, not a folder
// or unreadable is an error naming it; a subfolder that cannot be read,
// or an entry that cannot be stated, is an Omission of its folder.
func (w Walk) List(dir string) (*Listing, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, notFolder(dir, st)
	}
	wk := &walker{Walk: w, dir: dir}
	err = wk.run(st)
	if errors.Is(err, errStale) {
		// A kept listing met a folder that changed since its stat was
		// taken: walk again, reading every folder.
		wk = &walker{Walk: w, dir: dir, fresh: true}
		err = wk.run(st)
	}
	if err != nil {
		if st, serr := os.Stat(dir); serr == nil && !st.IsDir() {
			return nil, notFolder(dir, st)
		}
		return nil, err
	}
	slices.SortFunc(wk.out.Entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return &wk.out, nil
}

// Children lists the entries directly in the folder rel ('/'-separated,
// "" for the skill folder itself) of the skill folder dir by the rules of
// a walk, without its limits, for a server that pages a large folder:
// files, folders (KindFolder) and recorded links, in name order, those
// named after after, at most n of them (all when n <= 0). more says
// whether names are left after the last one.
func Children(dir, rel, after string, n int) (entries []Entry, more bool, err error) {
	path, prefix := dir, ""
	if rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel))); rel != "." {
		path, prefix = filepath.Join(dir, filepath.FromSlash(rel)), rel+"/"
	}
	// The folder is opened through an os.Root of the skill folder, which
	// refuses a path that leads out of it, and the names are read from
	// that handle; the folder is checked again at the end, so that a link
	// swapped in for it meanwhile makes an error, not a listing of
	// somewhere else.
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, false, err
	} else if !st.IsDir() {
		return nil, false, notFolder(path, st)
	}
	names, st, err := readOpened(f, false)
	if err != nil {
		return nil, false, err
	}
	slices.SortFunc(names, func(a, b listed) int { return strings.Compare(a.name, b.name) })
	i, _ := slices.BinarySearchFunc(names, after, func(l listed, s string) int {
		if l.name <= s {
			return -1
		}
		return 1
	})
	wk := &walker{dir: dir, shallow: true}
	for ; i < len(names) && (n <= 0 || len(wk.out.Entries) < n); i++ {
		if err := wk.visit(path, prefix, names[i], 0, "", false); err != nil {
			return nil, false, err
		}
	}
	if now, err := os.Stat(path); err != nil || !os.SameFile(st, now) {
		return nil, false, fmt.Errorf("%s changed while it was listed: read it again", path)
	}
	return wk.out.Entries, i < len(names), nil
}

// notFolder is the error for a skill folder that is something else.
func notFolder(dir string, st fs.FileInfo) error {
	return fmt.Errorf("skill folder %s is a %s, not a folder", dir, safefile.Kind(st.Mode()))
}

// walker is one walk of one skill folder.
type walker struct {
	Walk
	dir     string // as given
	fresh   bool   // read every folder, using no kept listing
	shallow bool   // Children: list one folder, folders as entries, no limits
	bound   string // Within or dir, resolved, once a symlink needs it
	// active holds, with Folders, the real folders on the walk's path,
	// against loops.
	active map[string]bool
	// firstDone is set once First is listed.
	firstDone bool
	folders   int
	out       Listing
}

// errStale is the signal that a kept listing disagrees with what is on
// disk now (the folder changed while the walk ran): List walks again
// reading every folder.
var errStale = errors.New("a folder changed during the walk")

// errStop ends a walk at TooManyFiles.
var errStop = errors.New("the walk passed a limit")

// run walks the skill folder, whose stat is st.
func (w *walker) run(st fs.FileInfo) error {
	w.out = Listing{Dir: w.dir}
	real := ""
	if w.Folders {
		var err error
		if real, err = filepath.EvalSymlinks(w.dir); err != nil {
			return fmt.Errorf("skill folder %s: %w", w.dir, err)
		}
		w.active = map[string]bool{real: true}
	}
	err := w.first()
	if err == nil {
		err = w.walk(w.dir, "", idOf(st), 0, real)
	}
	if err == errStop {
		return nil
	}
	return err
}

// first lists First, when the skill folder has such a file or symlink.
func (w *walker) first() error {
	if w.First == "" {
		return nil
	}
	full := filepath.Join(w.dir, w.First)
	st, err := os.Lstat(full)
	switch {
	case err != nil:
		return nil // none: nothing to list first
	case st.Mode()&fs.ModeSymlink != 0:
		w.firstDone = true
		return w.link(full, w.First, 0, false)
	case st.Mode().IsRegular():
		w.firstDone = true
		return w.add(Entry{Path: w.First, Kind: KindFile, Real: full, Info: st})
	}
	return nil // a folder or a special file: the walk finds it
}

// walk lists the folder path (below the skill folder, through the folder
// as given, or a folder a symlink led to), whose stat is id, whose path
// relative to the skill folder is prefix ("" or ending in '/'), which is
// depth folders below the skill folder, and whose real path is real
// (with Folders only), and the folders below it.
func (w *walker) walk(path, prefix string, id fileID, depth int, real string) error {
	entries, cached, err := w.Listings.list(path, id, w.fresh, true)
	switch {
	case err != nil && prefix == "":
		return fmt.Errorf("skill folder %s: %w", w.dir, err)
	case err != nil:
		w.omit(prefix, err)
		return nil
	}
	for _, e := range entries {
		if prefix == "" && w.firstDone && e.name == w.First {
			continue // listed first
		}
		if err := w.visit(path, prefix, e, depth, real, cached); err != nil {
			return err
		}
	}
	return nil
}

// visit looks at the entry e of the folder path (see walk); cached says
// whether e comes from a kept listing.
func (w *walker) visit(path, prefix string, e listed, depth int, real string, cached bool) error {
	full := path + string(filepath.Separator) + e.name
	rel := prefix + e.name
	if e.kind == kindLink {
		return w.link(full, rel, depth, cached)
	}
	st, err := os.Lstat(full)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		w.omit(prefix, err)
		return nil
	case err != nil || e.kind == kindDir && !st.IsDir() || e.kind == kindFile && !st.Mode().IsRegular():
		// Deleted or replaced since the listing was read.
		if cached {
			return errStale
		}
		return nil
	case e.kind == kindDir:
		if real != "" {
			real += string(filepath.Separator) + e.name
		}
		return w.folder(full, rel, st, depth, real)
	}
	return w.add(Entry{Path: rel, Kind: KindFile, Real: full, Info: st})
}

// folder enters the folder full (rel in the skill), whose stat is st and
// real path real (with Folders), in a folder depth folders deep.
func (w *walker) folder(full, rel string, st fs.FileInfo, depth int, real string) error {
	switch {
	case w.shallow:
		return w.add(Entry{Path: rel, Kind: KindFolder, Info: st})
	case depth >= MaxDepth:
		w.out.Omitted = append(w.out.Omitted, Omission{Path: rel, Err: ErrTooDeep})
		return nil
	}
	if w.folders++; w.folders > MaxFiles {
		w.out.Limit = &LimitError{Dir: w.dir, Limit: TooManyFiles, Count: MaxFiles + 1}
		return errStop
	}
	if w.active != nil {
		w.active[real] = true
		defer delete(w.active, real)
	}
	return w.walk(full, rel+"/", idOf(st), depth+1, real)
}

// link looks at the symlink full (rel in the skill, in a folder depth
// deep): one to a regular file inside the bound is listed as that file,
// with Folders one to a folder inside is walked, any other is recorded.
func (w *walker) link(full, rel string, depth int, cached bool) error {
	if st, err := os.Lstat(full); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		switch {
		case cached:
			return errStale // replaced since the listing was read
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			w.omit(parentOf(rel), err)
		}
		return nil
	}
	bound, err := w.boundDir()
	if err != nil {
		return err
	}
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return w.record(full, rel, w.leadsOut(bound, full)) // broken, or a loop
	}
	if !safefile.Within(bound, target) || Skipped(target[len(bound):]) {
		return w.record(full, rel, true)
	}
	st, err := os.Lstat(target) // target is real: no symlink left to follow
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return w.record(full, rel, false) // gone since
	case err != nil:
		w.omit(parentOf(rel), err)
		return nil
	case st.Mode().IsRegular():
		return w.add(Entry{Path: rel, Kind: KindFile, Real: target, Info: st})
	case st.IsDir() && w.Folders && !w.shallow && !w.active[target]:
		return w.folder(target, rel, st, depth, target)
	}
	return w.record(full, rel, false) // a folder (not followed), a loop, or a special file
}

// boundDir returns the real folder a symlink may lead into.
func (w *walker) boundDir() (string, error) {
	if w.bound == "" {
		b := w.Within
		if b == "" {
			b = w.dir
		}
		real, err := filepath.EvalSymlinks(b)
		if err != nil {
			return "", fmt.Errorf("skill folder %s: %w", w.dir, err)
		}
		w.bound = real
	}
	return w.bound, nil
}

// leadsOut reports whether the broken symlink full names a place outside
// bound, or in a .git, reading its target as a path from the link's real
// folder.
func (w *walker) leadsOut(bound, full string) bool {
	target, err := os.Readlink(full)
	if err != nil {
		return false
	}
	if !filepath.IsAbs(target) {
		parent, err := filepath.EvalSymlinks(filepath.Dir(full))
		if err != nil {
			return false
		}
		target = filepath.Join(parent, target)
	}
	target = filepath.Clean(target)
	return !safefile.Within(bound, target) || Skipped(target[len(bound):])
}

// record lists the symlink full (rel in the skill) as a recorded link.
func (w *walker) record(full, rel string, outside bool) error {
	target, err := os.Readlink(full)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil // gone since
	case err != nil:
		w.omit(parentOf(rel), err)
		return nil
	case target == "":
		target = "." // never empty: an empty Link is a file
	}
	return w.add(Entry{Path: rel, Kind: KindLink, Link: target, Outside: outside})
}

// omit notes that the folder prefix ("" for the skill folder, or ending
// in '/') could not be read whole, unless it was just noted.
func (w *walker) omit(prefix string, err error) {
	p := strings.TrimSuffix(prefix, "/")
	if n := len(w.out.Omitted); n > 0 && w.out.Omitted[n-1].Path == p {
		return
	}
	w.out.Omitted = append(w.out.Omitted, Omission{Path: p, Err: err})
}

// parentOf returns the folder of rel, as a prefix: "" or ending in '/'.
func parentOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i+1]
	}
	return ""
}

// add lists one entry and checks the limits: MaxFiles entries stops the
// walk; the first size limit passed is kept and the walk goes on.
func (w *walker) add(e Entry) error {
	if w.shallow {
		w.out.Entries = append(w.out.Entries, e)
		return nil
	}
	if len(w.out.Entries) == MaxFiles {
		w.out.Limit = &LimitError{Dir: w.dir, Limit: TooManyFiles, Count: MaxFiles + 1}
		return errStop
	}
	if e.Kind == KindFile {
		size := e.Info.Size()
		if size > MaxFileBytes && w.out.Limit == nil {
			w.out.Limit = &LimitError{Dir: w.dir, Limit: FileTooLarge, Path: e.Path, Count: size}
		}
		if w.out.Bytes += size; w.out.Bytes > MaxBytes && w.out.Limit == nil {
			w.out.Limit = &LimitError{Dir: w.dir, Limit: TooManyBytes, Count: w.out.Bytes}
		}
	}
	w.out.Entries = append(w.out.Entries, e)
	return nil
}

// Lookup finds the path rel ('/'-separated, "" for the folder itself) of
// the skill folder dir by the rules of a walk, so that what a server
// reads is what a manifest lists: it returns the entry a walk gives for
// the first segment of rel that is not a folder, or for rel itself (a
// folder, KindFolder, as Children lists one). Each folder on the way must
// be a folder, not a symlink to one, which a walk records and never
// enters: an entry whose Path is not rel names the file or recorded link
// the path runs through, which serves nothing below it. A segment Skip
// leaves out or a missing one is an error wrapping fs.ErrNotExist; a
// FIFO, socket or device (never opened) is an error saying what it is.
func Lookup(dir, rel string) (Entry, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return Entry{}, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return Entry{}, notFolder(dir, st)
	}
	if rel == "" {
		return Entry{Kind: KindFolder, Real: dir, Info: st}, nil
	}
	w := &walker{dir: dir, shallow: true}
	path, prefix := dir, ""
	segs := strings.Split(rel, "/")
	for i, seg := range segs {
		if seg == "" || seg == "." || seg == ".." || Skip(seg) {
			return Entry{}, fmt.Errorf("%s is not part of the skill: %w", prefix+seg, fs.ErrNotExist)
		}
		full := path + string(filepath.Separator) + seg
		lst, err := os.Lstat(full)
		if err != nil {
			return Entry{}, err
		}
		var k kind
		switch t := lst.Mode(); {
		case t.IsDir():
			k = kindDir
		case t&fs.ModeSymlink != 0:
			k = kindLink
		case t.IsRegular():
			k = kindFile
		default:
			return Entry{}, fmt.Errorf("the path is a %s, not a regular file", safefile.Kind(t))
		}
		w.out.Entries = w.out.Entries[:0]
		if err := w.visit(path, prefix, listed{name: seg, kind: k}, 0, "", false); err != nil {
			return Entry{}, err
		}
		if len(w.out.Entries) == 0 { // gone since, or unreadable
			if n := len(w.out.Omitted); n > 0 {
				return Entry{}, w.out.Omitted[n-1].Err
			}
			return Entry{}, fmt.Errorf("%s: %w", prefix+seg, fs.ErrNotExist)
		}
		e := w.out.Entries[0]
		if e.Kind != KindFolder || i == len(segs)-1 {
			return e, nil
		}
		path, prefix = full, prefix+seg+"/"
	}
	panic("unreachable") // the loop returns at the last segment
}
