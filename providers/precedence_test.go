package providers

import (
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

func TestHostOrderPrecedence(t *testing.T) {
	tests := []struct {
		order   HostOrder
		value   string
		prefer  pipeline.Location
		wantErr []string
	}{
		{ClaudeOrder, "", pipeline.LocationUser, nil},
		{ClaudeOrder, "project", pipeline.LocationProject, nil},
		{ClaudeOrder, " User ", pipeline.LocationUser, nil},
		{CodexOrder, "", pipeline.LocationProject, nil},
		{CodexOrder, "user", pipeline.LocationUser, nil},
		{AgentsOrder, "", pipeline.LocationProject, nil},
		{ClaudeOrder, "personal", "", []string{`providers.claude.precedence: invalid value "personal"`, "use user", "or project"}},
		{CodexOrder, "projects", "", []string{`providers.codex.precedence: invalid value "projects"`, `did you mean "project"?`}},
	}
	for _, tt := range tests {
		p, err := tt.order.Precedence(tt.value)
		if tt.wantErr != nil {
			if err == nil {
				t.Errorf("%s %q: no error", tt.order.Provider, tt.value)
				continue
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %q: error %q lacks %q", tt.order.Provider, tt.value, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tt.order.Provider, tt.value, err)
			continue
		}
		want := pipeline.Precedence{Prefer: tt.prefer, Option: "providers." + tt.order.Provider + ".precedence",
			HostPrefers: tt.order.Prefers, HostRule: tt.order.Rule}
		if *p != want {
			t.Errorf("%s %q = %+v, want %+v", tt.order.Provider, tt.value, *p, want)
		}
	}
}

// TestResolvePrecedence checks that the options land in Env, that an Env
// without them falls back to the hosts' orders, and that a bad value is an
// error naming its key.
func TestResolvePrecedence(t *testing.T) {
	var bare Env
	if got := bare.ClaudeRule(); *got != *ClaudeOrder.Default() {
		t.Errorf("ClaudeRule of a bare Env = %+v", *got)
	}
	if got := bare.CodexRule(); *got != *CodexOrder.Default() {
		t.Errorf("CodexRule of a bare Env = %+v", *got)
	}
	env, err := ResolvePrecedence(Env{}, "project", "user")
	if err != nil {
		t.Fatal(err)
	}
	if env.ClaudeRule().Prefer != pipeline.LocationProject || env.CodexRule().Prefer != pipeline.LocationUser {
		t.Errorf("rules = %+v, %+v", *env.ClaudeRule(), *env.CodexRule())
	}
	if _, err := ResolvePrecedence(Env{}, "", "both"); err == nil || !strings.Contains(err.Error(), "providers.codex.precedence") {
		t.Errorf("bad codex value: error %v, want one naming providers.codex.precedence", err)
	}
}
