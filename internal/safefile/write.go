package safefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// WriteOptions says how Write replaces a file.
type WriteOptions struct {
	// Perm is the mode of a new file; an existing file keeps its own.
	Perm fs.FileMode
	// MustExist refuses a missing file with fs.ErrNotExist, instead of
	// creating it and its missing parent folders.
	MustExist bool
	// Check, when set, runs just before the rename, once the new content
	// is on disk beside the file: an error from it leaves the file as it
	// is, and Write returns it. It lets a caller make sure that the file
	// is still the one it edited.
	Check func() error
	// Root, when set, is the folder the write belongs to: a path that a
	// symbolic link leads out of it is refused with a *LinkError (see
	// CheckLinks), and nothing is written.
	Root string
}

// DanglingLinkError is the error for a symlink whose target is missing:
// writing through it would make a file somewhere the user may not expect,
// and writing over it would turn the link into a file.
type DanglingLinkError struct {
	Target string
}

func (e *DanglingLinkError) Error() string {
	return fmt.Sprintf("it is a symbolic link to %s, which does not exist; fix or remove the link, then run again", e.Target)
}

// WriteAtomic replaces the file at path with data so that a reader, or a
// crash at any moment, sees the old content or the new one, never a mix
// or a truncated file: data goes to a temporary file in the same folder,
// which is synced and then renamed over path. A symlink at path is
// followed and its target replaced, so the link stays a link; a symlink
// whose target is missing is refused (*DanglingLinkError). An existing
// file keeps its permission bits; a new one gets perm, and its missing
// parent folders are made (0o755, less the umask). The temporary file is
// removed when anything fails, and those a killed process left behind
// are removed by the next write.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
	return Write(path, data, WriteOptions{Perm: perm})
}

// WriteJSON writes v as indented JSON to path with WriteAtomic: the
// bookkeeping files of ccski's cache (a provider's state.json).
func WriteJSON(path string, v any, perm fs.FileMode) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteAtomic(path, append(data, '\n'), perm)
}

// Write is WriteAtomic with options.
func Write(path string, data []byte, o WriteOptions) error {
	if o.Root != "" {
		if err := CheckLinks(o.Root, path); err != nil {
			return &fs.PathError{Op: "write", Path: path, Err: err}
		}
	}
	real, err := filepath.EvalSymlinks(path)
	perm := o.Perm
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return &fs.PathError{Op: "write", Path: path, Err: &DanglingLinkError{Target: target}}
		}
		if o.MustExist {
			return &fs.PathError{Op: "write", Path: path, Err: fs.ErrNotExist}
		}
		real = path
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		st, err := os.Stat(real)
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return &fs.PathError{Op: "write", Path: path, Err: &NotRegularError{Mode: st.Mode()}}
		}
		perm = st.Mode().Perm()
	}
	dir, base := filepath.Dir(real), filepath.Base(real)
	removeStale(dir, base)
	tmp, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if o.Check != nil {
		if err := o.Check(); err != nil {
			return fail(err)
		}
	}
	if !lockable {
		// Without locks, close first: some systems cannot rename an
		// open file.
		if err := tmp.Close(); err != nil {
			os.Remove(name)
			return err
		}
	}
	if err := os.Rename(name, real); err != nil {
		return fail(err)
	}
	// With locks, closing releases the lock only now, once the name is
	// gone, so that removeStale never takes the file away in between.
	tmp.Close()
	// Sync the folder so that the rename itself survives a power loss;
	// a folder that cannot be synced (some file systems) is no error.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// tempPrefix is the name of base's temporary files, followed by a random
// part.
func tempPrefix(base string) string { return "." + base + ".ccski-" }

// staleAge is how old a temporary file of a platform without file locks
// must be before the next write removes it.
const staleAge = time.Minute

// createTemp makes base's temporary file in dir and locks it (where the
// platform can), so that removeStale leaves it alone while it is
// written. A file that removeStale took away before it was locked is
// made again.
func createTemp(dir, base string) (*os.File, error) {
	for range 5 {
		f, err := os.CreateTemp(dir, tempPrefix(base)+"*")
		if err != nil {
			return nil, err
		}
		if err := lock(f); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		fst, err1 := f.Stat()
		st, err2 := os.Stat(f.Name())
		if err1 == nil && err2 == nil && os.SameFile(fst, st) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("cannot make a temporary file for %s in %s", base, dir)
}

// removeStale removes the temporary files of base in dir that no write
// is using: those a process killed in the middle of a write left behind.
// A file in use is locked by its writer; on a platform without locks,
// only files older than staleAge go. Failures are ignored: the files are
// litter, not data.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := tempPrefix(base)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if info, err := e.Info(); err == nil {
			removeIfUnused(p, time.Since(info.ModTime()) > staleAge)
		}
	}
}
