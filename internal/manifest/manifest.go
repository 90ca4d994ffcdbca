// Package manifest lists the files of a skill with their sizes and SHA-256
// digests: the resources of a Skills Extension (SEP-2640) skills/list
// entry, and what a lock file or an integrity check compares.
//
// A manifest is complete: every regular file below the skill's folder,
// hidden files and nested folders included, each under one path that a
// resources/read inside the skill's folder serves (which also reads a file
// through a symlinked folder, a second path this does not list). The
// folder is walked through the path given (a caller that knows the real
// folder passes it, and nothing is resolved); below it:
//
//   - a symlink whose target, resolved, is a regular file inside the
//     folder's real location (the folder resolved with
//     filepath.EvalSymlinks, only when it holds a symlink) is listed under the link's own path, with the
//     target's size and digest;
//   - a symlink that leads outside, a broken one, and a symlink to a folder
//     are skipped (folders are never followed through links, so a link
//     cannot make a loop);
//   - FIFOs, sockets and devices are skipped without being opened;
//   - a .git folder is skipped (see Skip): a skill installed with git
//     clone holds its history there, which is not part of the skill.
//
// Limits (MaxFiles, MaxBytes, MaxFileBytes) are checked from the sizes the
// walk stats, before anything is read: a skill over one stops the walk
// with a *LimitError and no file of it is hashed.
//
// A Cache also keeps the listing of each folder it read, checked against
// the folder's own stat (see dirNode): a Build of an unchanged skill
// states each folder and each file, and reads no folder.
//
// Digests are kept in a Cache by the file's path and checked against
// its size, modification time, and where the system has them, inode,
// device and change time (ctime). A Build of a skill whose files are
// unchanged walks and stats only. A file whose stat changed is hashed
// again. What a stat cannot show is an edit that keeps the size, the
// modification time and (where there is one) the change time, which a
// write only does within one tick of the file system's clock. So a file
// whose times are within two seconds of the hash is not cached (it is
// hashed again at the next Build, as git treats "racily clean" entries).
// What remains undetectable is an edit in place that keeps the size and
// sets the modification time back (touch -d, a copy that keeps times)
// where change times are not read (on every system but Linux), and, on
// systems without inodes (Windows), a file replaced by another of the same
// size and modification time.
package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
)

// File is one file of a skill.
type File struct {
	// Path is '/'-separated and relative to the skill folder, e.g.
	// "SKILL.md" or "references/guide.md". A symlink is listed under
	// its own path.
	Path string
	// Size is the file's size in bytes, as hashed.
	Size int64
	// Digest is "sha256:" and the 64 lower-case hex digits of the
	// SHA-256 of the file's raw bytes.
	Digest string
}

// Manifest is every file of a skill.
type Manifest struct {
	// Files are sorted by Path, in byte order.
	Files []File
	// Bytes is the total size of Files.
	Bytes int64
}

// The limits of a manifest. A skill over one cannot be listed.
const (
	MaxFiles     = 512
	MaxBytes     = 16 << 20
	MaxFileBytes = 8 << 20
)

// ErrLimit matches every *LimitError.
var ErrLimit = errors.New("the skill is over a manifest limit")

// Limit names the limit a skill passes.
type Limit int

// The limits a *LimitError names.
const (
	// TooManyFiles: more than MaxFiles files.
	TooManyFiles Limit = iota + 1
	// TooManyBytes: more than MaxBytes bytes in all.
	TooManyBytes
	// FileTooLarge: one file over MaxFileBytes.
	FileTooLarge
)

// LimitError says which limit a skill passes.
type LimitError struct {
	// Dir is the skill folder, as given to Build.
	Dir   string
	Limit Limit
	// Path is the file over MaxFileBytes ('/'-separated, relative to
	// Dir), for FileTooLarge.
	Path string
	// Count is what was counted when the walk stopped: the file's size
	// for FileTooLarge, the bytes so far (over MaxBytes) for
	// TooManyBytes, the files so far (MaxFiles+1) for TooManyFiles.
	Count int64
}

