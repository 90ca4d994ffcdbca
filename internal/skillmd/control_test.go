package skillmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/problems"
)

// TestDecodeReplacesControlCharacters: control characters in a name or
// description (YAML escapes, raw bytes the line-by-line reading keeps,
// bidirectional overrides, C1) come out as U+FFFD with a
// control-characters problem naming the field; white space in a
// description is still only folded.
func TestDecodeReplacesControlCharacters(t *testing.T) {
	tests := []struct {
		name      string
		front     string
		wantName  string
		wantDesc  string
		wantProbs []string // the fields reported, in order
	}{
		{"escaped title and clear", `name: "evil\e]0;pwned\a\e[2Jx"` + "\ndescription: d\n",
			"evil\uFFFD]0;pwned\uFFFD\uFFFD[2Jx", "d", []string{"name"}},
		{"backspace and CR in the description", "name: ok\ndescription: \"hid\\bden\\rover\"\n",
			"ok", "hid\uFFFDden over", []string{"description"}},
		{"C1 and bidi", "name: \"a\\x9bb\"\ndescription: \"x \u202eevil\u202c y\"\n",
			"a\uFFFDb", "x \uFFFDevil\uFFFD y", []string{"name", "description"}},
		{"DEL through the quick path", "name: del\x7f\ndescription: plain\n",
			"del\uFFFD", "plain", []string{"name"}},
		{"raw ESC read line by line", "name: raw\x1b[31m\ndescription: d\n",
			"raw\uFFFD[31m", "d", []string{"name"}},
		{"a newline inside a quoted name", "name: \"two\\nlines\"\ndescription: d\n",
			"two\uFFFDlines", "d", []string{"name"}},
		{"white space is folded, not reported", "name: ok\ndescription: \"tab\\there\\nand\\vthere\"\n",
			"ok", "tab here and there", nil},
		{"clean fields are left as read", "name: pdf\ndescription: Fill PDF forms.\n",
			"pdf", "Fill PDF forms.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := ReadHead(strings.NewReader("---\n" + tt.front + "---\nbody\n"))
			if err != nil {
				t.Fatal(err)
			}
			f, probs := Decode(h)
			if got := strings.TrimSpace(f.Name); got != tt.wantName {
				t.Errorf("name = %q, want %q", got, tt.wantName)
			}
			if got := FoldSpace(f.Description); got != tt.wantDesc {
				t.Errorf("description = %q, want %q", got, tt.wantDesc)
			}
			var fields []string
			for _, p := range probs {
				if p.Code != problems.ControlCharacters {
					continue
				}
				if p.Fatal || !strings.Contains(p.Message, "U+") || !strings.Contains(p.Message, "delete them") {
					t.Errorf("problem %+v: want a warning naming the characters and what to do", p)
				}
				field, _, _ := strings.Cut(p.Message, " ")
				fields = append(fields, field)
			}
			if strings.Join(fields, ",") != strings.Join(tt.wantProbs, ",") {
				t.Errorf("control-characters problems on %v, want %v (all: %+v)", fields, tt.wantProbs, probs)
			}
		})
	}
}

// TestDecodeCommandReplacesControlCharacters: a command's description,
// from the frontmatter or the first body line, and its argument-hint are
// cleaned the same way.
func TestDecodeCommandReplacesControlCharacters(t *testing.T) {
	tests := []struct {
		name, file         string
		wantDesc, wantHint string
		wantProbs          int
	}{
		{"frontmatter", "---\ndescription: \"go\\e[2J\"\nargument-hint: \"[x\\a]\"\n---\nBody\n",
			"go\uFFFD[2J", "[x\uFFFD]", 2},
		{"first body line", "# Deploy\x1b]0;t\x07 now\n\nBody\n", "Deploy\uFFFD]0;t\uFFFD now", "", 1},
		{"clean", "---\ndescription: Deploy.\n---\nBody\n", "Deploy.", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, probs := DecodeCommand([]byte(tt.file))
			if c.Description != tt.wantDesc || c.ArgumentHint != tt.wantHint {
				t.Errorf("description %q, hint %q; want %q, %q", c.Description, c.ArgumentHint, tt.wantDesc, tt.wantHint)
			}
			n := 0
			for _, p := range probs {
				if p.Code == problems.ControlCharacters {
					n++
				}
			}
			if n != tt.wantProbs {
				t.Errorf("%d control-characters problems, want %d: %+v", n, tt.wantProbs, probs)
			}
		})
	}
}

// FuzzDecode: whatever the frontmatter, Decode returns, and the name and
// description it returns hold no control character but the white space
// FoldSpace folds.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("name: \"evil\\e]0;x\\a\"\ndescription: d\n"))
	f.Add([]byte("name: a\ndescription: &x [*x, *x]\n"))
	f.Add([]byte("name: raw\x1b\ndescription: \xc2\x9b\n"))
	f.Fuzz(func(t *testing.T, front []byte) {
		h, err := ReadHead(bytes.NewReader(append(append([]byte("---\n"), front...), "\n---\n"...)))
		if err != nil {
			return
		}
		fr, _ := Decode(h)
		if clean, found := CleanName(fr.Name); found != nil {
			t.Fatalf("name %q still holds %U (clean: %q)", fr.Name, found, clean)
		}
		if _, found := CleanText(fr.Description); found != nil {
			t.Fatalf("description %q still holds %U", fr.Description, found)
		}
	})
}
