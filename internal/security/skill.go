package security

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// The bounds of one skill's scan. The walk stops at the manifest limits
// (manifest.MaxFiles files, manifest.MaxBytes bytes, one file over
// manifest.MaxFileBytes, or as many folders as files) and at maxDepth
// folders deep; the reads stop at maxText bytes of a text file and at
// maxTotal for the skill. The skill file is read first, up to maxTotal.
// Whatever a bound leaves unread is an incomplete-scan finding.
const (
	maxText   = manifest.MaxFileBytes
	headSize  = 8 << 10  // what tells a binary file from text
	smallFile = 64 << 10 // read whole at once; a larger file head first
	maxDirs   = manifest.MaxFiles
	maxDepth  = 32
)

// entry is one regular file of the skill folder, or a symlink inside it
// to a regular file.
type entry struct {
	rel  string // '/'-separated, relative to the skill folder
	info fs.FileInfo
	// real is the path the file was found at (for a symlink, its
	// target's real path): what the Scanner's memory keys on.
	real string
	// direct is set for a skill file that is a symlink out of the
	// folder: it is read at real, as the agents read it, not through the
	// folder.
	direct bool
}

// link is a symlink of the skill folder that leads outside it.
type link struct {
	rel, target string
}

// walked is what the walk of a skill folder found.
type walked struct {
	dir       string // as given
	skillFile string // the skill file's name in dir
	files     []entry
	links     []link
	limit     *manifest.LimitError
	bytes     int64
	dirs      int
	err       error // the folder itself could not be read
	// incomplete says what the walk left out (a folder too deep or
	// unreadable), one line each, for incomplete-scan.
	incomplete []string

	real     string // dir with symlinks resolved, on first need
	realDone bool
	lister   lister
	now      time.Time
}

// lister lists folders, from its memory when a folder's modification
// time has not changed (see Scanner).
type lister interface {
	list(dir string, st fs.FileInfo, now time.Time) ([]dirEntry, error)
}

// dirEntry is a folder entry: its name and type bits.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// walkSkill lists the skill folder dir: its regular files, and symlinks
// to regular files inside it, never following a symlink to a folder or
// out of the folder, never opening a FIFO, socket or device, skipping
// .git (see manifest.Skip), and stopping at the first manifest limit. It
// reads no file: a folder is listed (or its listing remembered by l) and
// each entry is stat'ed.
func walkSkill(dir, skillFile string, l lister, now time.Time) *walked {
	w := &walked{dir: dir, skillFile: skillFile, lister: l, now: now}
	st, err := os.Stat(dir)
	if err != nil {
		w.err = err
		return w
	}
	if !st.IsDir() {
		w.err = &fs.PathError{Op: "scan", Path: dir, Err: syscall.ENOTDIR}
		return w
	}
	// The skill file first, so that no limit of the walk leaves it out.
	if fi, err := os.Lstat(filepath.Join(dir, skillFile)); err == nil {
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			w.symlink(filepath.Join(dir, skillFile), skillFile)
		case fi.Mode().IsRegular():
			w.add(skillFile, filepath.Join(dir, skillFile), fi)
		}
	}
	if err := w.walk(dir, "", st, 0); err != nil && err != errStop {
		w.err = err
	}
	// The skill file stays first: it is read before any budget is spent.
	slices.SortFunc(w.files, func(a, b entry) int {
		if (a.rel == skillFile) != (b.rel == skillFile) {
			if a.rel == skillFile {
				return -1
			}
			return 1
		}
		return strings.Compare(a.rel, b.rel)
	})
	return w
}

// gitMeta reports whether the folder dir is a Git repository's metadata
// (it holds a HEAD file), which the scan leaves out as the manifest does.
// Any other folder named like it is scanned: only the name was checked
// before, so a ".Git" folder hid whatever it held.
func gitMeta(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, "HEAD"))
	return err == nil && st.Mode().IsRegular()
}

// errStop ends the walk at a limit.
var errStop = errors.New("limit reached")

