// Package hostfile reads the small settings and manifest files that
// providers plan from (Claude's plugin bookkeeping and settings, a Codex
// config.toml and plugin.json, a VS Code settings.json, a Gemini CLI
// gemini-extension.json): every read
// goes through package safefile (non-blocking, regular files only, capped
// in size), JSON may carry comments and trailing commas where the host
// allows them, and a syntax error names its line.
package hostfile

import (
	"encoding/json"
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

// DecodeJSON decodes data, one JSON value, into v. A leading byte order
// mark is allowed. A syntax error is a *SyntaxError naming the line; a
// value of the wrong type for v is the encoding/json error, also with the
// line where the value starts.
func DecodeJSON(data []byte, v any) error {
	data = blankBOM(data)
	err := json.Unmarshal(data, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := Position(data, se.Offset)
		return &SyntaxError{Line: line, Column: col, Msg: se.Error()}
	case errors.As(err, &te):
		line, col := Position(data, te.Offset)
		return &SyntaxError{Line: line, Column: col, Msg: te.Error()}
	}
	return err
}

// DecodeJSONC is DecodeJSON for JSON with comments, as VS Code writes its
// settings: // and /* */ comments and trailing commas are allowed. They
// are blanked out in place, so a syntax error still names the line of the
// original file.
func DecodeJSONC(data []byte, v any) error {
	return DecodeJSON(StripJSONC(data), v)
}

// blankBOM returns data with a UTF-8 byte order mark replaced by spaces,
// keeping every offset.
func blankBOM(data []byte) []byte {
	if len(data) >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf {
		out := append([]byte(nil), data...)
		out[0], out[1], out[2] = ' ', ' ', ' '
		return out
	}
	return data
}

// StripJSONC returns a copy of data with every comment (// to the end of
// the line, /* to */) and every trailing comma (one followed, past white
// space and comments, by } or ]) replaced by spaces. Newlines are kept,
// so offsets and line numbers are those of data. Text inside strings is
// left alone. An unterminated comment or string is left for the JSON
// decoder to report.
func StripJSONC(data []byte) []byte {
	out := append([]byte(nil), data...)
	blank := func(from, to int) {
		for i := from; i < to && i < len(out); i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	lastComma := -1 // offset of a comma after a value, not yet followed by another
	var prev byte   // the last character that is not white space or a comment
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == '"':
			lastComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := i
			for end < len(out) && out[end] != '\n' {
				end++
			}
			blank(i, end)
			i = end - 1
			continue
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := i + 2
			for end+1 < len(out) && !(out[end] == '*' && out[end+1] == '/') {
				end++
			}
			if end+1 >= len(out) {
				return out // unterminated: the decoder reports it
			}
			blank(i, end+2)
			i = end + 1
			continue
		case c == ',':
			// Only a comma after a value may be a trailing one: "{,}"
			// stays an error.
			lastComma = -1
			if prev != 0 && prev != '{' && prev != '[' && prev != ',' && prev != ':' {
				lastComma = i
			}
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		default:
			lastComma = -1
		}
		prev = c
	}
	return out
}

// Position returns the 1-based line and column of byte offset off in
// data (the offset of a json.SyntaxError counts the bytes read, so the
// problem is just before it).
func Position(data []byte, off int64) (line, col int) {
	line, col = 1, 1
	for i := 0; i < len(data) && int64(i) < off-1; i++ {
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}
