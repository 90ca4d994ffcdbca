package hostedit

import (
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// randomJSONC returns a random JSONC document of objects, arrays,
// strings and literals, with odd white space, comments, CRLF and
// trailing commas; it may not parse.
func randomJSONC(r *rand.Rand) string {
	ws := []string{"", " ", "\n", "\n  ", "  ", "\r\n  ", " /* c */ ", " // c\n  ", "\n\n"}
	w := func() string { return ws[r.Intn(len(ws))] }
	keys := []string{"a", "skills", "skillOverrides", "disabled", "b"}
	var val func(depth int) string
	val = func(depth int) string {
		switch r.Intn(5) {
		case 0, 1:
			if depth > 2 {
				return "1"
			}
			var b strings.Builder
			b.WriteString("{")
			for i, n := 0, r.Intn(3); i < n; i++ {
				b.WriteString(w() + `"` + keys[r.Intn(len(keys))] + `":` + w() + val(depth+1) + w())
				if i < n-1 || r.Intn(4) == 0 {
					b.WriteString(",")
				}
			}
			return b.String() + w() + "}"
		case 2:
			var b strings.Builder
			b.WriteString("[")
			for i, n := 0, r.Intn(3); i < n; i++ {
				b.WriteString(w() + `"x"` + w())
				if i < n-1 || r.Intn(4) == 0 {
					b.WriteString(",")
				}
			}
			return b.String() + w() + "]"
		case 3:
			return `"off"`
		}
		return "true"
	}
	return w() + val(0) + w()
}

// TestJSONRoundTripProperty: on thousands of random documents, adding a
// switch and removing it again is never refused for a reason other than
// the file's shape, and gives the file back byte for byte, or (when two
// files have the same edited form, such as "{}" and "{ }") a file whose
// edit is that same form.
func TestJSONRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	j := JSON{Comments: true}
	paths := [][]string{{"skillOverrides", "pdf"}, {"skills", "disabled"}, {"a"}, {"a", "b", "c"}}
	tried := 0
	for range 4000 {
		doc := randomJSONC(r)
		path := paths[r.Intn(len(paths))]
		list := path[len(path)-1] == "disabled"
		if j.Check([]byte(doc)) != nil || strings.Contains(doc, `"pdf"`) {
			continue
		}
		if _, there, _ := j.Get([]byte(doc), path); there && !list {
			continue // a Delete removes the user's own value too
		}
		add := func(data []byte) ([]byte, error) {
			if list {
				return j.AddString(data, path, "pdf")
			}
			return j.Set(data, path, "off")
		}
		out, err := add([]byte(doc))
		var back []byte
		if err == nil {
			if list {
				back, err = j.RemoveString(out, path, "pdf", true)
			} else {
				back, err = j.Delete(out, path, true)
			}
		}
		var ee *EditError
		if errors.As(err, &ee) && (strings.Contains(ee.Msg, "not an") || strings.Contains(ee.Msg, "repeats")) {
			continue
		}
		if err != nil {
			t.Fatalf("%q %v: %v", doc, path, err)
		}
		tried++
		if string(back) == doc {
			continue
		}
		if again, err := add(back); err != nil || string(again) != string(out) {
			t.Errorf("%q %v:\nedited   %q\nrestored %q", doc, path, out, back)
		}
	}
	if tried < 1000 {
		t.Fatalf("only %d documents tried", tried)
	}
}

// TestTOMLRoundTripProperty: on thousands of random documents that
// Codex's parser accepts, an appended [[skills.config]] table removed
// again gives the file back byte for byte, a plugin's switch never makes
// a file Codex refuses, and an edit refused says why without asking for
// a bug report.
func TestTOMLRoundTripProperty(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	keys := []string{"a", "skills", "config", "plugins", `"p@m"`}
	key := func() string {
		p := make([]string, 1+r.Intn(3))
		for i := range p {
			p[i] = keys[r.Intn(len(keys))]
		}
		return strings.Join(p, ".")
	}
	ends := []string{"\n", "\r\n", "\n\n", " # c\n"}
	tm := TOML{}
	tried := 0
	for range 1500 {
		var b strings.Builder
		for range r.Intn(5) {
			switch r.Intn(5) {
			case 0:
				b.WriteString("[" + key() + "]")
			case 1:
				b.WriteString("[[" + key() + "]]")
			case 2:
				b.WriteString(key() + " = {x = 1}")
			default:
				b.WriteString(key() + " = 1")
			}
			b.WriteString(ends[r.Intn(len(ends))])
		}
		doc := b.String()
		if r.Intn(3) == 0 {
			doc = strings.TrimRight(doc, "\r\n")
		}
		d, err := scanTOML([]byte(doc))
		if tm.Check([]byte(doc)) != nil || err != nil || strictTOML(d) != nil {
			continue
		}
		tried++
		refused := func(err error) {
			var ee *EditError
			if !errors.As(err, &ee) || strings.Contains(ee.Msg, "please report") {
				t.Errorf("%q: %v", doc, err)
			}
		}
		if out, err := tm.SetInTable([]byte(doc), []string{"plugins", "p@m"}, "enabled", false); err != nil {
			refused(err)
		} else if od, _ := scanTOML(out); strictTOML(od) != nil {
			t.Errorf("%q: the plugin's switch makes a file Codex refuses:\n%s", doc, out)
		}
		out, err := tm.AppendToArray([]byte(doc), []string{"skills", "config"}, []KV{{"name", "pdf"}, {"enabled", false}})
		if err != nil {
			refused(err)
			continue
		}
		entries, _ := tm.ArrayEntries(out, []string{"skills", "config"})
		back, err := tm.RemoveFromArray(out, []string{"skills", "config"}, len(entries)-1)
		if err != nil || string(back) != doc {
			t.Errorf("%q: appended %q, removed %q (%v)", doc, out, back, err)
		}
	}
	if tried < 400 {
		t.Fatalf("only %d documents tried", tried)
	}
}
