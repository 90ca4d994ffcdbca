package pipeline

import "testing"

// TestIntegrityWords: Since and Describe say one thing of each state, as
// list's badge, info, sources and the skill tool's header show it.
func TestIntegrityWords(t *testing.T) {
	changed := Integrity{State: IntegrityChanged, Changed: []string{"a", "b"}, Removed: []string{"c"}}
	trusted := changed
	trusted.Accepted = true
	tests := []struct {
		in              Integrity
		since, describe string
	}{
		{changed, "changed since first seen", "changed since first seen: 2 files changed, 1 removed; review it, then run ccski trust x:y"},
		{trusted, "changed since trusted", "changed since trusted: 2 files changed, 1 removed; review it, then run ccski trust x:y"},
		{Integrity{State: IntegrityUnknown, Error: "no store"}, "", "integrity not checked: no store"},
		{Integrity{State: IntegrityTrusted, Accepted: true}, "", ""},
		{Integrity{State: IntegrityRecorded}, "", ""},
		{Integrity{State: IntegrityNew}, "", ""},
	}
	for _, tt := range tests {
		if got := tt.in.Since(); got != tt.since {
			t.Errorf("%+v: Since = %q, want %q", tt.in, got, tt.since)
		}
		if got := tt.in.Describe("x:y"); got != tt.describe {
			t.Errorf("%+v: Describe = %q, want %q", tt.in, got, tt.describe)
		}
	}
}
