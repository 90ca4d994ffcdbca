package report

import "testing"

func TestCatalog(t *testing.T) {
	type rule struct{ code, title string }
	c := NewCatalog([]rule{{"a", "first"}, {"b", "second"}}, func(r rule) string { return r.code })
	for _, tc := range []struct {
		code, title string
		ok          bool
	}{
		{"a", "first", true},
		{"b", "second", true},
		{"c", "", false},
		{"", "", false},
	} {
		r, ok := c.Lookup(tc.code)
		if ok != tc.ok || r.title != tc.title {
			t.Errorf("Lookup(%q) = %+v, %v; want title %q, %v", tc.code, r, ok, tc.title, tc.ok)
		}
	}
	all := c.Rules()
	if len(all) != 2 || all[0].code != "a" || all[1].code != "b" {
		t.Fatalf("Rules() = %+v, want a then b", all)
	}
	all[0].title = "changed"
	if r, _ := c.Lookup("a"); r.title != "first" {
		t.Errorf("changing what Rules returned changed the catalog: %q", r.title)
	}
}