func (e *LimitError) Error() string {
	switch e.Limit {
	case TooManyFiles:
		return fmt.Sprintf("skill folder %s has more than %d files, the most a manifest lists: "+
			"keep only the skill's own files in it (move .git, node_modules or build output elsewhere)", e.Dir, MaxFiles)
	case TooManyBytes:
		return fmt.Sprintf("skill folder %s holds more than %s (%s counted before the listing stopped), the most a manifest lists: "+
			"move large data out of the folder", e.Dir, safefile.Size(MaxBytes), safefile.Size(e.Count))
	case FileTooLarge:
		return fmt.Sprintf("%s in skill folder %s is %s, over the %s limit for one file of a manifest: "+
			"move it out of the folder or make it smaller", e.Path, e.Dir, safefile.Size(e.Count), safefile.Size(MaxFileBytes))
	}
	return fmt.Sprintf("skill folder %s is over a manifest limit", e.Dir)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Skip reports whether a folder of this name is left out of manifests, and
// so is not served: version-control metadata.
// Case is ignored, as some file systems ignore it.
func Skip(name string) bool { return strings.EqualFold(name, ".git") }

// Skipped reports whether the '/'- or separator-delimited path rel runs
// through a folder Skip leaves out.
func Skipped(rel string) bool {
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if Skip(seg) {
			return true
		}
	}
	return false
}

// found is a file the walk listed, to be hashed.
type found struct {
	rel  string // '/'-separated, relative to the skill folder
	real string // the path the file's digest is cached under: the path walked, or a symlink's resolved target
	id   fileID // from the walk's stat
}

// walker lists the files of one skill folder and checks the limits.
type walker struct {
	c     *Cache
	dir   string // as given
	real  string // dir with symlinks resolved, once a symlink needs it
	fresh bool   // read every folder, using no cached listing
	files []found
	bytes int64
}

// errStale is the signal that a cached listing disagrees with what is on
// disk now (the folder changed while the walk ran): Build walks again
// reading every folder.
var errStale = errors.New("a folder changed during the walk")

// walk lists the folder path (below the skill folder, through the folder
// as given), whose stat is id and whose path relative to the skill folder
// is prefix ("" or ending in '/'), and the folders below it.
func (w *walker) walk(path, prefix string, id fileID) error {
	entries, cached, err := w.c.list(path, id, w.fresh)
	if err != nil {
		return fmt.Errorf("skill folder %s: %w", w.dir, err)
	}
	for _, e := range entries {
		full := path + string(filepath.Separator) + e.name
		rel := prefix + e.name
		if e.kind == kindLink {
			if err := w.link(full, rel); err != nil {
				return err
			}
			continue
		}
		st, err := os.Lstat(full)
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("skill folder %s: %w", w.dir, err)
		case err != nil || e.kind == kindDir && !st.IsDir() || e.kind == kindFile && !st.Mode().IsRegular():
			// Deleted or replaced since the listing was read.
			if cached {
				return errStale
			}
			continue
		case e.kind == kindDir:
			if err := w.walk(full, rel+"/", idOf(st)); err != nil {
				return err
			}
		default:
			if err := w.add(rel, full, st); err != nil {
				return err
			}
		}
	}
	return nil
}

// link lists the symlink full under rel when its target is a regular file
// inside the skill's real folder.
func (w *walker) link(full, rel string) error {
	if w.real == "" {
		real, err := filepath.EvalSymlinks(w.dir)
		if err != nil {
			return fmt.Errorf("skill folder %s: %w", w.dir, err)
		}
		w.real = real
	}
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return nil // broken, a loop, or not resolvable: nothing to serve
	}
	in, err := filepath.Rel(w.real, target)
	if err != nil || !filepath.IsLocal(in) {
		return nil // leads outside the skill
	}
	if Skipped(in) {
		return nil // into .git: not part of the skill
	}
	st, err := os.Lstat(target) // target is real: no symlink left to follow
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("skill folder %s: %s: %w", w.dir, rel, err)
	case !st.Mode().IsRegular():
		return nil // a folder (not followed) or a special file
	}
	return w.add(rel, target, st)
}

// add lists one file, unless it passes a limit.
func (w *walker) add(rel, real string, st fs.FileInfo) error {
	if len(w.files) == MaxFiles {
		return &LimitError{Dir: w.dir, Limit: TooManyFiles, Count: MaxFiles + 1}
	}
	size := st.Size()
	if size > MaxFileBytes {
		return &LimitError{Dir: w.dir, Limit: FileTooLarge, Path: rel, Count: size}
	}
	if w.bytes += size; w.bytes > MaxBytes {
		return &LimitError{Dir: w.dir, Limit: TooManyBytes, Count: w.bytes}
	}
	w.files = append(w.files, found{rel: rel, real: real, id: idOf(st)})
	return nil
}
