package providers

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesWriteRefusesChangedFiles: a file another program wrote after
// it was read (or made, when it was missing) is left as that program
// wrote it, and no file of the set is written when one of them changed.
func TestFilesWriteRefusesChangedFiles(t *testing.T) {
	tests := []struct {
		name   string
		before map[string]string // the files when read; missing ones are absent
		other  map[string]string // what another program writes before Write
		want   map[string]string // the files after Write
		failed string            // the file Write names, or "" for success
	}{
		{name: "unchanged", before: map[string]string{"a": "1", "b": "1"}, other: nil,
			want: map[string]string{"a": "new a", "b": "new b"}},
		{name: "changed meanwhile", before: map[string]string{"a": "1", "b": "1"}, other: map[string]string{"b": "2"},
			want: map[string]string{"a": "1", "b": "2"}, failed: "b"},
		{name: "made meanwhile", before: map[string]string{"a": "1"}, other: map[string]string{"b": "theirs"},
			want: map[string]string{"a": "1", "b": "theirs"}, failed: "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := func(n string) string { return filepath.Join(dir, n) }
			for n, c := range tt.before {
				os.WriteFile(p(n), []byte(c), 0o644)
			}
			fs := NewFiles()
			for _, n := range []string{"a", "b"} {
				if _, _, err := fs.Read(p(n)); err != nil {
					t.Fatal(err)
				}
				fs.Set(p(n), []byte("new "+n))
			}
			for n, c := range tt.other {
				os.WriteFile(p(n), []byte(c), 0o644)
			}
			err := fs.Write()
			var ce *ChangedError
			switch {
			case tt.failed == "" && err != nil:
				t.Fatal(err)
			case tt.failed != "" && (!errors.As(err, &ce) || ce.File != p(tt.failed) || !strings.Contains(err.Error(), "run the command again")):
				t.Fatalf("got %v, want a ChangedError naming %s", err, tt.failed)
			}
			for n, c := range tt.want {
				if got, _ := os.ReadFile(p(n)); string(got) != c {
					t.Errorf("%s holds %q, want %q", n, got, c)
				}
			}
		})
	}
}
