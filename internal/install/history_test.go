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

// TestHistoryUnchecked checks when an update says that the history guard
// did not run: a git source or a pinned clone whose lock entry holds no
// commit (or no repository), or no git; never under --force, for the
// same commit, or for a folder pinned to no repository.
func TestHistoryUnchecked(t *testing.T) {
	locked, next := strings.Repeat("a", 40), strings.Repeat("b", 40)
	git := Source{Kind: KindGit, URL: "https://example.com/r.git"}
	clone := Source{Kind: KindDir, Dir: "/src", Origin: Origin{URL: "https://example.com/r.git"}}
	for _, tc := range []struct {
		name   string
		in     Installer
		e      Entry
		src    Source
		commit string
		want   string // "" for no notice
	}{
		{"git, no locked commit", Installer{Git: &gitfetch.Git{}}, Entry{Name: "pdf", Source: git}, git, next,
			"history not checked: the lock records no commit for pdf, so nothing shows that bbbbbbbbbbbb follows"},
		{"git, no git", Installer{}, Entry{Name: "pdf", Source: git, Commit: locked}, git, next,
			"history not checked: git is not available"},
		{"clone, no locked repository", Installer{Git: &gitfetch.Git{}}, Entry{Name: "pdf", Source: Source{Kind: KindDir, Dir: "/src"}, Commit: locked},
			clone, next, "the lock records no repository for pdf"},
		{"checked", Installer{Git: &gitfetch.Git{}}, Entry{Name: "pdf", Source: git, Commit: locked}, git, next, ""},
		{"force", Installer{Git: &gitfetch.Git{}, Force: true}, Entry{Name: "pdf", Source: git}, git, next, ""},
		{"same commit", Installer{}, Entry{Name: "pdf", Source: git, Commit: next}, git, next, ""},
		{"folder of no repository", Installer{}, Entry{Name: "pdf", Source: Source{Kind: KindDir, Dir: "/src"}},
			Source{Kind: KindDir, Dir: "/src"}, next, ""},
	} {
		got := tc.in.historyUnchecked(tc.e, tc.src, tc.commit)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
