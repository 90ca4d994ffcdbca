package security

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// png is a binary file larger than the head the rules read, so that its
// digest needs the rest read through the hash.
var png = "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00\x01\x02", 2*headSize)

// TestJudgeDigests: what Judge records of a skill is the manifest of its
// files, each with the digest of its whole content, a binary file read
// past its head included; the records of one folder share it, and a
// command's is its own file.
func TestJudgeDigests(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"a/SKILL.md":            skillHead + "Clean.\n",
		"a/references/guide.md": "# Guide\n",
		"a/assets/logo.png":     png,
		"a/.git/config":         "[core]\n",
		"cmd.md":                "---\ndescription: x\n---\nSummarise the diff.\n",
	})
	dir := filepath.Join(base, "a")
	a, b := record("claude:a", dir), record("codex:a", dir)
	cmd := &pipeline.Record{ID: "claude:/cmd", Type: pipeline.TypeCommand, Dir: base, File: filepath.Join(base, "cmd.md")}
	s := NewScanner()
	found, judged := Judge(context.Background(), s, []*pipeline.Record{a, b, cmd})
	if len(found) != 0 {
		t.Errorf("findings in clean skills: %v", found)
	}
	want, err := manifest.NewCache().Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	same := func(j pipeline.JudgedFile, f manifest.File) bool {
		return j.Path == f.Path && j.Size == f.Size && j.Digest == f.Digest
	}
	if got := judged[a]; !slices.EqualFunc(got, want.Files, same) {
		t.Errorf("judged of the skill:\n%+v\nwant the manifest of its folder:\n%+v", got, want.Files)
	}
	if !slices.Equal(judged[b], judged[a]) {
		t.Errorf("the records of one folder were not judged alike")
	}
	data := []byte("---\ndescription: x\n---\nSummarise the diff.\n")
	if got := judged[cmd]; !slices.Equal(got, pipeline.JudgedFiles{{Path: "cmd.md", Size: int64(len(data)), Digest: manifest.Digest(data)}}) {
		t.Errorf("judged of the command: %+v", got)
	}
}

// TestJudgeFromMemory: a file the scanner remembers keeps the digest it
// was judged with, and one remembered from a scan without digests is read
// again.
func TestJudgeFromMemory(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"a/SKILL.md": skillHead + "Clean.\n", "a/assets/logo.png": png})
	testfs.Age(t, base, time.Hour)
	dir := filepath.Join(base, "a")
	r := record("claude:a", dir)
	s := NewScanner()
	s.Skills(context.Background(), []string{r.File}) // remembered without digests
	read := s.FilesRead()
	_, first := Judge(context.Background(), s, []*pipeline.Record{r})
	if s.FilesRead() != read+2 {
		t.Errorf("files remembered without a digest: %d read, want both read again", s.FilesRead()-read)
	}
	read = s.FilesRead()
	_, again := Judge(context.Background(), s, []*pipeline.Record{r})
	if s.FilesRead() != read {
		t.Errorf("a second Judge read %d files, want none", s.FilesRead()-read)
	}
	if len(first[r]) != 2 || !slices.Equal(first[r], again[r]) {
		t.Errorf("from memory: %+v, first: %+v", again[r], first[r])
	}
}

// TestJudgeLeavesOut: a file the scan could not read whole as the rules
// read it has no digest, and is left out of what was judged, as is a
// skill whose folder is gone.
func TestJudgeLeavesOut(t *testing.T) {
	text := &file{data: []byte("# cut here"), cut: true, class: classText | classDoc}
	if d, n, err := wholeDigest(text, strings.NewReader(" and the rest")); d != "" || n != 0 || err != nil {
		t.Errorf("a text file cut at a read limit: digest %q of %d bytes (%v), want none", d, n, err)
	}
	whole := &file{data: []byte("# all of it"), class: classText}
	if d, n, _ := wholeDigest(whole, strings.NewReader("")); d != manifest.Digest(whole.data) || n != int64(len(whole.data)) {
		t.Errorf("a file read whole: %q of %d bytes", d, n)
	}
	head := []byte(png[:headSize])
	bin := &file{data: head, cut: true}
	if d, n, _ := wholeDigest(bin, bytes.NewReader([]byte(png[headSize:]))); d != manifest.Digest([]byte(png)) || n != int64(len(png)) {
		t.Errorf("a binary file: %q of %d bytes, want the digest of all %d", d, n, len(png))
	}
	big := &file{data: head, cut: true}
	if d, _, _ := wholeDigest(big, bytes.NewReader(make([]byte, maxDigest))); d != "" {
		t.Errorf("a binary file over %d bytes has a digest", maxDigest)
	}

	gone := record("claude:gone", filepath.Join(testfs.TempDir(t), "gone"))
	_, judged := Judge(context.Background(), NewScanner(), []*pipeline.Record{gone})
	if files, ok := judged[gone]; !ok || len(files) != 0 {
		t.Errorf("a skill whose folder is gone: %+v (listed %v), want no files", files, ok)
	}
}
