package skillmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBody(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"no frontmatter: the whole file", "# T\n\nBody $1\n", "# T\n\nBody $1\n"},
		{"byte order mark dropped without frontmatter", "\ufeffBody", "Body"},
		{"byte order mark and frontmatter dropped", "\ufeff---\nname: x\n---\nBody", "Body"},
		{"only one byte order mark is dropped", "\ufeff\ufeff---\nname: x\n---\nB", "\ufeff---\nname: x\n---\nB"},
		{"frontmatter removed, body kept byte for byte", "---\ndescription: d\n---\n\nLine ```go\r\nx\r\n```\n", "\nLine ```go\r\nx\r\n```\n"},
		{"CRLF frontmatter", "---\r\nname: x\r\n---\r\nBody\r\n", "Body\r\n"},
		{"blank lines before the frontmatter", "\n\n---\nname: x\n---\nBody", "Body"},
		{"frontmatter only", "---\ndescription: d\n---\n", ""},
		{"closing delimiter at the end of the file", "---\ndescription: d\n---", ""},
		{"unclosed frontmatter: the whole file", "---\ndescription: d\n", "---\ndescription: d\n"},
		{"unclosed frontmatter less the byte order mark", "\ufeff---\ndescription: d\n", "---\ndescription: d\n"},
		{"empty file", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Body([]byte(tt.file)); string(got) != tt.want {
				t.Errorf("Body = %q, want %q", got, tt.want)
			}
			// CommandBody is Body, with the frontmatter error.
			got, err := CommandBody([]byte(tt.file))
			if strings.HasPrefix(tt.name, "unclosed") {
				if err == nil {
					t.Errorf("CommandBody: no error for an unclosed frontmatter")
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("CommandBody = %q, %v, want %q", got, err, tt.want)
			}
		})
	}
}

func TestReadBody(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(file, []byte("\ufeff---\nname: x\n---\n0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := int64(len("\ufeff---\nname: x\n---\n0123456789"))
	for _, tc := range []struct {
		limit int64
		want  string
		cut   bool
	}{
		{n, "0123456789", false},
		{n + 100, "0123456789", false},
		{n - 4, "012345", true},
		// Cut inside the frontmatter: it cannot be read, all is body.
		{8, "---\nn", true},
	} {
		got, err := ReadBody(file, tc.limit)
		if string(got) != tc.want || errors.Is(err, ErrTruncated) != tc.cut || (err != nil && !tc.cut) {
			t.Errorf("ReadBody(limit %d) = %q, %v; want %q, truncated %v", tc.limit, got, err, tc.want, tc.cut)
		}
	}
	if _, err := ReadBody(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err %v, want not exist", err)
	}
	if _, err := ReadBody(dir, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: err %v, want not a regular file", err)
	}
}

func TestTrimPartialRune(t *testing.T) {
	e := "é" // two bytes
	for _, tt := range []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		{"ab" + e, "ab" + e},
		{"ab" + e[:1], "ab"},
		{"€"[:2], ""},
		{"a€"[:3], "a"},
		{"a€", "a€"},
	} {
		if got := string(TrimPartialRune([]byte(tt.in))); got != tt.want {
			t.Errorf("TrimPartialRune(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
