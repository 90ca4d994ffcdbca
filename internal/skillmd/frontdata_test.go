package skillmd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestFrontmatterData checks the frontmatter served in a skills/list entry
// against what a YAML 1.2 core-schema parser (JavaScript's yaml package,
// with which hosts verify the entry) reads from the same text, as JSON.
// The YAML 1.1 readings go-yaml would give are in the comments.
func TestFrontmatterData(t *testing.T) {
	for _, tt := range []struct {
		name, front string
		want        string // JSON
	}{
		{name: "every key written, nested values included",
			front: "name: pdf\ndescription: Fill PDF forms\nlicense: Apache-2.0\nallowed-tools: [Read, Bash]\n" +
				"metadata:\n  author: me\n  tags:\n    - a\n    - b: c\n",
			want: `{"allowed-tools":["Read","Bash"],"description":"Fill PDF forms","license":"Apache-2.0",` +
				`"metadata":{"author":"me","tags":["a",{"b":"c"}]},"name":"pdf"}`},
		{name: "floats are numbers, 1.0 is 1",
			front: "version: 1.0\nb: 1.5\nc: .5\nd: 1.\ne: 1e3\nf: -1.5e-7\ng: +2.50\n",
			want:  `{"b":1.5,"c":0.5,"d":1,"e":1000,"f":-1.5e-7,"g":2.5,"version":1}`},
		{name: "YAML 1.1 booleans are strings", // go-yaml 1.1 mode: true, false, ...
			front: "on: yes\noff: no\ny: y\nn: N\nt: True\nf: FALSE\nx: tRue\n",
			want:  `{"f":false,"n":"N","off":"no","on":"yes","t":true,"x":"tRue","y":"y"}`},
		{name: "timestamps stay the text written",
			front: "date: 2024-01-01\nat: 2024-01-01T10:00:00Z\nspaced: 2001-12-14 21:59:43.10 -5\n",
			want:  `{"at":"2024-01-01T10:00:00Z","date":"2024-01-01","spaced":"2001-12-14 21:59:43.10 -5"}`},
		{name: "integers by the core schema", // go-yaml: 017 is 15, 0b101 is 5, 1_000 is 1000
			front: "dec: 017\noct: 0o17\nhex: 0x1F\nbin: 0b101\nsep: 1_000\nplus: +12\nneg: -3\nzero: 0\n",
			want:  `{"bin":"0b101","dec":17,"hex":31,"neg":-3,"oct":15,"plus":12,"sep":"1_000","zero":0}`},
		{name: "integers past int64",
			front: "max: 18446744073709551615\nmin: -9223372036854775808\nhuge: 100000000000000000000\nbighex: 0x10000000000000000\n",
			want:  `{"bighex":18446744073709552000,"huge":100000000000000000000,"max":18446744073709551615,"min":-9223372036854775808}`},
		{name: "look-alikes of values JSON cannot hold are text",
			front: "a: '.inf'\nb: +-.inf\nc: -.nan\nd: 0x1p9999\ne: Infinity\n",
			want:  `{"a":".inf","b":"+-.inf","c":"-.nan","d":"0x1p9999","e":"Infinity"}`},
		{name: "null in every spelling",
			front: "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nul\n",
			want:  `{"a":null,"b":null,"c":null,"d":null,"e":null,"f":"nul"}`},
		{name: "quoted and block scalars are strings",
			front: "a: '1.0'\nb: \"true\"\nc: |\n  12\nd: >-\n  null\n",
			want:  `{"a":"1.0","b":"true","c":"12\n","d":"null"}`},
		{name: "explicit core tags type the value",
			front: "a: !!str 1.0\nb: !!int \"12\"\nc: !!float 1\nd: !!null x\ne: !!bool 'true'\nf: !!int twelve\ng: !!bool yes\n",
			want:  `{"a":"1.0","b":12,"c":1,"d":null,"e":true,"f":"twelve","g":"yes"}`},
		{name: "tags outside the core schema keep the text",
			front: "a: !custom 12\nb: !!timestamp 2024-01-01\nc: !!binary aGk=\nd: !x {k: 1}\n",
			want:  `{"a":"12","b":"2024-01-01","c":"aGk=","d":{"k":1}}`},
		{name: "keys are written as JavaScript names properties",
			front: "1: a\n1.5: b\n~: c\ntrue: d\n0x1F: e\n1e21: f\nFalse: g\n",
			want:  `{"":"c","1":"a","1.5":"b","1e+21":"f","31":"e","false":"g","true":"d"}`},
		{name: "a number key and the same text quoted are two keys; the later wins",
			front: "1: number\n\"1\": text\n",
			want:  `{"1":"text"}`},
		{name: "aliases are expanded",
			front: "tools: &t [Read, Grep]\nagain: *t\nm: &m {a: 1}\nn: *m\n",
			want:  `{"again":["Read","Grep"],"m":{"a":1},"n":{"a":1},"tools":["Read","Grep"]}`},
		{name: "<< is an ordinary key in YAML 1.2", // go-yaml merges it
			front: "base: &b {agent: x}\nh:\n  <<: *b\n  label: own\n",
			want:  `{"base":{"agent":"x"},"h":{"\u003c\u003c":{"agent":"x"},"label":"own"}}`},
		{name: "CRLF line endings",
			front: "name: a\r\ndescription: b\r\n",
			want:  `{"description":"b","name":"a"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := headOf(t, tt.front)
			got, err := FrontmatterData(h)
			if err != nil {
				t.Fatalf("FrontmatterData: %v", err)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("the data does not marshal: %v", err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tt.want)); err != nil {
				t.Fatal(err)
			}
			if string(b) != want.String() {
				t.Errorf("got\n%s\nwant\n%s", b, want.String())
			}
		})
	}
}

// TestFrontmatterDataTypes checks the Go types the JSON above cannot
// tell apart: integers stay integers, so that large ones keep every digit.
func TestFrontmatterDataTypes(t *testing.T) {
	got, err := FrontmatterData(headOf(t, "i: 3\nu: 18446744073709551615\nf: 3.0\nb: true\nn: ~\ns: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{
		"i": int64(3), "u": uint64(18446744073709551615), "f": float64(3), "b": true, "n": nil, "s": "x",
	} {
		if got[key] != want {
			t.Errorf("%s = %#v (%T), want %#v (%T)", key, got[key], got[key], want, want)
		}
	}
}

// TestFrontmatterDataErrors: frontmatter a host's YAML 1.2 parser would
// refuse, or that JSON cannot hold, is an error naming the problem.
func TestFrontmatterDataErrors(t *testing.T) {
	for _, tt := range []struct {
		name, front string
		raw         []byte // instead of front, when set
		want        string
	}{
		{name: "infinity", front: "a: -.Inf\n", want: `frontmatter values hold "-.Inf" on line 2, a number JSON cannot hold`},
		{name: "not a number", front: "m:\n  x: .NaN\n", want: `frontmatter values hold ".NaN" on line 3, a number JSON cannot hold`},
		{name: "past the float range", front: "a: [1e999]\n", want: `frontmatter values hold "1e999" on line 2, a number JSON cannot hold`},
		{name: "a key written twice", front: "name: a\ndescription: d\nname: b\n",
			want: `frontmatter values have the key "name" twice, on lines 2 and 4: YAML keys must be unique`},
		{name: "the same number written two ways", front: "1: a\n1.0: b\n", want: `have the key "1.0" twice, on lines 2 and 3`},
		{name: "the same bool written two ways", front: "m:\n  true: a\n  True: b\n", want: `have the key "True" twice, on lines 3 and 4`},
		{name: "a merge key twice (no merging in YAML 1.2)", front: "b: &b {a: 1}\nc:\n  <<: *b\n  <<: *b\n", want: `have the key "<<" twice`},
		{name: "an alias inside itself", front: "a: &x [1, *x]\n", want: "refer to themselves through the alias *x, which JSON cannot hold"},
		{name: "aliases expanding without end", front: laughFront(), want: "frontmatter values expand to more than 100000 values"},
		{name: "a list as a key", front: "? [a, b]\n: x\n", want: "have a list as a mapping key; keys must be plain values"},
		{name: "a list", front: "- name: a\n", want: "frontmatter is a list, not a mapping of keys to values"},
		{name: "a plain value", front: "just text\n", want: "frontmatter is a value, not a mapping"},
		{name: "empty", front: "", want: "frontmatter is empty"},
		{name: "comments only", front: "# nothing\n", want: "frontmatter is empty"},
		{name: "null", front: "~\n", want: "frontmatter holds no keys"},
		{name: "not YAML", front: "name: a\ndescription: Use when: x\n",
			want: `invalid YAML in frontmatter at line 3: mapping values are not allowed in this context; quote values that contain ": "`},
		{name: "two documents", front: "name: a\n--- !!map\nx: 1\n", want: "frontmatter holds more than one YAML document (the second starts on line 3)"},
		{name: "not UTF-8", raw: []byte("---\nname: \xff\n---\n"), want: "frontmatter is not valid UTF-8"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if raw == nil {
				raw = []byte("---\n" + tt.front + "---\n")
			}
			h, err := ReadHead(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("ReadHead: %v", err)
			}
			got, err := FrontmatterData(h)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("FrontmatterData = %v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}

// headOf reads the head of a SKILL.md holding front as its frontmatter,
// which starts on line 2.
func headOf(t *testing.T, front string) *Head {
	t.Helper()
	h, err := ReadHead(strings.NewReader("---\n" + front + "---\nbody\n"))
	if err != nil {
		t.Fatalf("ReadHead: %v", err)
	}
	return h
}

// laughFront is a frontmatter whose values expand to 10^6 through
// aliases, within MaxFrontmatter bytes.
func laughFront() string {
	var b strings.Builder
	b.WriteString("a: &a [x, x, x, x, x, x, x, x, x, x]\n")
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f"} {
		b.WriteString(name + ": &" + name + " [")
		for i := range 10 {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*" + prev)
		}
		b.WriteString("]\n")
		prev = name
	}
	return b.String()
}

// BenchmarkFrontmatterData measures the frontmatter of one skills/list
// entry: a typical SKILL.md head with nested metadata.
func BenchmarkFrontmatterData(b *testing.B) {
	h, err := ReadHead(strings.NewReader("---\nname: pdf-forms\n" +
		"description: Fill, merge and check PDF forms. Use when the user asks to fill a PDF form or extract its fields.\n" +
		"license: Apache-2.0\nallowed-tools: [Read, Bash, Write]\nmetadata:\n  author: example\n  version: 1.2\n  tags: [pdf, forms]\n---\nbody\n"))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := FrontmatterData(h); err != nil {
			b.Fatal(err)
		}
	}
}
