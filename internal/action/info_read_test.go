package action

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadForInfo: without --full only previewBytes are read (a partial
// rune at the cut is dropped) and the cut is reported; with --full the
// whole file is read, up to the skill cap.
func TestReadForInfo(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.md")
	if err := os.WriteFile(small, []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.md")
	// "é" is two bytes: the cut at previewBytes falls inside one.
	content := append(bytes.Repeat([]byte("x"), previewBytes-1), bytes.Repeat([]byte("é"), 1000)...)
	if err := os.WriteFile(big, content, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file     string
		full     bool
		wantLen  int
		wantCut  bool
		wantSize int64
	}{
		{small, false, 4, false, 4},
		{small, true, 4, false, 4},
		{big, false, previewBytes - 1, true, int64(len(content))},
		{big, true, len(content), false, int64(len(content))},
	}
	for _, tt := range tests {
		data, size, cut, err := readForInfo(tt.file, tt.full)
		if err != nil || len(data) != tt.wantLen || cut != tt.wantCut || size != tt.wantSize {
			t.Errorf("readForInfo(%s, full=%v) = %d bytes, size %d, cut %v, %v; want %d, %d, %v",
				filepath.Base(tt.file), tt.full, len(data), size, cut, err, tt.wantLen, tt.wantSize, tt.wantCut)
		}
		if strings.ContainsRune(string(data), '\uFFFD') {
			t.Errorf("readForInfo(%s, full=%v) ends in a broken rune", filepath.Base(tt.file), tt.full)
		}
	}
}
