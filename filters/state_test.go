package filters

import (
	"strings"
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

// TestStateHostSwitches: a skill every host that reads it turns off is
// disabled in the default view; one host's view counts only that host's
// switches; name-only limits but never hides.
func TestStateHostSwitches(t *testing.T) {
	sw := func(host, mode string) pipeline.HostSwitch {
		return pipeline.HostSwitch{Host: host, Title: host, Mode: mode, File: "/s/settings.json", Scope: "user", Setting: "x"}
	}
	claudeOff := &pipeline.Record{ID: "claude:a", Hosts: []string{"claude"}, Off: []pipeline.HostSwitch{sw("claude", "off")}}
	sharedHalf := &pipeline.Record{ID: "agents:b", Hosts: []string{"codex", "gemini"}, Off: []pipeline.HostSwitch{sw("codex", "off")}}
	sharedBoth := &pipeline.Record{ID: "agents:c", Hosts: []string{"codex", "gemini"},
		Off: []pipeline.HostSwitch{sw("codex", "off"), sw("gemini", "off")}}
	limited := &pipeline.Record{ID: "claude:d", Hosts: []string{"claude"}, Off: []pipeline.HostSwitch{sw("claude", "name-only")}}
	in := []*pipeline.Record{claudeOff, sharedHalf, sharedBoth, limited}
	hosts := []string{"claude", "codex", "gemini"}
	tests := []struct {
		state, agent string
		kept         []string
	}{
		{"enabled", "", []string{"agents:b", "claude:d"}},
		{"enabled", "all", []string{"agents:b", "claude:d"}},
		{"enabled", "codex", []string{"claude:a", "claude:d"}},
		{"enabled", "gemini", []string{"claude:a", "agents:b", "claude:d"}},
		{"enabled", "claude", []string{"agents:b", "agents:c", "claude:d"}},
		{"disabled", "", []string{"claude:a", "agents:c"}},
		{"all", "claude", []string{"claude:a", "agents:b", "agents:c", "claude:d"}},
	}
	for _, tt := range tests {
		s, err := NewStateFor(tt.state, tt.agent, hosts)
		if err != nil {
			t.Fatal(err)
		}
		out, dropped := s.Apply(in)
		if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
			t.Errorf("state %q agent %q keeps (-want +got):\n%s", tt.state, tt.agent, diff)
		}
		for _, d := range dropped {
			if tt.state == "enabled" && !strings.Contains(d.Reason, "off in ") {
				t.Errorf("drop reason %q does not say where it is off", d.Reason)
			}
		}
	}
	if _, err := NewStateFor("", "cursor", hosts); err == nil || !strings.Contains(err.Error(), "valid agents: all, claude, codex, gemini") {
		t.Errorf("unknown agent: %v", err)
	}
}
