package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// UpdateError is an error of Update's own: the lock, the write, or a file
// that kept changing. Errors of the caller's edit are returned as they are.
type UpdateError struct {
	Op  string // "lock", "write" or "race"
	Err error
}

func (e *UpdateError) Error() string {
	switch e.Op {
	case "lock":
		return "cannot lock it: " + e.Err.Error()
	case "write":
		return "cannot write it: " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *UpdateError) Unwrap() error { return e.Err }

// errRaced is Update's retry signal: the file changed between the read
// and the rename.
var errRaced = errors.New("it changed while it was written, again and again; try again")

// updateTries bounds how often Update reads again a file that changed
// under it.
const updateTries = 8

// Update rewrites the file at path from what it holds, without losing a
// concurrent update: under a lock file beside it (path+".lock", where the
// system has file locks), it calls edit, which reads the file and returns
// the bytes it read (nil for a missing file) and the new content (nil:
// leave the file as it is). The new content replaces the file atomically
// (mode perm for a new one) only if the file still holds the bytes edit
// read; otherwise edit runs again from the new content, up to 8 times.
// One read-modify-write for ccski's own small state files (the trust
// store, the count of skill loads).
func Update(path string, perm fs.FileMode, edit func() (before, after []byte, err error)) error {
	unlock, err := LockFile(path+".lock", perm, nil)
	if err != nil {
		return &UpdateError{Op: "lock", Err: err}
	}
	defer unlock()
	for range updateTries {
		before, after, err := edit()
		if err != nil || after == nil {
			return err
		}
		err = Write(path, after, WriteOptions{Perm: perm, Check: func() error {
			now, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				now = nil
			} else if err != nil {
				return err
			}
			if !bytes.Equal(now, before) {
				return errRaced
			}
			return nil
		}})
		if errors.Is(err, errRaced) {
			continue
		}
		if err != nil {
			return &UpdateError{Op: "write", Err: err}
		}
		return nil
	}
	return &UpdateError{Op: "race", Err: errRaced}
}

// WrapUpdate names the file in an error of Update's own (what: "trust
// store PATH"), and returns the caller's edit errors as they are.
func WrapUpdate(what string, err error) error {
	var ue *UpdateError
	if errors.As(err, &ue) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return err
}
