// Package hostfile reads the small settings and manifest files that
// providers plan from (Claude's plugin bookkeeping and settings, a Codex
// config.toml and plugin.json, a VS Code settings.json, a Gemini CLI
// gemini-extension.json): every read
// goes through package safefile (non-blocking, regular files only, capped
// in size), and JSON is decoded by hostedit's reader, which the editor of
// those files parses with: with comments and trailing commas where the
// host allows them, a syntax error naming its line.
package hostfile

import (
	"errors"
	"io/fs"

	"github.com/ccski/ccski/internal/hostedit"
	"github.com/ccski/ccski/internal/safefile"
)

// MaxSize caps how much of one settings or manifest file is read. Real
// files are a few KiB; the cap only guards against a file that is not
// what its name says.
const MaxSize = 8 * safefile.MiB

// Read returns the bytes of the regular file path. found is false, with a
// nil error, when the file does not exist; any other problem (a folder, a
// FIFO, a file over MaxSize, no permission) is an error that says what it
// is, and found is true.
func Read(path string) (data []byte, found bool, err error) {
	data, err = safefile.Read(path, MaxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the caller names the file itself
		}
		return nil, true, err
	}
	return data, true, nil
}

// SyntaxError is a JSON file that does not parse, with the 1-based line
// and column of the problem.
type SyntaxError = hostedit.SyntaxError

// DecodeJSON decodes data, one JSON value, into v: hostedit's reader for
// plain JSON (see hostedit.JSON.Decode). A leading byte order mark is
// allowed; a syntax error, or a value of the wrong type for v, is a
// *SyntaxError naming the line.
func DecodeJSON(data []byte, v any) error { return hostedit.JSON{}.Decode(data, v) }

// DecodeJSONC is DecodeJSON for JSON with comments, as VS Code and Gemini
// CLI write their settings: // and /* */ comments and trailing commas are
// allowed, and the file is read exactly as hostedit reads it for an edit.
func DecodeJSONC(data []byte, v any) error { return hostedit.JSON{Comments: true}.Decode(data, v) }
