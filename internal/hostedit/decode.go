package hostedit

// Reading a settings file: the one JSON reader of ccski for the files of
// other programs. A file with comments is read by the parser the editor
// uses, so that what ccski reads from a host's settings and what it would
// edit there are the same document.

import (
	"bytes"
	"encoding/json"
	"errors"
)

// bom is the UTF-8 byte order mark, which a settings file may start with.
const bom = "\xef\xbb\xbf"

// Decode decodes data, one JSON value, into v, as encoding/json does. A
// leading byte order mark is allowed. With Comments set it reads data as
// the editor does: // and /* */ comments and trailing commas are allowed,
// and an empty or blank document is an empty object. A syntax error is a
// *SyntaxError naming its line and column in data; so is a value of the
// wrong type for v, at the line where the value starts.
func (j JSON) Decode(data []byte, v any) error {
	plain := data
	if j.Comments {
		var err error
		if plain, err = uncomment(data); err != nil {
			return err
		}
	} else if bytes.HasPrefix(data, []byte(bom)) {
		plain = blank(bytes.Clone(data), 0, len(bom))
	}
	err := json.Unmarshal(plain, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		// The offset counts the bytes read: the problem is just before it.
		line, col := Position(plain, int(se.Offset)-1)
		return &SyntaxError{Line: line, Column: col, Msg: se.Error()}
	case errors.As(err, &te):
		line, col := Position(plain, int(te.Offset)-1)
		return &SyntaxError{Line: line, Column: col, Msg: te.Error()}
	}
	return err
}

// uncomment parses data as JSON with comments and returns a copy that is
// plain JSON with every byte at its place: the byte order mark, the
// comments and the trailing commas are blanked out (newlines kept), and
// an empty document becomes "{}".
func uncomment(data []byte) ([]byte, error) {
	var skipped [][2]int
	p := &jparser{data: data, comments: true, skipped: &skipped}
	root, err := p.document()
	if err != nil {
		return nil, err
	}
	if root == nil {
		return []byte("{}"), nil
	}
	out := bytes.Clone(data)
	if bytes.HasPrefix(out, []byte(bom)) {
		blank(out, 0, len(bom))
	}
	for _, s := range skipped {
		blank(out, s[0], s[1])
	}
	blankTrailingCommas(out, root)
	return out, nil
}

// blankTrailingCommas blanks the comma after the last item of every
// array and object in v.
func blankTrailingCommas(out []byte, v *jvalue) {
	for i, it := range v.items {
		if i == len(v.items)-1 && it.comma >= 0 {
			out[it.comma] = ' '
		}
		blankTrailingCommas(out, it.v)
	}
}

// blank replaces out[from:to] by spaces, keeping line breaks, and returns
// out.
func blank(out []byte, from, to int) []byte {
	for i := from; i < to; i++ {
		if out[i] != '\n' && out[i] != '\r' {
			out[i] = ' '
		}
	}
	return out
}
