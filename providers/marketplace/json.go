package marketplace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// This file holds the JSON helpers: bounded, non-blocking reads of the
// bookkeeping files and on-demand decoding of their fields.

// object is a decoded JSON object whose values are decoded on demand.
type object map[string]json.RawMessage

// readObject reads file as a JSON object, and records it in the plan's
// manifests whether or not it exists. It returns found=false, with no
// diagnostic, when the file does not exist. Any other problem is a warning
// with code "<kind>-unreadable", "<kind>-malformed" or "<kind>-invalid",
// and ok=false.
func (p *planner) readObject(file, kind string) (obj object, found, ok bool) {
	p.manifests = append(p.manifests, file) // read or looked for: either way, watched
	data, found, err := hostfile.Read(file)
	if !found {
		return nil, false, false
	}
	if err != nil {
		hint := "check the file's permissions"
		if errors.Is(err, safefile.ErrNotRegular) {
			hint = "only plain files are read; replace it with one"
		}
		p.report(pipeline.SeverityWarning, kind+"-unreadable", file,
			"cannot read %s: %v; %s", filepath.Base(file), err, hint)
		return nil, true, false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := syntaxError(data); err != nil {
		p.report(pipeline.SeverityWarning, kind+"-malformed", file,
			"%s is not valid JSON (%v); fix or delete the file", filepath.Base(file), err)
		return nil, true, false
	}
	obj, isObj := asObject(data)
	if !isObj {
		p.report(pipeline.SeverityWarning, kind+"-invalid", file,
			"%s must hold a JSON object at the top level; fix or delete the file", filepath.Base(file))
		return nil, true, false
	}
	return obj, true, true
}

// syntaxError returns nil when data is one valid JSON value, otherwise a
// description of the first syntax error with its byte offset.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%s at byte %d", se.Error(), se.Offset)
	}
	return err
}

// asObject decodes raw as a JSON object; null and other types are not
// objects.
func asObject(raw json.RawMessage) (object, bool) {
	var obj object
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// stringField returns the string at key. present is false when the key is
// absent or null; ok is false when it is present but not a string.
func (o object) stringField(key string) (s string, present, ok bool) {
	raw, exists := o[key]
	if !exists || string(raw) == "null" {
		return "", false, true
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", true, false
	}
	return s, true, true
}

// str returns the string at key, or "" when it is absent or not a string.
func (o object) str(key string) string {
	s, _, _ := o.stringField(key)
	return s
}

// stringList decodes a path list given as one string or an array of
// strings. present is false when the key is absent or null.
func (o object) stringList(key string) (list []string, present, ok bool) {
	raw, exists := o[key]
	if !exists || string(raw) == "null" {
		return nil, false, true
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, true, true
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, true, false
	}
	return list, true, true
}

// sortedKeys returns the keys of o in sorted order, for deterministic
// diagnostics.
func (o object) sortedKeys() []string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
