package mcp

// The JSON of a skills/list or skills/get entry, written once per entry
// build instead of by reflection at every response: the frontmatter is
// kept as JSON (skillsState.fronts), and the rest is a URI and one line
// per file. The bytes are exactly those encoding/json writes for the
// entry with HTML escaping off, as the SDK's encoder has it
// (TestEntryWireMatchesEncodingJSON): a client sees no difference.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/pipeline"
)

// MarshalJSON writes the entry's JSON: the bytes the server built when it
// has them, else its fields as encoding/json writes them.
func (e *extEntry) MarshalJSON() ([]byte, error) {
	if e.Wire != nil {
		return e.Wire, nil
	}
	type fields extEntry // without this method
	return marshalJSON((*fields)(e))
}

// appendEntry appends the JSON of r's entry to dst: its URI, front (the
// frontmatter as JSON), files and, when signer is not nil, the _meta that
// names who signed it, in the order of extEntry's fields.
func appendEntry(dst []byte, r *pipeline.Record, front []byte, files []manifest.File, signer *pipeline.Signer) []byte {
	dst = append(dst, `{"uri":`...)
	dst = appendJSONString(dst, r.SkillURI())
	dst = append(dst, `,"frontmatter":`...)
	dst = append(dst, front...)
	dst = append(dst, `,"resources":[`...)
	for i, f := range files {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"uri":`...)
		dst = appendJSONString(dst, skillFileURI(r, f.Path))
		dst = append(dst, `,"digest":`...)
		dst = appendJSONString(dst, f.Digest)
		dst = append(dst, `,"size":`...)
		dst = strconv.AppendInt(dst, f.Size, 10)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if signer != nil {
		b, err := marshalJSON(entryMeta{Signer: signer})
		if err != nil { // strings only: it always encodes
			panic(err)
		}
		dst = append(dst, `,"_meta":`...)
		dst = append(dst, b...)
	}
	return append(dst, '}')
}

// appendJSONString appends s as a JSON string, as encoding/json writes it
// with HTML escaping off: a string of printable ASCII without '"' or '\'
// as it is, any other through encoding/json itself.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			b, err := marshalJSON(s)
			if err != nil { // a string always encodes
				panic(err)
			}
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// marshalJSON is json.Marshal with HTML escaping off, as the SDK encodes
// messages.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
