package manifest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDiff: files and recorded links compare alike, by path: a new link is
// added, a retargeted one or a file that became a link is changed.
func TestDiff(t *testing.T) {
	rec := []File{{Path: "SKILL.md", Size: 1, Digest: "sha256:1"}, {Path: "b.md", Size: 2, Digest: "sha256:2"},
		{Path: "out", Link: "../x"}}
	for _, tt := range []struct {
		name string
		cur  []File
		want Changes
	}{
		{name: "the same", cur: rec},
		{name: "a new link out", cur: append([]File{{Path: "a", Link: "/etc/passwd"}}, rec...),
			want: Changes{Added: []string{"a"}}},
		{name: "a link retargeted", cur: []File{rec[0], rec[1], {Path: "out", Link: "../y"}},
			want: Changes{Changed: []string{"out"}}},
		{name: "a file became a link", cur: []File{rec[0], {Path: "b.md", Link: "SKILL.md"}, rec[2]},
			want: Changes{Changed: []string{"b.md"}}},
		{name: "a link removed, a file resized", cur: []File{{Path: "SKILL.md", Size: 2, Digest: "sha256:1"}, rec[1]},
			want: Changes{Changed: []string{"SKILL.md"}, Removed: []string{"out"}}},
		{name: "unsorted input is sorted", cur: []File{rec[2], rec[1], rec[0]}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(rec, tt.cur)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
			if got.Empty() != (tt.want.Added == nil && tt.want.Changed == nil && tt.want.Removed == nil) {
				t.Errorf("Empty = %v", got.Empty())
			}
		})
	}
}
