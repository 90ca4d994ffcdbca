//go:build unix

package search

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// TestFIFOBodyNeverBlocks: a FIFO standing in for SKILL.md, with no
// writer, is skipped rather than waited on, whether its body is needed to
// match or only for a snippet.
func TestFIFOBodyNeverBlocks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "SKILL.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	recs := []*pipeline.Record{{Name: "pipe", Agent: "claude", Description: "A named pipe.", File: fifo}}
	pipeline.AssignIDs(recs)
	done := make(chan []Hit, 2)
	go func() {
		h1, _ := Rank(recs, "pipe", Options{Content: true})      // snippet only
		h2, _ := Rank(recs, "pipe body", Options{Content: true}) // body needed
		done <- h1
		done <- h2
	}()
	for _, want := range []int{1, 0} {
		select {
		case hits := <-done:
			if len(hits) != want || (want == 1 && hits[0].Snippet != "") {
				t.Errorf("hits %+v, want %d without a snippet", hits, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("Rank blocked on a FIFO")
		}
	}
}
