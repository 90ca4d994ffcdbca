package skillmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeCommand(t *testing.T) {
	tests := []struct {
		name  string
		file  string
		want  Command
		codes []string // problem codes, in order
		fatal bool
		line  int // line of the first problem, when checked
	}{
		{name: "no frontmatter: the first line is the description",
			file: "Review the code in $ARGUMENTS.\n\nMore.\n",
			want: Command{Description: "Review the code in $ARGUMENTS."}},
		{name: "leading blank lines and heading marks are trimmed",
			file: "\n  \n##   Deploy the   service ##\nBody\n",
			want: Command{Description: "Deploy the service ##"}},
		{name: "a heading of marks only is skipped",
			file: "#\n###\n  Real text\n",
			want: Command{Description: "Real text"}},
		{name: "byte order mark without frontmatter",
			file: "\ufeffHello there\n",
			want: Command{Description: "Hello there"}},
		{name: "empty file", file: "", want: Command{}},
		{name: "a horizontal rule later is not frontmatter",
			file: "Intro line\n---\nmore\n",
			want: Command{Description: "Intro line"}},
		{name: "frontmatter description wins over the body",
			file: "---\ndescription: From   the\n  frontmatter\n---\n# Heading\n",
			want: Command{Description: "From the frontmatter", HasFrontmatter: true}},
		{name: "frontmatter without description falls back to the body",
			file: "---\nargument-hint: <file>\n---\n\n# Fix a bug\n",
			want: Command{Description: "Fix a bug", ArgumentHint: "<file>", HasFrontmatter: true}},
		{name: "empty description falls back to the body",
			file: "---\ndescription: \"\"\n---\nBody line\n",
			want: Command{Description: "Body line", HasFrontmatter: true}},
		{name: "null description falls back to the body",
			file: "---\ndescription:\n---\nBody line\n",
			want: Command{Description: "Body line", HasFrontmatter: true}},
		{name: "empty frontmatter",
			file: "---\n---\nJust the body\n",
			want: Command{Description: "Just the body", HasFrontmatter: true}},
		{name: "comments only",
			file: "---\n# a comment\n---\nBody\n",
			want: Command{Description: "Body", HasFrontmatter: true}},
		{name: "typed description is read as written",
			file: "---\ndescription: 42\n---\n",
			want: Command{Description: "42", HasFrontmatter: true}},
		{name: "description that is a list: body fallback with a warning",
			file:  "---\ndescription: [a, b]\n---\nFallback\n",
			want:  Command{Description: "Fallback", HasFrontmatter: true},
			codes: []string{"command-description-type"}, line: 2},
		{name: "argument-hint as a YAML list keeps its text",
			file: "---\ndescription: d\nargument-hint: [message]\n---\n",
			want: Command{Description: "d", ArgumentHint: "[message]", HasFrontmatter: true}},
		{name: "argument-hint that is not YAML is read as text with a warning",
			file:  "---\ndescription: d\nargument-hint: [pr-number] [priority] [assignee]\n---\n",
			want:  Command{Description: "d", ArgumentHint: "[pr-number] [priority] [assignee]", HasFrontmatter: true},
			codes: []string{"command-argument-hint-unquoted"}, line: 3},
		{name: "argument-hint with a quote inside survives the recovery",
			file:  "---\nargument-hint: [it's] [x]\n---\nBody\n",
			want:  Command{Description: "Body", ArgumentHint: "[it's] [x]", HasFrontmatter: true},
			codes: []string{"command-argument-hint-unquoted"}},
		{name: "CRLF line endings",
			file:  "---\r\ndescription: Windows\r\nargument-hint: [a] [b]\r\n---\r\nBody\r\n",
			want:  Command{Description: "Windows", ArgumentHint: "[a] [b]", HasFrontmatter: true},
			codes: []string{"command-argument-hint-unquoted"}},
		{name: "unknown keys are ignored",
			file: "---\ndescription: d\nallowed-tools: Bash(git:*)\nmodel: opus\n---\n",
			want: Command{Description: "d", HasFrontmatter: true}},
		{name: "unclosed frontmatter is fatal",
			file: "---\ndescription: d\nBody\n", codes: []string{"command-unclosed-frontmatter"}, fatal: true, line: 1},
		{name: "invalid YAML is fatal and names the line",
			file: "---\ndescription: ok\nbad: \"unterminated\n---\nBody\n", codes: []string{"command-yaml-syntax"}, fatal: true},
		{name: "bad indentation is fatal",
			file: "---\ndescription: d\n  handoffs:\n - x\n---\n", codes: []string{"command-yaml-syntax"}, fatal: true},
		{name: "a list is not a mapping",
			file: "---\n- a\n- b\n---\n", codes: []string{"command-yaml-syntax"}, fatal: true, line: 2},
		{name: "invalid UTF-8 is fatal",
			file: "---\ndescription: \xff\xfe\n---\n", codes: []string{"command-yaml-syntax"}, fatal: true},
		{name: "an argument-hint fix does not rescue other broken YAML",
			file: "---\nargument-hint: [a] [b]\ndescription: \"open\n---\n", codes: []string{"command-yaml-syntax"}, fatal: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, probs := DecodeCommand([]byte(tt.file))
			var codes []string
			fatal := false
			for _, p := range probs {
				codes = append(codes, p.Code)
				fatal = fatal || p.Fatal
				if p.Message == "" {
					t.Errorf("problem %s has no message", p.Code)
				}
			}
			if d := cmp.Diff(tt.codes, codes); d != "" {
				t.Errorf("problem codes (-want +got):\n%s", d)
			}
			if fatal != tt.fatal {
				t.Errorf("fatal = %v, want %v", fatal, tt.fatal)
			}
			if tt.line != 0 && len(probs) > 0 && probs[0].Line != tt.line {
				t.Errorf("line = %d, want %d", probs[0].Line, tt.line)
			}
			if tt.fatal {
				return
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("command (-want +got):\n%s", d)
			}
		})
	}
}