// realDir returns the skill folder with symlinks resolved, or "" when it
// cannot be resolved.
func (w *walked) realDir() string {
	if !w.realDone {
		w.realDone = true
		w.real, _ = filepath.EvalSymlinks(w.dir)
	}
	return w.real
}

// walk lists the folder full (st is its stat), whose path relative to the
// skill folder is prefix ("" or ending in '/').
func (w *walked) walk(full, prefix string, st fs.FileInfo, depth int) error {
	ents, err := w.lister.list(full, st, w.now)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := full + string(filepath.Separator) + e.name
		r := prefix + e.name
		if r == w.skillFile {
			continue // listed first, by walkSkill
		}
		switch {
		case e.typ.IsDir():
			if manifest.Skip(e.name) && gitMeta(p) {
				continue
			}
			if depth >= maxDepth {
				w.incomplete = append(w.incomplete, r+"/ is more than 32 folders deep: its files were not read")
				continue
			}
			if w.dirs++; w.dirs > maxDirs {
				w.limit = &manifest.LimitError{Dir: w.dir, Limit: manifest.TooManyFiles, Count: int64(len(w.files))}
				return errStop
			}
			sub, err := os.Lstat(p)
			if err != nil || !sub.IsDir() {
				continue // gone or replaced since the listing
			}
			if err := w.walk(p, r+"/", sub, depth+1); err == errStop {
				return err
			} else if err != nil {
				// An unreadable subfolder: the rest is still scanned.
				w.incomplete = append(w.incomplete, r+"/ could not be listed ("+err.Error()+"): its files were not read")
			}
		case e.typ&fs.ModeSymlink != 0:
			if err := w.symlink(p, r); err != nil {
				return err
			}
		case e.typ.IsRegular():
			fi, err := os.Lstat(p)
			if err != nil || !fi.Mode().IsRegular() {
				continue // gone or replaced since the listing
			}
			if err := w.add(r, p, fi); err != nil {
				return err
			}
		}
		// FIFOs, sockets and devices are skipped unopened.
	}
	return nil
}

// symlink handles the link at full (rel in the folder): one to a regular
// file inside the folder is listed, one that leads outside is remembered
// (a broken one too, when its target names a place outside), any other
// is skipped. The skill file is listed wherever it leads: discovery and
// the agents read it through the link (validate's symlinked-skill says
// so).
func (w *walked) symlink(full, rel string) error {
	if rel == w.skillFile {
		target, err := filepath.EvalSymlinks(full)
		if err != nil {
			return nil
		}
		st, err := os.Stat(target)
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		e := entry{rel: rel, info: st, real: target, direct: true}
		w.bytes += st.Size()
		w.files = append(w.files, e)
		return nil
	}
	real := w.realDir()
	if real == "" {
		return nil
	}
	// Resolve the link's folder through the real skill folder, so that a
	// link target that names the real folder counts as inside.
	inReal := filepath.Join(real, filepath.FromSlash(rel))
	target, err := filepath.EvalSymlinks(inReal)
	if err != nil {
		t, rerr := os.Readlink(inReal)
		if rerr == nil && !safefile.Within(real, resolveLexically(filepath.Dir(inReal), t)) {
			w.links = append(w.links, link{rel: rel, target: t})
		}
		return nil
	}
	if !safefile.Within(real, target) {
		t, _ := os.Readlink(inReal)
		w.links = append(w.links, link{rel: rel, target: t})
		return nil
	}
	st, err := os.Lstat(target)
	if err != nil || !st.Mode().IsRegular() {
		return nil // a folder (not followed) or a special file
	}
	return w.add(rel, target, st)
}

