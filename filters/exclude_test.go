package filters

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExclude(t *testing.T) {
	tests := []struct {
		name   string
		tokens []string
		kept   []string
	}{
		{"none", nil, ids(scan())},
		{"bare name removes every copy and nothing else", []string{"pdf"},
			[]string{"claude:@document-skills:docx", "cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"provider, not the skill of the same name", []string{"codex"},
			[]string{"claude:pdf", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
				"cursor:review", "agents:review", "claude:foo", "gemini:codex"}},
		{"auto does not dedupe", []string{"auto"}, []string{}},
		{"record id removes one copy", []string{"claude:pdf"},
			[]string{"codex:PDF", "claude:@example-skills:pdf", "claude:@document-skills:docx", "custom:docs:pdf",
				"cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"plugins", []string{"@plugins"},
			[]string{"claude:pdf", "codex:PDF", "custom:docs:pdf", "cursor:review", "agents:review", "codex:foo", "claude:foo", "gemini:codex"}},
		{"location", []string{"all@user,all@plugin,file"}, []string{"codex:PDF", "cursor:review", "claude:foo"}},
	}
	for _, tt := range tests {
		in := scan()
		out, dropped := Exclude(mustParse(t, tt.tokens...)).Apply(in)
		if diff := cmp.Diff(tt.kept, ids(out)); diff != "" {
			t.Errorf("%s: --exclude %q keeps (-want +got):\n%s", tt.name, tt.tokens, diff)
		}
		checkPartition(t, in, out, dropped)
	}
}

func TestExcludeReasons(t *testing.T) {
	out, dropped := Exclude(mustParse(t, "review,Foo", "all:*")).Apply(scan()[5:9])
	if len(out) != 0 {
		t.Errorf("kept %v, want nothing", ids(out))
	}
	want := []drop{
		{ID: "cursor:review", Reason: "excluded by --exclude review"},
		{ID: "agents:review", Reason: "excluded by --exclude review"},
		{ID: "codex:foo", Reason: "excluded by --exclude Foo"},
		{ID: "claude:foo", Reason: "excluded by --exclude Foo"},
	}
	if diff := cmp.Diff(want, drops(dropped)); diff != "" {
		t.Errorf("drops (-want +got):\n%s", diff)
	}
}
