package filters

import (
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

func TestState(t *testing.T) {
	on := &pipeline.Record{ID: "claude:on"}
	off := &pipeline.Record{ID: "claude:off", Disabled: true}
	in := []*pipeline.Record{off, on}
	tests := []struct {
		state string
		kept  []string
		drops []drop
	}{
		{"", []string{"claude:on"}, []drop{{ID: "claude:off", Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`}}},
		{"enabled", []string{"claude:on"}, []drop{{ID: "claude:off", Reason: `disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`}}},
		{" Disabled ", []string{"claude:off"}, []drop{{ID: "claude:on", Reason: `enabled, and state "disabled" shows only disabled skills`}}},
		{"ALL", []string{"claude:off", "claude:on"}, []drop{}},
	}
	for _, tt := range tests {
		s, err := NewState(tt.state)
		if err != nil {
			t.Fatalf("NewState(%q): %v", tt.state, err)
		}
		if s.Name() != "state" {
			t.Errorf("Name() = %q, want state", s.Name())
		}
		out, dropped := s.Apply(in)
		if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
			t.Errorf("state %q keeps (-want +got):\n%s", tt.state, diff)
		}
		if diff := cmp.Diff(tt.drops, drops(dropped)); diff != "" {
			t.Errorf("state %q drops (-want +got):\n%s", tt.state, diff)
		}
	}

	_, err := NewState("on")
	if want := `unknown state "on"; valid states: enabled, disabled, all`; err == nil || err.Error() != want {
		t.Errorf("NewState(on) error = %v, want %q", err, want)
	}
}
