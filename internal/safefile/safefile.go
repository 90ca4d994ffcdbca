// Package safefile is the one way ccski reads a file it finds in a folder
// it does not control: a SKILL.md, a command, a file bundled with a skill,
// a plugin manifest. Such a path may name a FIFO, a device or a folder, or
// a file of any size, and a plain os.ReadFile would then wait forever for
// a writer, read without end, or hold the whole file in memory. Every
// function here opens without blocking, reads regular files only, and
// reads at most a given number of bytes. Symlinks are followed, as
// os.ReadFile follows them; a caller that must stay inside a folder opens
// through an *os.Root (OpenIn, ReadIn).
//
// Errors are *fs.PathError values naming the file, so that
// errors.Is(err, fs.ErrNotExist) and friends work as with the os package.
// Their Err is a *NotRegularError for anything but a regular file (it
// matches ErrNotRegular) and a *TooLargeError for a file over the cap (it
// matches ErrTooLarge), each of which says what to do.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MiB is a mebibyte, the unit the caps are written in.
const MiB = 1 << 20

var (
	// ErrNotRegular matches the error for a folder, FIFO, device or socket.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge matches the error for a file over the cap.
	ErrTooLarge = errors.New("file too large")
)

// NotRegularError says what kind of file was refused.
type NotRegularError struct {
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("it is a %s, not a regular file", Kind(e.Mode))
}

// Is reports whether target is ErrNotRegular.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// TooLargeError is the error for a file over the cap.
type TooLargeError struct {
	// Size is the file's size when it was known before reading, or 0 when
	// the file grew past Limit while it was read.
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size > e.Limit {
		return fmt.Sprintf("the file is %s, over the %s limit", Size(e.Size), Size(e.Limit))
	}
	return fmt.Sprintf("the file is larger than the %s limit", Size(e.Limit))
}

// Is reports whether target is ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Kind names the type of a file for an error message: "folder", "named
// pipe (FIFO)", "socket", "device" or "regular file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "folder"
	case m.IsRegular():
		return "regular file"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return fmt.Sprintf("special file (%v)", m.Type())
}

// Size writes a byte count for a message: "512 bytes", "64 KiB",
// "16 MiB", or "52428801 bytes (50.0 MiB)" when it is not a round number.
func Size(n int64) string {
	switch {
	case n >= MiB && n%MiB == 0:
		return fmt.Sprintf("%d MiB", n/MiB)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= MiB:
		return fmt.Sprintf("%d bytes (%.1f MiB)", n, float64(n)/MiB)
	case n >= 1<<10:
		return fmt.Sprintf("%d bytes (%.1f KiB)", n, float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Open opens name for reading without blocking and returns it with its
// fs.FileInfo (from the open file, not the path). Anything but a regular
// file is closed and refused with a *NotRegularError. The caller closes
// the file.
func Open(name string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return check(f, name, err, os.Stat)
}

// OpenIn is Open for a name inside root: the os.Root refuses a name that
// leads out of it, through ".." or a symlink.
func OpenIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return check(f, name, err, root.Stat)
}

// check finishes Open: it stats the open file and refuses what is not a
// regular file. A file that cannot be opened at all because of its type
// (a socket gives "no such device or address") is refused the same way,
// by its stat.
func check(f *os.File, name string, err error, stat func(string) (fs.FileInfo, error)) (*os.File, fs.FileInfo, error) {
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			if st, serr := stat(name); serr == nil && !st.Mode().IsRegular() {
				return nil, nil, &fs.PathError{Op: "read", Path: name, Err: &NotRegularError{Mode: st.Mode()}}
			}
		}
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, &fs.PathError{Op: "read", Path: name, Err: &NotRegularError{Mode: st.Mode()}}
	}
	return f, st, nil
}

// Read reads the whole regular file name, which must hold at most limit
// bytes: a larger file is refused with a *TooLargeError, and is not read
// when its size says so up front.
func Read(name string, limit int64) ([]byte, error) {
	f, st, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, st, limit)
}

// ReadIn is Read for a name inside root (see OpenIn).
func ReadIn(root *os.Root, name string, limit int64) ([]byte, error) {
	f, st, err := OpenIn(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, st, limit)
}

// ReadAll reads the rest of f, a file Open or OpenIn returned with st,
// when it holds at most limit bytes; else it returns a *TooLargeError
// (wrapped in an *fs.PathError naming f). A file that grows past limit
// while it is read is refused too.
func ReadAll(f *os.File, st fs.FileInfo, limit int64) ([]byte, error) {
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: &TooLargeError{Size: st.Size(), Limit: limit}}
	}
	data, more, err := readUpTo(f, st.Size(), limit)
	if err != nil {
		return nil, err
	}
	if more {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: &TooLargeError{Limit: limit}}
	}
	return data, nil
}

// ReadPrefix reads at most n bytes of the regular file name: its
// beginning, for a caller that shows or searches only that much. more
// reports whether the file holds more than n bytes.
func ReadPrefix(name string, n int64) (data []byte, more bool, err error) {
	f, st, err := Open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return Prefix(f, st, n)
}

// Prefix is ReadPrefix for a file Open or OpenIn returned with st: it
// reads at most n bytes of the rest of f.
func Prefix(f *os.File, st fs.FileInfo, n int64) (data []byte, more bool, err error) {
	return readUpTo(f, st.Size(), n)
}

// readUpTo reads at most limit bytes of f, sizing the buffer from the
// size the file had when opened, and reports whether more followed.
func readUpTo(f *os.File, size, limit int64) ([]byte, bool, error) {
	if limit < 0 {
		limit = 0
	}
	buf := make([]byte, 0, min(max(size, 0), limit)+1)
	data, err := readAllInto(buf, io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, &fs.PathError{Op: "read", Path: f.Name(), Err: Cause(err)}
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// readAllInto is io.ReadAll appending to buf, so that a file read whole
// takes one allocation.
func readAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// Cause returns err without the *fs.PathError around it, for a caller
// that names the file itself or wraps err again with its own operation.
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
