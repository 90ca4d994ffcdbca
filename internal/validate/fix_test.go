package validate

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/skillmd"
)

func TestFix(t *testing.T) {
	const body = "\n# Body\n\nKept: as is.  \n"
	tests := []struct {
		name    string
		in, out string
		changes []string
	}{
		{"clean file is untouched", "---\nname: a\ndescription: b\n---\n" + body, "", nil},
		{"BOM", "\ufeff---\nname: a\ndescription: b\n---\n" + body,
			"---\nname: a\ndescription: b\n---\n" + body, []string{"removed the byte order mark"}},
		{"BOM without frontmatter is still stripped", "\ufeff# Title\n", "# Title\n",
			[]string{"removed the byte order mark"}},
		{"leading blank lines", "\n \n---\nname: a\ndescription: b\n---\n" + body,
			"---\nname: a\ndescription: b\n---\n" + body, []string{"removed 2 blank lines before the opening ---"}},
		{"CRLF in the frontmatter only", "---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\nline\r\n",
			"---\nname: a\ndescription: b\n---\nbody\r\nline\r\n",
			[]string{"converted the frontmatter's CRLF line endings to LF (the body is unchanged)"}},
		{"trailing space on delimiters", "---  \nname: a\ndescription: b\n--- \t\n" + body,
			"---\nname: a\ndescription: b\n---\n" + body, []string{"removed white space after ---"}},
		{"closing delimiter at end of file", "---\nname: a\ndescription: b\n--- ", "---\nname: a\ndescription: b\n---",
			[]string{"removed white space after ---"}},
		{"unquoted colon in description", "---\nname: a\ndescription: Use when: asked \"twice\" \\ ok # note\n---\n" + body,
			"---\nname: a\ndescription: \"Use when: asked \\\"twice\\\" \\\\ ok\" # note\n---\n" + body,
			[]string{`quoted the description value, which holds ": "`}},
		{"unquoted colon over continuation lines", "---\nname: a\ndescription: Use when: x\n  and: y\n---\n" + body,
			"---\nname: a\ndescription: \"Use when: x\n  and: y\"\n---\n" + body,
			[]string{`quoted the description value, which holds ": "`}},
		{"unquoted colon in another key is left alone", "---\nname: a\ndescription: b\nwhen_to_use: Use when: x\n---\n" + body,
			"", nil},
		{"unknown keys go to a new metadata", "---\nname: a\ndescription: b\nauthor: Ada # me\nrank: 3\n---\n" + body,
			"---\nname: a\ndescription: b\nmetadata:\n  author: \"Ada\" # me\n  rank: \"3\"\n---\n" + body,
			[]string{"moved author, rank under metadata as strings"}},
		{"unknown key joins metadata with its indentation", "---\nname: a\nteam: docs\nmetadata:\n    author: Ada\n\n# trailing comment\ndescription: b\n---\n" + body,
			"---\nname: a\nmetadata:\n    author: Ada\n    team: \"docs\"\n\n# trailing comment\ndescription: b\n---\n" + body,
			[]string{"moved team under metadata as a string"}},
		{"unknown key joins an empty metadata", "---\nname: a\ndescription: b\nmetadata:\nteam: docs\n---\n" + body,
			"---\nname: a\ndescription: b\nmetadata:\n  team: \"docs\"\n---\n" + body,
			[]string{"moved team under metadata as a string"}},
		{"flow metadata is not touched", "---\nname: a\ndescription: b\nmetadata: {x: y}\nteam: docs\n---\n" + body, "", nil},
		{"a key already in metadata is not moved", "---\nname: a\ndescription: b\nteam: docs\nmetadata:\n  team: ops\n---\n" + body, "", nil},
		{"a likely typo is not moved", "---\nname: a\ndescriptoin: b\n---\n" + body, "", nil},
		{"Claude Code keys are not moved", "---\nname: a\ndescription: b\nargument-hint: x\n---\n" + body, "", nil},
		{"lists, block scalars and multi-line values are not moved",
			"---\nname: a\ndescription: b\ntags:\n  - x\nnotes: |\n  n\nlong: one\n  two\n---\n" + body, "", nil},
		{"duplicate keys stop moving", "---\nname: a\ndescription: b\nteam: x\nteam: y\n---\n" + body, "", nil},
		{"everything at once", "\ufeff\r\n---  \r\nname: a\r\ndescription: Does: things\r\nowner: Ada\r\n---\r\nbody: é\r\n",
			"---\nname: a\ndescription: \"Does: things\"\nmetadata:\n  owner: \"Ada\"\n---\nbody: é\r\n",
			[]string{"removed the byte order mark", "removed 1 blank line before the opening ---",
				"converted the frontmatter's CRLF line endings to LF (the body is unchanged)", "removed white space after ---",
				`quoted the description value, which holds ": "`, "moved owner under metadata as a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changes := Fix([]byte(tt.in))
			want := tt.out
			if want == "" {
				want = tt.in
			}
			if d := cmp.Diff(want, string(got)); d != "" {
				t.Errorf("content (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.changes, changes); d != "" {
				t.Errorf("changes (-want +got):\n%s", d)
			}
		})
	}
}

// fixInputs returns every skill file of testdata plus hand-written hard
// cases: CRLF, BOM, unicode and trailing spaces in the frontmatter and
// the body.
func fixInputs(t *testing.T) map[string][]byte {
	t.Helper()
	in := map[string][]byte{
		"mixed": []byte("\ufeff\n---\t\r\nname: 名前\r\ndescription: Use when: ünïcode  \r\nauthor: Ada\r\n---  \r\n" +
			"\ufeffbody keeps its BOM-like rune,  \r\ntrailing spaces   \n---\n\tand tabs\r\n中文 ✓"),
		"body dashes":      []byte("---\nname: a\ndescription: b\nx: 1\n---\n---\nname: not frontmatter\n---\n"),
		"no final newline": []byte("---\r\nname: a\r\ndescription: b: c\r\n---"),
	}
	err := filepath.WalkDir(testdataDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(strings.TrimPrefix(d.Name(), "."), "skill.md") {
			return err
		}
		b, err := os.ReadFile(p)
		in[strings.TrimPrefix(p, testdataDir)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// bodyOf returns the bytes after the closing --- line, or false when the
// file has no readable frontmatter.
func bodyOf(b []byte) ([]byte, bool) {
	h, err := skillmd.ReadHead(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	return b[h.BodyOffset:], true
}

func TestFixIsIdempotentAndKeepsTheBody(t *testing.T) {
	for name, in := range fixInputs(t) {
		once, changes := Fix(in)
		twice, again := Fix(once)
		if !bytes.Equal(once, twice) || len(again) != 0 {
			t.Errorf("%s: a second Fix changed %v:\n%q\n%q", name, again, once, twice)
		}
		if len(changes) == 0 && !bytes.Equal(in, once) {
			t.Errorf("%s: content changed without a change listed", name)
		}
		before, ok := bodyOf(bytes.TrimPrefix(in, bom))
		if !ok {
			if !bytes.Equal(bytes.TrimPrefix(in, bom), once) {
				t.Errorf("%s: a file without readable frontmatter changed beyond its BOM", name)
			}
			continue
		}
		after, ok := bodyOf(once)
		if !ok {
			t.Errorf("%s: the fixed file lost its frontmatter:\n%s", name, once)
			continue
		}
		if !bytes.Equal(before, after) {
			t.Errorf("%s: the body changed:\n%q\n%q", name, before, after)
		}
	}
}

// TestFixClearsFixableFindings checks that every finding marked fixable in
// the fail/ cases is gone after Fix, and that Fix adds no new finding.
func TestFixClearsFixableFindings(t *testing.T) {
	for _, r := range Rules() {
		if !r.Fixable {
			continue
		}
		t.Run(r.Code, func(t *testing.T) {
			dir := copyCase(t, r.Code)
			targets, _, err := Collect(context.Background(), []string{filepath.Join(dir, "fail")}, KindSkill)
			if err != nil {
				t.Fatal(err)
			}
			before, _ := Run(context.Background(), targets, nil, Options{Profile: ProfileStrict})
			fixable := 0
			for _, f := range before.Findings {
				if f.Fixable {
					fixable++
				}
			}
			if fixable == 0 {
				t.Fatalf("no finding of the fail case is marked fixable: %+v", before.Findings)
			}
			after, fixes := Run(context.Background(), targets, nil, Options{Profile: ProfileStrict, Fix: true})
			if len(fixes) == 0 {
				t.Fatal("nothing was fixed")
			}
			for _, f := range after.Findings {
				if f.Fixable {
					t.Errorf("still there after --fix: %s %s", f.Code, f.Message)
				}
				if !containsFinding(before.Findings, f) {
					t.Errorf("new after --fix: %s %s", f.Code, f.Message)
				}
			}
			// The files were written: a new run without --fix agrees.
			again, _ := Run(context.Background(), targets, nil, Options{Profile: ProfileStrict})
			if d := cmp.Diff(after.Findings, again.Findings); d != "" {
				t.Errorf("the written files give other findings (-fixed run +fresh run):\n%s", d)
			}
		})
	}
}

// containsFinding reports whether fs has f's code and message in its file
// (lines may move when a fix removes lines above).
func containsFinding(fs []report.Finding, f report.Finding) bool {
	for _, g := range fs {
		if g.File == f.File && g.Code == f.Code && g.Message == f.Message {
			return true
		}
	}
	return false
}

func TestFixWritesSafely(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "store", "real.md")
	skill := filepath.Join(dir, "linked", "SKILL.md")
	os.MkdirAll(filepath.Dir(real), 0o755)
	os.MkdirAll(filepath.Dir(skill), 0o755)
	in := []byte("\ufeff---\nname: linked\ndescription: Does: things\n---\nbody\n")
	if err := os.WriteFile(real, in, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "store", "real.md"), skill); err != nil {
		t.Fatal(err)
	}
	targets := []Target{{File: skill}}

	// A dry run computes the fix and checks the fixed content, but writes
	// nothing.
	rep, fixes := Run(context.Background(), targets, nil, Options{Fix: true, DryRun: true})
	if len(fixes) != 1 || len(fixes[0].Changes) != 2 || !bytes.Equal(fixes[0].Before, in) {
		t.Fatalf("dry run fixes = %+v", fixes)
	}
	if b, _ := os.ReadFile(real); !bytes.Equal(b, in) {
		t.Fatalf("a dry run wrote the file: %q", b)
	}
	for _, f := range rep.Findings {
		if f.Code == CodeByteOrderMark || f.Code == CodeUnquotedColon {
			t.Errorf("the dry run reports %s, which the fix removes", f.Code)
		}
	}

	_, fixes = Run(context.Background(), targets, nil, Options{Fix: true})
	if len(fixes) != 1 || fixes[0].Err != nil {
		t.Fatalf("fixes = %+v", fixes)
	}
	st, err := os.Lstat(skill)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(real)
	if want := "---\nname: linked\ndescription: \"Does: things\"\n---\nbody\n"; string(b) != want {
		t.Errorf("target = %q, want %q", b, want)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(real))
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

// FuzzFix checks on any input that checking does not panic and that Fix
// is idempotent and keeps the body. go test runs the seeds; go test
// -fuzz FuzzFix ./validate/ explores further.
func FuzzFix(f *testing.F) {
	for _, s := range []string{
		"---\nname: a\ndescription: Use when: x\nauthor: b\n---\nbody\n",
		"\ufeff\r\n---  \r\nname: a\r\nmetadata:\r\n  k: v\r\nx: 1\r\n---\r\nbody",
		"---\nmetadata:\nteam: x\n---\n",
		"---\n{name: a, metadata: , x: y}\n---\n",
		"---\nname: [a\n---\n[l](../x) ![i](y.png)\n---\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte) {
		c := newChecker(filepath.Join(dir, "s", "SKILL.md"), in, nil)
		c.run()
		once, _ := Fix(in)
		if twice, again := Fix(once); !bytes.Equal(once, twice) || len(again) != 0 {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, once, twice, again)
		}
		if before, ok := bodyOf(bytes.TrimPrefix(in, bom)); ok {
			if after, ok := bodyOf(once); !ok || !bytes.Equal(before, after) {
				t.Fatalf("body changed: %q -> %q", in, once)
			}
		}
	})
}

// TestFixWriteNeedsTheFile: a SKILL.md deleted between the check and the
// write is not made again (it would get mode 0000 and new folders).
func TestFixWriteNeedsTheFile(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(dir, "deleted", "SKILL.md")
	if err := writeAtomic(gone, []byte("---\nname: x\n---\n")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want a not-exist error", err)
	}
	if _, err := os.Lstat(filepath.Dir(gone)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the write made the folder: %v", err)
	}
}