// readDir lists a folder, without blocking on a FIFO put in its place. A
// folder swapped for a symlink since its stat is followed, which lists
// names only: files are read through an os.Root of the skill folder,
// which refuses every path out of it.
func readDir(dir string) ([]dirEntry, error) {
	f, err := os.OpenFile(dir, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []dirEntry // ReadDir fails on anything but a folder
	for {
		ents, err := f.ReadDir(256)
		for _, e := range ents {
			out = append(out, dirEntry{name: e.Name(), typ: e.Type()})
		}
		if len(out) > 4*manifest.MaxFiles {
			return out, nil // far over every limit: the walk stops in it
		}
		if err == io.EOF || len(ents) == 0 {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// resolveLexically joins a link's target to its folder, without touching
// the file system.
func resolveLexically(dir, target string) string {
	if filepath.IsAbs(target) {
		return filepath.Clean(target)
	}
	return filepath.Join(dir, target)
}

// add lists one file, unless it passes a limit.
func (w *walked) add(rel, real string, st fs.FileInfo) error {
	if len(w.files) == manifest.MaxFiles {
		w.limit = &manifest.LimitError{Dir: w.dir, Limit: manifest.TooManyFiles, Count: manifest.MaxFiles + 1}
		return errStop
	}
	if st.Size() > manifest.MaxFileBytes && w.limit == nil {
		// Noted, not a stop: the other files are still scanned, and this
		// one only up to the read cap.
		w.limit = &manifest.LimitError{Dir: w.dir, Limit: manifest.FileTooLarge, Path: rel, Count: st.Size()}
	}
	if w.bytes += st.Size(); w.bytes > manifest.MaxBytes && (w.limit == nil || w.limit.Limit == manifest.FileTooLarge) {
		w.limit = &manifest.LimitError{Dir: w.dir, Limit: manifest.TooManyBytes, Count: w.bytes}
	}
	w.files = append(w.files, entry{rel: rel, info: st, real: real})
	return nil
}

// class says which rules read a file.
type class uint8

const (
	classText     class = 1 << iota // not binary: the text rules read it
	classSkill                      // the skill file (SKILL.md)
	classMarkdown                   // rendered Markdown: .md, .markdown, .mdx
	classDoc                        // instructions the agent reads: Markdown, .txt, .rst, .adoc
	classScript                     // a script or source file: by extension or #! line
	classLegal                      // LICENSE, NOTICE, COPYING ... (see legal): only the Unicode and binary rules read it
)

// extension classes, lower case.
var (
	markdownExt = set(".md", ".markdown", ".mdx")
	docExt      = set(".txt", ".rst", ".adoc", ".text")
	scriptExt   = set(".sh", ".bash", ".zsh", ".fish", ".ksh", ".ps1", ".psm1", ".bat", ".cmd", ".py", ".js",
		".mjs", ".cjs", ".ts", ".mts", ".cts", ".rb", ".pl", ".pm", ".php", ".lua", ".go", ".rs", ".java", ".kt",
		".swift", ".r", ".jl", ".applescript", ".scpt", ".vbs", ".nu", ".awk")
	scriptNames = set("makefile", "dockerfile", "justfile", "rakefile", "gemfile")
	// binaryExt files are read only as far as their magic number.
	binaryExt = set(".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tif", ".tiff", ".pdf", ".zip",
		".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar", ".woff", ".woff2", ".ttf", ".otf", ".eot",
		".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".mov", ".avi", ".webm", ".sqlite", ".db", ".docx",
		".xlsx", ".pptx", ".odt", ".psd", ".pyc", ".class", ".parquet")
	// legalNames are the base names (without a text extension) of
	// licence-like files, matched whole: a name that only starts like one
	// (license-check.sh, HISTORY.md, changes.sh) is read by every rule.
	legalNames = set("license", "licence", "copying", "copying.lesser", "notice", "authors", "contributors",
		"third_party_notices", "thirdpartynotices", "third-party-notices", "unlicense", "license-mit",
		"license-apache", "license-apache-2.0")
	legalExt = set("", ".txt", ".md", ".markdown", ".rst")
)

// legal reports whether base (lower case) names a licence-like file.
func legal(base string) bool {
	ext := path.Ext(base)
	return legalNames[base] || legalExt[ext] && legalNames[strings.TrimSuffix(base, ext)]
}

// classify classes a file by its name; the content adds classText and
// classScript for a #! line.
func classify(rel, skillFile string) class {
	base := strings.ToLower(path.Base(rel))
	ext := path.Ext(base)
	var c class
	switch {
	case rel == skillFile:
		c = classSkill | classMarkdown | classDoc
	case markdownExt[ext]:
		c = classMarkdown | classDoc
	case docExt[ext]:
		c = classDoc
	case scriptExt[ext] || scriptNames[base]:
		c = classScript
	}
	if rel != skillFile && c&classScript == 0 && legal(base) {
		c = classLegal
	}
	return c
}

// file is one file of the skill being checked.
type file struct {
	rel   string
	class class
	mode  fs.FileMode
	// data is the file's first maxText bytes for a text file, its first
	// headSize bytes for a binary one.
	data []byte
	// cut is true when the file holds more than data.
	cut bool
	// hits are the anchors the matcher found, computed on first use.
	hits     []hit
	hitsDone bool
	// fences are the [start, end) ranges of fenced code blocks, for
	// Markdown, computed on first use.
	fences     [][2]int
	fencesDone bool
	// closing remembers, by tag name, whether the file holds </name>.
	closing map[string]bool
}

func (f *file) is(c class) bool { return f.class&c != 0 }

// readFile reads the file e of the skill into buf (reused), as much as
// the rules need: the head of a binary file, up to maxText bytes of a
// text file. budget is what the skill may still read; the bytes read are
// returned. cls is the file's class (classify).
func readFile(root *os.Root, e entry, skillFile string, cls class, buf []byte, budget int64) (*file, []byte, int64, error) {
	f := &file{rel: e.rel, class: cls, mode: e.info.Mode()}
	var fh *os.File
	var st fs.FileInfo
	var err error
	if e.direct {
		fh, st, err = safefile.Open(e.real)
	} else {
		fh, st, err = safefile.OpenIn(root, filepath.FromSlash(e.rel))
	}
	if err != nil {
		return nil, buf, 0, err
	}
	defer fh.Close()
	f.mode = st.Mode()
	size := st.Size()
	limit := int64(headSize)
	ext := strings.ToLower(path.Ext(e.rel))
	switch {
	case e.rel == skillFile:
		limit = max(budget, headSize) // the whole skill file, up to the skill's budget
	case !binaryExt[ext]:
		limit = min(int64(maxText), max(budget, headSize))
	}
	want := min(limit, size)
	// A small file is read in one go, as large as its stat says; a larger
	// one first as its head, and in full only when the head is text.
	first := want
	if size > smallFile {
		first = min(want, headSize)
	}
	data, err := readInto(buf[:0], fh, first)
	if err != nil {
		return nil, buf, 0, err
	}
	binary := binaryExt[ext] || bytes.IndexByte(data[:min(len(data), headSize)], 0) >= 0
	if !binary && int64(len(data)) == first && first < want {
		if data, err = readInto(data, fh, want); err != nil {
			return nil, buf, 0, err
		}
	}
	f.data = data
	f.cut = int64(len(data)) < st.Size()
	if !binary {
		f.class |= classText
		if bytes.HasPrefix(data, []byte("#!")) {
			f.class = f.class&^classLegal | classScript // a script is never skipped as licence-like
		}
	}
	return f, data, int64(len(data)), nil
}

// readInto appends the file's bytes to buf until it holds limit bytes or
// the file ends.
func readInto(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	if int64(cap(buf)) < limit {
		nb := make([]byte, len(buf), limit)
		copy(nb, buf)
		buf = nb
	}
	for int64(len(buf)) < limit {
		n, err := r.Read(buf[len(buf):limit])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// racy reports whether a file's time is too recent to trust for the
// cache: a same-size rewrite within the file system's clock tick would go
// unseen (see manifest).
func racy(mtime, now time.Time) bool { return now.Sub(mtime) < filestamp.Window }
