package manifest

import (
	"os"
	"testing"
	"time"
)

// TestCacheEditRestoringTime: an edit in place that keeps the size and
// sets the modification time back (touch -d, or a tool that preserves
// times) still moves the change time, which Linux reports, so the file is
// hashed again. Without change times such an edit cannot be seen (see the
// package documentation).
func TestCacheEditRestoringTime(t *testing.T) {
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	checkChange(t, old, "text-D", func(t *testing.T, p string) {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt([]byte("D"), 5); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		chtimes(t, p, old)
	})
}
