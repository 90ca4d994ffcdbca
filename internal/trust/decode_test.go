package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
)

// TestDecodeStoreAsDecode decodes documents with decodeStore (an entry
// at a time) and with the json.Decoder the store was read with before,
// and wants the same document, or an error from both.
func TestDecodeStoreAsDecode(t *testing.T) {
	docs := []string{
		`{"version": 1, "skills": {"/a": {"id": "a", "provider": "claude", "firstSeen": "2026-01-02T03:04:05Z", "accepted": true, "files": [{"path": "SKILL.md", "size": 3, "digest": "sha256:00"}]}}}`,
		`{"skills": {}, "version": 1}`,
		`{"Version": 1, "SKILLS": {"/a": {"ID": "x", "files": []}}}`,
		`{"version": 1, "skills": null}`,
		`{"version": 1}`,
		`{}`,
		`{"version": 1, "skills": {"/a": {"id": "one"}, "/a": {"provider": "two"}}}`,
		`{"version": 1, "skills": {"/a": {"id": "x"}}, "skills": {"/b": {"id": "y"}}}`,
		`{"version": 1, "skills": {"/a": {"id": "x"}}, "skills": null}`,
		`{"version": 1, "skills": {}} trailing`,
		`  {"version": 1, "skills": {"/a": {"acceptedAt": "2026-01-02T03:04:05Z", "files": [{"path": "l", "link": "../x"}]}}}`,
		// Errors.
		``,
		`   `,
		`[]`,
		`null`,
		`{"version": 1, "skills": {`,
		`{"version": 1, "skills": {"/a": {"id": "x"}}`,
		`{"version": 1, "skills": {}, "extra": true}`,
		`{"version": 1, "skills": {"/a": {"unknown": 1}}}`,
		`{"version": "1", "skills": {}}`,
		`{"version": 1, "skills": []}`,
		`{"version": 1, "skills": {"/a": []}}`,
		`{"version": 1, "skills": {"/a": {"files": [{"path": 1}]}}}`,
		`{"version": 1 "skills": {}}`,
		`{"version": 1, "skills": {"/a" {}}}`,
		`{"version": 1,}`,
	}
	for _, in := range docs {
		var want document
		dec := json.NewDecoder(bytes.NewReader([]byte(in)))
		dec.DisallowUnknownFields()
		wantErr := dec.Decode(&want)
		got, err := decodeStore([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%s: error %v, Decode's %v", in, err, wantErr)
			continue
		}
		if err == nil {
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s: (-Decode +decodeStore):\n%s", in, d)
			}
		}
	}
}

// TestDecodeStoreMemory decodes a store of 5,000 skills and wants it to
// allocate at least the file's size less than json.Decoder's Decode of
// the whole document, which buffered a copy of it in buffers grown by
// doubling (at 100,000 skills, 96 MB for a 37 MB file).
func TestDecodeStoreMemory(t *testing.T) {
	skills := map[string]Entry{}
	seen := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := range 5000 {
		dir := fmt.Sprintf("/home/someone/work/repository/.claude/skills/skill-%05d", i)
		skills[dir] = Entry{ID: fmt.Sprintf("skill-%05d", i), Provider: "project", FirstSeen: seen, Files: []manifest.File{
			{Path: "SKILL.md", Size: 1234, Digest: "sha256:" + fmt.Sprintf("%064x", i)},
			{Path: "references/guide.md", Size: 4321, Digest: "sha256:" + fmt.Sprintf("%064x", i+1)},
		}}
	}
	data, err := (&Store{Skills: skills}).encode()
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var whole document
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&whole); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	wholeAlloc := after.TotalAlloc - before.TotalAlloc
	runtime.GC()
	runtime.ReadMemStats(&before)
	doc, err := decodeStore(data)
	runtime.ReadMemStats(&after)
	if err != nil || len(doc.Skills) != len(skills) {
		t.Fatalf("decoded %d skills, %v; want %d", len(doc.Skills), err, len(skills))
	}
	if d := cmp.Diff(skills, doc.Skills); d != "" {
		t.Fatalf("decoded store differs (-encoded +decoded):\n%s", d)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc+uint64(len(data)) > wholeAlloc {
		t.Errorf("decoding a %d-byte store allocated %d bytes, Decode of the whole %d: want at least the file's size less",
			len(data), alloc, wholeAlloc)
	}
	t.Logf("decoding a %d-byte store allocated %d bytes; Decode of the whole document %d", len(data), alloc, wholeAlloc)
}
