package pipeline

import (
	"errors"
	"hash/maphash"
	"strings"
	"testing"
)

// TestFormEqualLower checks that a form compares with a lower-cased name
// exactly as strings.ToLower of the name it stands for does, for names
// outside ASCII too: the Index keeps no name and relies on it.
func TestFormEqualLower(t *testing.T) {
	parts := []string{"", "pdf", "PDF", "Pdf-Tools", "ÉCRIRE", "écrire", "\u212a" /* Kelvin sign */, "k",
		"ſ" /* long s */, "s", "İstanbul", "\xff\xfe", "日本語", ":", "@", "/@"}
	var n int
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				f := form{a, ":", b, "@", c}
				want := strings.ToLower(f.String())
				if !f.equalLower(want) {
					t.Errorf("%q does not equal its own lower-cased name %q", f.String(), want)
				}
				for _, other := range []string{want + "x", strings.TrimSuffix(want, "c"), strings.ToUpper(want), a + b + c} {
					if other != want && f.equalLower(other) {
						t.Errorf("%q equals %q, which is not its lower-cased name %q", f.String(), other, want)
					}
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no forms compared")
	}
}

// TestIndexCollision makes two names share a hash, as two different
// names may, and checks that neither answers for the other's record.
func TestIndexCollision(t *testing.T) {
	recs := []*Record{
		{ID: "claude:pdf", Name: "pdf", Agent: "claude", Location: LocationUser},
		{ID: "codex:xlsx", Name: "xlsx", Agent: "codex", Location: LocationUser},
	}
	x := NewIndex(recs)
	// "docx" collides with "pdf" in tier 1, and "codex:docx" with the id
	// "codex:xlsx" in tier 0: each hash leads to a record that does not
	// have the name.
	x.tiers[1][maphash.String(x.seed, "docx")] = 0
	x.tiers[0][maphash.String(x.seed, "codex:docx")] = 1
	for _, name := range []string{"docx", "codex:docx", "DOCX"} {
		r, err := x.Resolve(name)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Errorf("Resolve(%q) = %v, %v; want not found", name, r, err)
		}
	}
	if r := x.ByID("codex:docx"); r != nil {
		t.Errorf("ByID(codex:docx) = %s, want nil", r.ID)
	}
	// A hash shared by a name of both records: only the one that has it.
	x.add(1, "pdf", 1)
	if r, err := x.Resolve("PDF"); err != nil || r != recs[0] {
		t.Errorf("Resolve(PDF) with a shared hash = %v, %v; want claude:pdf", r, err)
	}
	if got := x.lookup(1, "pdf"); len(got) != 1 || got[0] != recs[0] {
		t.Errorf("lookup(pdf) = %v, want claude:pdf alone", got)
	}
	for _, name := range []string{"pdf", "claude@user:pdf", "claude:pdf", "xlsx", "codex@user:xlsx"} {
		if _, err := x.Resolve(name); err != nil {
			t.Errorf("Resolve(%q): %v", name, err)
		}
	}
}
