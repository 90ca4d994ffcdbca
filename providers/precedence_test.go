package providers

import (
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// The orders of two made-up hosts, one that prefers each level.
var (
	personalFirst = HostOrder{Provider: "alpha", Prefers: pipeline.LocationUser, Rule: "Alpha ranks personal first"}
	projectFirst  = HostOrder{Provider: "beta", Prefers: pipeline.LocationProject, Rule: "Beta ranks the repo first"}
)

// TestHostOrderPrecedence checks the rule each option value gives: the
// host's own order for "", the level named otherwise, in any case. A value
// configs would have refused keeps the host's order: nothing checks it a
// second time.
func TestHostOrderPrecedence(t *testing.T) {
	tests := []struct {
		order  HostOrder
		value  PrecedenceOption
		prefer pipeline.Location
	}{
		{personalFirst, "", pipeline.LocationUser},
		{personalFirst, "project", pipeline.LocationProject},
		{personalFirst, " User ", pipeline.LocationUser},
		{projectFirst, "", pipeline.LocationProject},
		{projectFirst, "user", pipeline.LocationUser},
		{projectFirst, "Project", pipeline.LocationProject},
		{personalFirst, "personal", pipeline.LocationUser},
		{projectFirst, "both", pipeline.LocationProject},
	}
	for _, tt := range tests {
		got := tt.order.Precedence(tt.value)
		want := pipeline.Precedence{Prefer: tt.prefer, Option: "providers." + tt.order.Provider + ".precedence",
			HostPrefers: tt.order.Prefers, HostRule: tt.order.Rule}
		if *got != want {
			t.Errorf("%s %q = %+v, want %+v", tt.order.Provider, tt.value, *got, want)
		}
	}
	if got := (PrecedenceOption("")).Values(); len(got) != 2 || got[0] != "user" || got[1] != "project" {
		t.Errorf("PrecedenceOption.Values() = %q, want user, project", got)
	}
}

// TestHostOrderFrom checks that another provider follows the rule the
// order's provider set in Env.Rules, and the host's own order when it set
// none.
func TestHostOrderFrom(t *testing.T) {
	if got := personalFirst.From(Env{}); *got != *personalFirst.Default() {
		t.Errorf("From a bare Env = %+v, want the host's order", *got)
	}
	set := personalFirst.Precedence("project")
	env := Env{Rules: map[string]*pipeline.Precedence{"alpha": set, "beta": projectFirst.Precedence("user")}}
	if got := personalFirst.From(env); got != set {
		t.Errorf("From = %+v, want the rule alpha set, %+v", *got, *set)
	}
}
