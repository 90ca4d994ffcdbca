package integration

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestSuggestPrefix: a name that starts with a skill's name suggests
// that skill's copies ("did you mean"); it used to suggest nothing.
func TestSuggestPrefix(t *testing.T) {
	t.Parallel()
	m := newMachine(t)
	r := run(t, m, "info", "xlsx-file")
	if r.code == 0 || !strings.Contains(r.stderr, "did you mean claude:@doc-tools:xlsx, claude:xlsx?") {
		t.Errorf("info xlsx-file: want a not-found error suggesting claude:xlsx\n%s", r)
	}
	r = run(t, m, "info", "xlsx-file", "--json")
	var out struct {
		Suggestions []string `json:"suggestions"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil ||
		!slices.Equal(out.Suggestions, []string{"claude:@doc-tools:xlsx", "claude:xlsx"}) {
		t.Errorf("info xlsx-file --json: suggestions %q (%v)\n%s", out.Suggestions, err, r)
	}
}
