package report

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// TestProgressDrawsAndWipes checks the progress line: each percentage
// once, rewritten in place, the item made safe to print, and wiped by
// Done so that what follows starts on a clean line.
func TestProgressDrawsAndWipes(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, "installing", 3)
	p.Step("pdf")
	p.Step("docx\x1b]0;pwned\x07")
	p.Step("a-skill-with-a-name-much-longer-than-forty-characters-in-all")
	p.Done()
	got := b.String()
	frames := strings.Split(got, "\r")
	want := []string{"", "ccski: installing 1/3 pdf", "ccski: installing 2/3 docx", "ccski: installing 3/3 a-skill-with-a-name-much-longer-than-fo…"}
	if len(frames) != 6 {
		t.Fatalf("frames %q: want three lines, a wipe and a return", frames)
	}
	for i, w := range want {
		if !strings.HasPrefix(frames[i], w) {
			t.Errorf("frame %d is %q, want %q", i, frames[i], w)
		}
	}
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("control characters reach the terminal: %q", got)
	}
	if wipe := frames[4]; strings.TrimSpace(wipe) != "" || utf8.RuneCountInString(wipe) < utf8.RuneCountInString(frames[3]) {
		t.Errorf("Done wrote %q, want spaces over the whole last line %q", wipe, frames[3])
	}
	if frames[5] != "" {
		t.Errorf("after the wipe: %q, want the cursor back at the line's start", frames[5])
	}
}

// TestProgressAtMostOneLinePerPercent checks that a long run draws a
// line per percentage, not per step, and that steps from several
// goroutines are all counted.
func TestProgressAtMostOneLinePerPercent(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, "scanning", 10000)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2500 {
				p.Step(fmt.Sprintf("skill-%d-%d", g, i))
			}
		})
	}
	wg.Wait()
	// 0% at the first step, then each percentage.
	if n := strings.Count(b.String(), "ccski: scanning"); n != 101 {
		t.Errorf("%d lines drawn for 10000 steps, want 101", n)
	}
	if !strings.Contains(b.String(), "scanning 10000/10000") {
		t.Errorf("the last line does not count every step: %q", b.String()[max(0, b.Len()-80):])
	}
}

// TestProgressNilIsQuiet checks that no writer means no progress, and
// that a nil Progress can be stepped and finished.
func TestProgressNilIsQuiet(t *testing.T) {
	var p *Progress = NewProgress(nil, "installing", 5)
	if p != nil {
		t.Fatal("NewProgress(nil) is not nil")
	}
	p.Step("pdf")
	p.Done()
	if NewProgress(&bytes.Buffer{}, "installing", 0) != nil {
		t.Error("a progress of no steps is not nil")
	}
}
