package hostfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/testfs"
)

func TestDecodeJSONC(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]any
		errLine int // 0: no error
		errHas  string
	}{
		{name: "plain JSON", in: `{"a": true}`, want: map[string]any{"a": true}},
		{name: "line and block comments", in: "{\n  // a comment\n  \"a\": /* inline */ true /* after */\n}",
			want: map[string]any{"a": true}},
		{name: "trailing commas in objects and arrays", in: "{\"a\": [1, 2,],\n \"b\": {\"c\": 1,},\n}",
			want: map[string]any{"a": []any{1.0, 2.0}, "b": map[string]any{"c": 1.0}}},
		{name: "a trailing comma before a comment", in: "{\"a\": 1, // last\n}", want: map[string]any{"a": 1.0}},
		{name: "comment markers inside strings are text", in: `{"url": "http://x/*y*/", "p": "a,}"}`,
			want: map[string]any{"url": "http://x/*y*/", "p": "a,}"}},
		{name: "escaped quote in a string", in: `{"q": "say \"//hi\"", "n": 1,}`,
			want: map[string]any{"q": `say "//hi"`, "n": 1.0}},
		{name: "byte order mark", in: "\ufeff{\"a\": 1}", want: map[string]any{"a": 1.0}},
		{name: "syntax error names its line", in: "{\n  // fine\n  \"a\": 1\n  \"b\": 2\n}", errLine: 4,
			errHas: "invalid character"},
		{name: "unterminated comment", in: "{\"a\": 1 /* open", errLine: 1},
		{name: "a lone comma is still an error", in: "{,}", errLine: 1},
		{name: "a comma after a comment after a brace is still an error", in: "[ /* c */ , 1]", errLine: 1},
		{name: "a value, a comment, then a trailing comma", in: "{\"a\": [1 /* c */ , ]}",
			want: map[string]any{"a": []any{1.0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]any
			err := DecodeJSONC([]byte(tt.in), &got)
			if tt.errLine != 0 {
				var se *SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("DecodeJSONC error = %v, want a *SyntaxError", err)
				}
				if se.Line != tt.errLine || !strings.Contains(se.Msg, tt.errHas) {
					t.Errorf("error %v, want line %d holding %q", se, tt.errLine, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !equalJSON(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDecodeJSONStrict checks that plain JSON decoding keeps comments an
// error: manifests such as plugin.json are strict JSON.
func TestDecodeJSONStrict(t *testing.T) {
	var v map[string]any
	err := DecodeJSON([]byte("{\n// no\n\"a\": 1}"), &v)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("DecodeJSON error = %v, want a syntax error on line 2", err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{"ok.json": "{}", "folder/": ""})
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, MaxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		path      string
		found     bool
		errTarget error
	}{
		{"a regular file", "ok.json", true, nil},
		{"a missing file is not an error", "missing.json", false, nil},
		{"a folder", "folder", true, safefile.ErrNotRegular},
		{"a file over the cap", "big.json", true, safefile.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, found, err := Read(filepath.Join(dir, tt.path))
			if found != tt.found {
				t.Errorf("found = %v, want %v", found, tt.found)
			}
			if tt.errTarget == nil {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if found && string(data) != "{}" {
					t.Errorf("data = %q", data)
				}
				return
			}
			if !errors.Is(err, tt.errTarget) {
				t.Errorf("Read error = %v, want %v", err, tt.errTarget)
			}
			if err != nil && strings.Contains(err.Error(), dir) {
				t.Errorf("error %q names the path; the caller does", err)
			}
		})
	}
}

func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if !equalJSON(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}
