package pipeline

import "testing"

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"pdf", "pdf", true},
		{"pdf", "pdfx", false},
		{"pdf", "xpdf", false},
		{"", "", true},
		{"", "a", false},
		{"*", "", true},
		{"*", "example-skills:pdf", true},
		{"p*", "pdf", true},
		{"p*", "xpdf", false},
		{"*f", "pdf", true},
		{"*d*", "pdf", true},
		{"p?f", "pdf", true},
		{"p?f", "pf", false},
		{"??", "é1", true},
		{"a*b*c", "aXbYbZc", true},
		{"a*b*c", "aXbYcZ", false},
		{"*:pdf", "example-skills:pdf", true},
		{"[a]", "[a]", true},
		{"[a]", "a", false},
		{"x#2", "x#2", true},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// TestMatchName matches a glob against the full and the short name, the
// bare names by which the index resolves a record, and nothing else.
func TestMatchName(t *testing.T) {
	plugin := &Record{Name: "example-skills:xlsx", Agent: "claude", Location: LocationPlugin,
		Plugin: &PluginInfo{Plugin: "example-skills", Marketplace: "m"}}
	local := &Record{Name: "PDF", Agent: "codex", Location: LocationUser}
	AssignIDs([]*Record{plugin, local})
	tests := []struct {
		r       *Record
		pattern string
		want    bool
	}{
		{plugin, "xlsx", true},
		{plugin, "example-skills:xlsx", true},
		{plugin, "x*", true},
		{plugin, "example-*", true},
		{plugin, "claude:xlsx", false}, // a provider is the token's, not the name's
		{plugin, "@example-skills:xlsx", false},
		{local, "pdf", true}, // names are lower-cased before matching
		{local, "codex:pdf", false},
		{local, "p?f", true},
	}
	for _, tt := range tests {
		if got := MatchName(tt.pattern, tt.r); got != tt.want {
			t.Errorf("MatchName(%q, %s) = %v, want %v", tt.pattern, tt.r.ID, got, tt.want)
		}
	}
}
