package workflow

import (
	"strings"
	"testing"
)

func TestUpsertWorkflow(t *testing.T) {
	block := Block("codex", "Codex")
	tests := []struct{ name, in, want string }{
		{"empty", "", block + "\n"},
		{"blank", " \n\n", block + "\n"},
		{"no final newline", "# Rules", "# Rules\n\n" + block + "\n"},
		{"final newline", "# Rules\n", "# Rules\n\n" + block + "\n"},
		{"blank line at the end", "# Rules\n\n", "# Rules\n\n" + block + "\n"},
		{"CRLF", "# Rules\r\n", "# Rules\r\n\r\n" + strings.ReplaceAll(block, "\n", "\r\n") + "\r\n"},
		{"old block replaced in place", "a\n<workflow name=\"ccski\">\nold\n</workflow>\nb\n", "a\n" + block + "\nb\n"},
		{"single quotes and more attributes", "<workflow id=\"1\" name='ccski' v=2>x</workflow> tail", block + " tail"},
		{"another workflow kept", "<workflow name=\"other\">o</workflow>\n",
			"<workflow name=\"other\">o</workflow>\n\n" + block + "\n"},
		{"a block in a code fence is an example, not the block",
			"```md\n<workflow name=\"ccski\">example</workflow>\n```\n",
			"```md\n<workflow name=\"ccski\">example</workflow>\n```\n\n" + block + "\n"},
		{"a closing tag in a code fence inside the block is not its end",
			"<workflow name=\"ccski\">\n~~~\n</workflow>\n~~~\n</workflow>\ntail\n", block + "\ntail\n"},
		{"the next workflow after the block is kept",
			"<workflow name=\"ccski\">old</workflow>\n<workflow name=\"deploy\">run make deploy</workflow>\n",
			block + "\n<workflow name=\"deploy\">run make deploy</workflow>\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Upsert([]byte(tt.in), block)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if again, err := Upsert(got, block); err != nil || string(again) != string(got) {
				t.Errorf("not idempotent: %v\n%q", err, again)
			}
		})
	}
}

// TestUpsertWorkflowRefuses: a block that is not closed before the next
// <workflow>, or never, is an error naming its line: replacing up to the
// next </workflow> would delete the user's text.
func TestUpsertWorkflowRefuses(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"another workflow inside", "# Notes\n<workflow name=\"ccski\">\n(draft)\n## Deploy\n<workflow name=\"deploy\">run make deploy</workflow>\n## Keep me\n",
			"element at line 2 is not closed before the <workflow> at line 5"},
		{"never closed", "<workflow name=\"ccski\">\ndraft\n```\n</workflow>\n```\n", "element at line 1 is never closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Upsert([]byte(tt.in), Block("claude", "Claude Code"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error holding %q", err, tt.want)
			}
		})
	}
}

// TestWorkflowBlockNamesTheAgent: each agent's block runs ccski in that
// agent's view, so that what the block says about skills turned off is
// true.
func TestWorkflowBlockNamesTheAgent(t *testing.T) {
	b := Block("gemini", "Gemini CLI")
	for _, want := range []string{"`ccski list --agent gemini`", "`ccski search --agent gemini \"<words>\"`",
		"`ccski info --agent gemini <name> --full`", "turned off for Gemini CLI stays off"} {
		if !strings.Contains(b, want) {
			t.Errorf("the block lacks %q:\n%s", want, b)
		}
	}
}
