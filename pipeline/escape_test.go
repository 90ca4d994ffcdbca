package pipeline

import "testing"

func TestEscapeID(t *testing.T) {
	for id, want := range map[string]string{
		"codex:pdf":          "codex~3Apdf",
		"claude:@tools:lint": "claude~3A~40tools~3Alint",
		"codex@user:dup#2":   "codex~40user~3Adup~232",
		"a/b~c d":            "a~2Fb~7Ec~20d",
		"plain-name_1.0":     "plain-name_1.0",
		"ünï":                "~C3~BCn~C3~AF",
	} {
		if got := EscapeID(id); got != want {
			t.Errorf("EscapeID(%q) = %q, want %q", id, got, want)
		}
		if back := UnescapeID(want); back != id {
			t.Errorf("UnescapeID(%q) = %q, want %q", want, back, id)
		}
	}
	if got := UnescapeID("a~zz~4"); got != "a~zz~4" {
		t.Errorf("a '~' without two hex digits changed: %q", got)
	}
}
