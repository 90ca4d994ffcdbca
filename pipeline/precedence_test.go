package pipeline

import "testing"

func TestPrecedenceRule(t *testing.T) {
	claude := Precedence{Prefer: LocationUser, Option: "providers.claude.precedence", HostPrefers: LocationUser,
		HostRule: "Claude Code ranks personal over project"}
	reversed := claude
	reversed.Prefer = LocationProject
	tests := []struct {
		p    Precedence
		want string
	}{
		{claude, "Claude Code ranks personal over project (providers.claude.precedence: user)"},
		{reversed, "project over user (providers.claude.precedence: project; by default, Claude Code ranks personal over project)"},
	}
	for _, tt := range tests {
		if got := tt.p.Rule(); got != tt.want {
			t.Errorf("Rule() = %q\nwant     %q", got, tt.want)
		}
	}
}

func TestKindLevel(t *testing.T) {
	want := map[Kind]Location{
		KindCustom: "", KindProject: "", KindSystem: "", KindPlugin: "", KindRemote: "", "": "",
		KindWorkspaceAgent: LocationProject, KindWorkspaceShared: LocationProject, KindWorkspaceRoot: LocationProject,
		KindUserAgent: LocationUser, KindUserShared: LocationUser,
	}
	for _, k := range DefaultPriority() {
		if _, ok := want[k]; !ok {
			t.Errorf("kind %q has no expected level", k)
		}
	}
	for k, l := range want {
		if got := k.Level(); got != l {
			t.Errorf("Kind(%q).Level() = %q, want %q", k, got, l)
		}
	}
	for in, out := range map[Location]Location{LocationUser: LocationProject, LocationProject: LocationUser,
		LocationSystem: "", LocationPlugin: "", "": ""} {
		if got := OtherLevel(in); got != out {
			t.Errorf("OtherLevel(%q) = %q, want %q", in, got, out)
		}
	}
}
