// Package manifest is the one model of the files of a skill: which files
// and symlinks belong to a skill folder (Walk), their sizes and SHA-256
// digests (Manifest, built by a Cache), and how two states of them compare
// (Diff). What ccski hashes for trust, scans for security, copies on
// install, lists in a Skills Extension (SEP-2640) skills/list entry and
// lists with resources/directory/read is the set this package walks, by
// construction.
//
// The folder is walked through the path given (a caller that knows the real
// folder passes it, and nothing above it is resolved). Below it:
//
//   - every regular file is listed, hidden files and nested folders
//     included, under its '/'-separated path;
//   - an entry named .git, in any case, is never part of a skill, whatever
//     it holds (a folder with or without HEAD, or the file git leaves in a
//     worktree): a clone's history is not the skill (see Skip);
//   - a symlink whose target, resolved, is a regular file inside the
//     folder's real location (the folder resolved with
//     filepath.EvalSymlinks, only when it holds a symlink) is listed under
//     the link's own path, with the target's size and digest;
//   - every other symlink (one leading out of the skill or into its .git, a
//     broken one, a loop, one to a folder or to a special file) is a
//     recorded link: listed with what it holds (File.Link), never followed,
//     so that adding, removing or retargeting one is a change. A manifest
//     never follows a link to a folder, so a link cannot make a loop (only
//     install's walk, Walk.Folders, follows one inside its source, with a
//     guard against loops);
//   - FIFOs, sockets and devices are left out without being opened;
//   - folders more than MaxDepth below the skill folder are not entered.
//
// Limits (MaxFiles entries or folders, MaxBytes, MaxFileBytes) are checked
// from the sizes the walk stats, before anything is read: a Build of a
// skill over one fails with a *LimitError and no file of it is hashed.
//
// A Cache keeps the listing of each folder it read (Listings), checked
// against the folder's own stat: a Build of an unchanged skill states each
// folder and each file, and reads no folder.
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
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
)

// File is one file of a skill, or one recorded link (see Link). It is
// what the trust store and the install lock record of each, in JSON.
type File struct {
	// Path is '/'-separated and relative to the skill folder, e.g.
	// "SKILL.md" or "references/guide.md". A symlink is listed under
	// its own path.
	Path string `json:"path"`
	// Size is the file's size in bytes, as hashed; 0 for a link.
	Size int64 `json:"size"`
	// Digest is "sha256:" and the 64 lower-case hex digits of the
	// SHA-256 of the file's raw bytes; "" for a link.
	Digest string `json:"digest,omitempty"`
	// Link is what a recorded symlink holds (its target as written, see
	// os.Readlink): a symlink the walk does not list as a file, such as
	// one leading out of the skill. It is "" for a file, a symlink to a
	// file inside the skill included.
	Link string `json:"link,omitempty"`
}

// IsLink reports whether f is a recorded link rather than a file.
func (f File) IsLink() bool { return f.Link != "" }

// Manifest is every file and recorded link of a skill.
type Manifest struct {
	// Files are sorted by Path, in byte order.
	Files []File
	// Bytes is the total size of Files.
	Bytes int64
}

// Contents returns the files of the manifest without its recorded links:
// the files that have bytes to read and serve. It is m.Files itself when
// there is no link.
func (m *Manifest) Contents() []File {
	if !slices.ContainsFunc(m.Files, File.IsLink) {
		return m.Files
	}
	out := make([]File, 0, len(m.Files))
	for _, f := range m.Files {
		if !f.IsLink() {
			out = append(out, f)
		}
	}
	return out
}

// File returns the file (not a link) at path, if the manifest lists one.
func (m *Manifest) File(path string) (File, bool) {
	i, ok := slices.BinarySearchFunc(m.Files, path, func(f File, p string) int { return strings.Compare(f.Path, p) })
	if !ok || m.Files[i].IsLink() {
		return File{}, false
	}
	return m.Files[i], true
}

// The limits of a manifest. A skill over one cannot be listed. MaxFiles
// counts files and recorded links, and, apart, folders.
const (
	MaxFiles     = 512
	MaxBytes     = 16 << 20
	MaxFileBytes = 8 << 20
	// MaxDepth is how many folders deep below the skill folder the walk
	// goes.
	MaxDepth = 32
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
	// TooDeep: a folder more than MaxDepth folders deep.
	TooDeep
)

// LimitError says which limit a skill passes.
type LimitError struct {
	// Dir is the skill folder, as given to Build.
	Dir   string
	Limit Limit
	// Path is the file over MaxFileBytes ('/'-separated, relative to
	// Dir), for FileTooLarge; the folder too deep, for TooDeep.
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
	case TooDeep:
		return fmt.Sprintf("folder %s in skill folder %s is more than %d folders deep, the most a manifest lists: "+
			"flatten the skill's folders", e.Path, e.Dir, MaxDepth)
	}
	return fmt.Sprintf("skill folder %s is over a manifest limit", e.Dir)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// Skip reports whether an entry of this name is never part of a skill,
// and so is neither hashed, scanned, copied, listed nor served:
// version-control metadata (.git, a folder or the file of a worktree),
// whatever it holds. Case is ignored, as some file systems ignore it.
func Skip(name string) bool { return strings.EqualFold(name, ".git") }

// Skipped reports whether the '/'- or separator-delimited path rel runs
// through an entry Skip leaves out.
func Skipped(rel string) bool {
	for _, seg := range strings.FieldsFunc(rel, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if Skip(seg) {
			return true
		}
	}
	return false
}

// EscapePath escapes each segment of a '/'-separated path (a File.Path)
// for a URL path, keeping its slashes: how the web page and the
// well-known index name a skill's files in their addresses.
func EscapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
