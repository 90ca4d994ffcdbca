package mcp

import (
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestSkillToolCapsRunawayFile: the skill tool returns a SKILL.md up to
// MaxSkillText whole; past it, only its first MaxSkillText bytes, cut
// before a character that straddles the cap, then a note that gives the
// file's size, what was left out and where to read the rest (resources/read
// only for a file within its cap).
func TestSkillToolCapsRunawayFile(t *testing.T) {
	head := "---\nname: %s\ndescription: d\n---\n"
	tests := []struct {
		name     string
		size     int64 // the file's size; zeros after the text when sparse
		sparse   bool
		wantCut  bool
		wantNote []string
	}{
		{"at-cap", MaxSkillText, false, false, nil},
		{"over-cap", MaxSkillText + 10, false, true, []string{
			"this SKILL.md is 1048586 bytes (1.0 MiB)", "returns at most its first 1 MiB",
			"and the last 11 bytes are left out", "(or resources/read skill://claude/over-cap/SKILL.md)"}},
		{"runaway", 52 << 20, true, true, []string{
			"this SKILL.md is 52 MiB", "the last 51 MiB are left out"}},
	}
	var recsSpec []skillSpec
	for _, tt := range tests {
		recsSpec = append(recsSpec, skillSpec{provider: "claude", name: tt.name, desc: "d"})
	}
	recs := makeRecords(t, t.TempDir(), recsSpec...)
	for i, tt := range tests {
		text := strings.Replace(head, "%s", tt.name, 1)
		if tt.sparse {
			writeFile(t, recs[i].File, []byte(text))
			if err := os.Truncate(recs[i].File, tt.size); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// "é" is two bytes: one of them straddles the cap.
		if len(text)%2 == 0 {
			text += "#" // so that an "é" straddles the even cap
		}
		body := text + strings.Repeat("é", int(tt.size-int64(len(text)))/2)
		body += strings.Repeat("x", int(tt.size)-len(body))
		writeFile(t, recs[i].File, []byte(body))
	}
	srv := New(snapOf(recs), Options{})
	ctx := testCtx(t, 2*time.Minute) // a hang guard: each call returns as soon as it is answered
	cs := connect(t, srv, "", nil)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := call(ctx, cs, map[string]any{"name": tt.name})
			if err != nil {
				t.Fatal(err)
			}
			got := resultText(t, res)
			if res.IsError || !utf8.ValidString(got) {
				t.Fatalf("isError %v, valid UTF-8 %v: %.300s", res.IsError, utf8.ValidString(got), got)
			}
			_, body, _ := strings.Cut(got, "\n\n") // after the header
			note := strings.Index(body, "\n\n[ccski: ")
			if !tt.wantCut {
				if note >= 0 || int64(len(body)) != tt.size {
					t.Errorf("a file at the cap came back as %d bytes, note at %d; want it whole", len(body), note)
				}
				return
			}
			if note < 0 || note > MaxSkillText || note < MaxSkillText-utf8.UTFMax {
				t.Fatalf("the text stops at byte %d; want just under %d, then the note:\n%.300s", note, MaxSkillText, body[max(0, note):])
			}
			for _, want := range append(tt.wantNote, "Read the rest from "+recs[i].File) {
				if !strings.Contains(body[note:], want) {
					t.Errorf("the note does not say %q:\n%s", want, body[note:])
				}
			}
			if tt.sparse && strings.Contains(body[note:], "resources/read") {
				t.Errorf("the note points at resources/read, which refuses a file this large:\n%s", body[note:])
			}
		})
	}
}
