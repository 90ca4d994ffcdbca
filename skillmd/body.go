package skillmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// ErrTruncated is returned by ReadBody, with the body of the bytes it read,
// when the file is longer than the cap it was given.
var ErrTruncated = errors.New("file is larger than the read cap; the body is cut")

// Body returns the Markdown body of a SKILL.md or command file: the file
// without a leading byte order mark and without its frontmatter. A file
// whose frontmatter cannot be read (not closed, too large) is all body.
// It is the one "body without frontmatter" of the project: skill bodies in
// search and skills_list, and command prompts (through CommandBody).
func Body(data []byte) []byte {
	b, _ := splitBody(data)
	return b
}

// splitBody is Body with the ReadHead error: nil when there is a
// frontmatter or none at all, else why the frontmatter cannot be read (the
// body is then the whole file less a byte order mark).
func splitBody(data []byte) ([]byte, error) {
	// ReadHead runs on the file as it is, so that only one byte order mark
	// is dropped; BodyOffset counts it.
	h, err := ReadHead(bytes.NewReader(data))
	switch {
	case errors.Is(err, ErrNoFrontmatter):
		return bytes.TrimPrefix(data, bom), nil
	case err != nil:
		return bytes.TrimPrefix(data, bom), err
	}
	return data[min(h.BodyOffset, len(data)):], nil
}

// ReadBody reads the file at path, at most limit bytes of it, and returns its
// Body. It only reads regular files: the file is opened without blocking,
// so a FIFO or a device in a skill folder is an error, not a hang. When the
// file holds more than limit bytes, ReadBody returns the body of its first
// limit bytes together with ErrTruncated. limit < 0 means no cap.
func ReadBody(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &os.PathError{Op: "read", Path: path,
			Err: fmt.Errorf("not a regular file (%v); only plain files are read", st.Mode().Type())}
	}
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if limit >= 0 && int64(len(data)) > limit {
		return Body(data[:limit]), ErrTruncated
	}
	return Body(data), nil
}
