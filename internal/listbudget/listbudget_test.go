package listbudget

import (
	"fmt"
	"strings"
	"testing"
)

// many returns n skills s001... with descriptions of 409 characters, as in
// the measurements of the real hosts (docs/hosts.md).
func many(n int, suffix bool) []Entry {
	out := make([]Entry, n)
	for i := range out {
		name := fmt.Sprintf("s%03d", i+1)
		out[i] = Entry{Name: name, Description: fmt.Sprintf("skill %03d %s", i+1, strings.Repeat("d", 400))}
		if suffix {
			out[i].Suffix = " (file: r1/" + name + "/SKILL.md)"
		}
	}
	return out
}

// count returns how many outcomes have each fate.
func count(out []Outcome) map[Fate]int {
	m := map[Fate]int{}
	for _, o := range out {
		m[o.Fate]++
	}
	return m
}

// TestClaudeMeasured: the fates Claude Code 2.1.332 gave 120 personal
// skills of 409-character descriptions: with a 200,000-token model the
// first 2 keep their descriptions, with its default model (750,000) the
// first 56; the rest are listed by name.
func TestClaudeMeasured(t *testing.T) {
	for _, tc := range []struct {
		ctx   int
		frac  float64
		whole int
	}{
		{200_000, 0, 2},
		{750_000, 0, 56},
		{200_000, 0.02, 22},
	} {
		out := Claude(many(120, false), ClaudeOptions{ContextTokens: tc.ctx, Fraction: tc.frac})
		for i, o := range out {
			want := NameOnly
			if i < tc.whole {
				want = Whole
			}
			if o.Fate != want {
				t.Fatalf("context %d, fraction %v: entry %d is %s, want %s", tc.ctx, tc.frac, i+1, o.Fate, want)
			}
		}
	}
}

// TestClaudeFirstFit: a description that does not fit is dropped, and a
// shorter one after it still gets its place.
func TestClaudeFirstFit(t *testing.T) {
	entries := []Entry{
		{Name: "a", Description: strings.Repeat("a", 50)},
		{Name: "b", Description: strings.Repeat("b", 80)},
		{Name: "c", Description: strings.Repeat("c", 10)},
		{Name: "d"},
	}
	// Names: "- a\n" ... 4 entries and 2 built-ins.
	names := 4*4 + len("- init\n") + len("- security-review\n")
	opt := ClaudeOptions{ContextTokens: 1000, Fraction: float64(names+52+12) / 4000, Reserved: -1}
	got := Claude(entries, opt)
	want := []Fate{Whole, NameOnly, Whole, NameOnly}
	for i := range want {
		if got[i].Fate != want[i] {
			t.Errorf("entry %s: %s, want %s (budget %d)", entries[i].Name, got[i].Fate, want[i], opt.Budget())
		}
	}
}

// TestClaudeMaxDesc: a description over skillListingMaxDescChars is cut to
// one character less, and the "…" that follows.
func TestClaudeMaxDesc(t *testing.T) {
	got := Claude([]Entry{{Name: "long", Description: strings.Repeat("y", 2000)}, {Name: "short", Description: "ok"}},
		ClaudeOptions{ContextTokens: 1_000_000})
	if got[0] != (Outcome{Fate: Cut, Shown: 1535, Length: 2000}) || got[1] != (Outcome{Fate: Whole, Shown: 2, Length: 2}) {
		t.Errorf("got %+v", got)
	}
	got = Claude([]Entry{{Name: "long", Description: strings.Repeat("y", 200)}}, ClaudeOptions{MaxDescChars: 100, ContextTokens: 1_000_000})
	if got[0].Fate != Cut || got[0].Shown != 99 {
		t.Errorf("skillListingMaxDescChars 100: got %+v", got[0])
	}
}

// codexMeasured are Codex's four system skills and 120 skills of
// 409-character descriptions, as measured.
func codexMeasured() []Entry {
	var out []Entry
	for _, n := range []string{"imagegen", "openai-docs", "skill-creator", "skill-installer"} {
		out = append(out, Entry{Name: n, Description: strings.Repeat("x", 300), Suffix: " (file: r0/" + n + "/SKILL.md)"})
	}
	return append(out, many(120, true)...)
}

// TestCodexDropsFromTheEnd: when names alone do not fit, Codex 0.171.0
// listed 42, 65 and 109 of these 124 entries at context windows of 20,000,
// 30,000 and 50,000 tokens, names only, and left out the rest from the end.
func TestCodexDropsFromTheEnd(t *testing.T) {
	for ctx, listed := range map[int]int{20_000: 42, 30_000: 65, 50_000: 109} {
		got := Codex(codexMeasured(), CodexOptions{ContextTokens: ctx})
		c := count(got)
		if c[NameOnly] != listed || c[Dropped] != 124-listed {
			t.Errorf("context %d: %v, want %d name-only and the rest dropped", ctx, c, listed)
		}
		if got[listed-1].Fate != NameOnly || got[listed].Fate != Dropped {
			t.Errorf("context %d: dropped entries are not the last ones", ctx)
		}
	}
}

// TestCodexCutsEvenly: when the whole list does not fit but names do,
// every long description is cut to one length; short ones stay whole; at a
// large window nothing is cut.
func TestCodexCutsEvenly(t *testing.T) {
	entries := append(codexMeasured(), Entry{Name: "tiny", Description: "short", Suffix: " (file: r2/tiny/SKILL.md)"})
	got := Codex(entries, CodexOptions{ContextTokens: 100_000})
	shown := -1
	for i, o := range got[:len(got)-1] {
		if o.Fate != Cut {
			t.Fatalf("entry %d: %s, want cut", i, o.Fate)
		}
		if shown >= 0 && o.Shown != shown {
			t.Fatalf("entry %d cut to %d, another to %d", i, o.Shown, shown)
		}
		shown = o.Shown
	}
	// Measured: 28 to 32 characters at this window.
	if shown < 26 || shown > 34 {
		t.Errorf("cut to %d characters, measured about 30", shown)
	}
	if last := got[len(got)-1]; last.Fate != Whole {
		t.Errorf("a description shorter than the cut: %s", last.Fate)
	}
	for i, o := range Codex(entries, CodexOptions{ContextTokens: 1_000_000}) {
		if o.Fate != Whole {
			t.Fatalf("context 1,000,000: entry %d %s", i, o.Fate)
		}
	}
}

// TestCodexMaxDesc: a description over 1,024 characters is cut to 1,021.
func TestCodexMaxDesc(t *testing.T) {
	got := Codex([]Entry{{Name: "l", Description: strings.Repeat("x", 1100)}}, CodexOptions{})
	if got[0] != (Outcome{Fate: Cut, Shown: 1021, Length: 1100}) {
		t.Errorf("got %+v", got[0])
	}
}