// TestDecodeCommandHandoffs checks that handoffs come out as the JSON the
// YAML means, including aliases, merges and typed scalars, and that a
// handoff cycle between commands is kept as written.
func TestDecodeCommandHandoffs(t *testing.T) {
	tests := []struct {
		name  string
		front string
		want  string // the handoffs as JSON; "" for none
		codes []string
	}{
		{name: "spec-kit style list, with a cycle back to this command",
			front: "handoffs:\n  - label: Build Technical Plan\n    agent: speckit.plan\n    prompt: Create a plan for the spec. I am building with...\n    send: true\n  - label: Clarify\n    agent: speckit.specify\n",
			want:  `[{"agent":"speckit.plan","label":"Build Technical Plan","prompt":"Create a plan for the spec. I am building with...","send":true},{"agent":"speckit.specify","label":"Clarify"}]`},
		{name: "typed scalars",
			front: "handoffs:\n  n: 3\n  big: 18446744073709551615\n  f: 1.5\n  no: false\n  nil: null\n  s: '007'\n  nan: .nan\n  when: 2024-01-02\n",
			want:  `{"big":18446744073709551615,"f":1.5,"n":3,"nan":".nan","nil":null,"no":false,"s":"007","when":"2024-01-02"}`},
		{name: "aliases are expanded",
			front: "base: &b {agent: x, send: true}\nhandoffs:\n  - *b\n  - *b\n",
			want:  `[{"agent":"x","send":true},{"agent":"x","send":true}]`},
		{name: "merge keys do not override written keys",
			front: "base: &b {agent: x, label: base}\nhandoffs:\n  - <<: *b\n    label: own\n",
			want:  `[{"agent":"x","label":"own"}]`},
		{name: "handoffs given as an alias",
			front: "base: &b [a, b]\nhandoffs: *b\n",
			want:  `["a","b"]`},
		{name: "empty handoffs are null: none",
			front: "handoffs:\n", want: ""},
		{name: "an alias that contains itself is left out with a warning",
			front: "handoffs: &h\n  - *h\n", want: "", codes: []string{"command-handoffs-invalid"}},
		{name: "a mapping key that is a list is left out with a warning",
			front: "handoffs:\n  ? [a, b]\n  : x\n", want: "", codes: []string{"command-handoffs-invalid"}},
		{name: "billion laughs is capped",
			front: laughs(), want: "", codes: []string{"command-handoffs-invalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, probs := DecodeCommand([]byte("---\ndescription: d\n" + tt.front + "---\nBody\n"))
			var codes []string
			for _, p := range probs {
				codes = append(codes, p.Code)
				if p.Fatal {
					t.Errorf("fatal problem %s: %s", p.Code, p.Message)
				}
			}
			if d := cmp.Diff(tt.codes, codes); d != "" {
				t.Errorf("problems (-want +got):\n%s", d)
			}
			if tt.want == "" {
				if c.Handoffs != nil {
					t.Errorf("handoffs = %#v, want none", c.Handoffs)
				}
				return
			}
			got, err := json.Marshal(c.Handoffs)
			if err != nil {
				t.Fatalf("handoffs do not marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("handoffs =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// laughs is a frontmatter whose handoffs expand to 10^6 values.
func laughs() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f"} {
		b.WriteString(n + ": &" + n + " [")
		for i := range 10 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = n
	}
	b.WriteString("handoffs: *f\n")
	return b.String()
}

func TestCommandBody(t *testing.T) {
	tests := []struct {
		name, file, want string
		err              bool
	}{
		{"no frontmatter: the whole file", "# T\n\nBody $1\n", "# T\n\nBody $1\n", false},
		{"byte order mark dropped", "\ufeffBody", "Body", false},
		{"frontmatter removed, body kept byte for byte", "---\ndescription: d\n---\n\nLine ```go\r\nx\r\n```\n", "\nLine ```go\r\nx\r\n```\n", false},
		{"frontmatter only", "---\ndescription: d\n---\n", "", false},
		{"closing delimiter at the end of the file", "---\ndescription: d\n---", "", false},
		{"unclosed frontmatter is an error", "---\ndescription: d\n", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CommandBody([]byte(tt.file))
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if string(got) != tt.want {
				t.Errorf("body = %q, want %q", got, tt.want)
			}
		})
	}
}
