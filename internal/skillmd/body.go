package skillmd

import (
	"bytes"
	"errors"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/safefile"
)

// MaxSkillFile caps the size of a SKILL.md that ccski reads whole: for the
// skill tool, ask, info --full and validate. It is generous (a SKILL.md is
// meant to stay under 500 lines) and only keeps a runaway file from being
// held in memory and sent to a client.
const MaxSkillFile = 16 << 20

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
// Body. It reads through safefile: a FIFO, a device or a folder in a skill
// folder is an error, not a hang. When the file holds more than limit
// bytes, ReadBody returns the body of its first limit bytes together with
// ErrTruncated.
func ReadBody(path string, limit int64) ([]byte, error) {
	data, more, err := safefile.ReadPrefix(path, limit)
	if err != nil {
		return nil, err
	}
	if more {
		return Body(data), ErrTruncated
	}
	return Body(data), nil
}

// TrimPartialRune drops an incomplete UTF-8 sequence that a cut (a read of
// the first n bytes of a file) left at the end of b.
func TrimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}
