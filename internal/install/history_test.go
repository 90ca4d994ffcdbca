package install

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/gitfetch"
)

// TestHistoryErrors checks what a refused update and a restore of a
// vanished commit say: which of the two it looks like, and what to do.
func TestHistoryErrors(t *testing.T) {
	locked, next := strings.Repeat("a", 40), strings.Repeat("b", 40)
	for h, want := range map[gitfetch.History][]string{
		gitfetch.Behind:    {"moved back", "force-push"},
		gitfetch.Rewritten: {"rewritten", "force-push", "share older commits"},
		gitfetch.Unrelated: {"shares no commit", "someone else"},
		gitfetch.Gone:      {"gone", "rewritten", "someone else"},
	} {
		err := error(&historyError{name: "pdf", url: "https://example.com/r.git", locked: locked, commit: next, history: h})
		if !errors.Is(err, ErrHistory) {
			t.Errorf("%v: not ErrHistory", h)
		}
		for _, w := range append(want, "https://example.com/r.git", locked[:12], "Review the new history", "`ccski update pdf --force`") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", h, err, w)
			}
		}
	}
	e := Entry{Name: "pdf", Commit: locked}
	err := goneError(e, "https://example.com/r.git", &gitfetch.GitError{URL: "https://example.com/r.git", Ref: locked, Kind: gitfetch.ErrUnknownRef})
	for _, w := range []string{locked, "is gone from https://example.com/r.git", "force-push", "someone else", "--force"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("goneError: %q does not say %q", err, w)
		}
	}
	other := &gitfetch.GitError{Kind: gitfetch.ErrNetwork}
	if goneError(e, "u", other) != error(other) {
		t.Error("goneError rewrote a network error")
	}
}
