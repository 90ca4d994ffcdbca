package mcp

import (
	"fmt"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// MaxSkillText caps the SKILL.md text the skill tool returns: 1 MiB, far
// more than any agent's context holds of one skill (the spec asks for
// under 500 lines), and what keeps a runaway SKILL.md from being read,
// copied and encoded whole for each call. A longer file is cut at a
// character boundary, with a note saying what was left out and where the
// rest is.
const MaxSkillText = 1 << 20

// skillText is what readSkill read of a SKILL.md.
type skillText struct {
	data []byte // at most MaxSkillText bytes, ending on a whole character
	size int64  // the file's size when it was opened
	cut  bool   // the file holds more than data
}

// readSkill reads the SKILL.md the skill tool returns: through safefile,
// so a FIFO or device is refused at once, and only its first MaxSkillText
// bytes; under a gate (j) only when the whole file is what was judged
// (judged.prefix). Tests replace it to hold a call in flight.
var readSkill = func(file string, j *judged) (skillText, error) {
	f, st, err := safefile.Open(file)
	if err != nil {
		return skillText{}, err
	}
	defer f.Close()
	data, more, err := j.prefix(f, st, MaxSkillText)
	if err != nil {
		return skillText{}, err
	}
	if more {
		data = skillmd.TrimPartialRune(data)
	}
	return skillText{data: data, size: st.Size(), cut: more}, nil
}

// cutNote is the note after a SKILL.md the skill tool cut: how much it
// left out, and where to read the rest (the file, and resources/read when
// the file is within its cap).
func cutNote(r *pipeline.Record, st skillText) string {
	shown := int64(len(st.data))
	size := "more than " + safefile.Size(shown)
	left := "the rest is"
	if st.size > shown {
		size = safefile.Size(st.size)
		left = "the last " + safefile.Size(st.size-shown) + " are"
	}
	where := r.File
	if uri := r.SkillURI(); uri != "" && st.size <= MaxResourceBytes {
		where += " (or resources/read " + uri + ")"
	}
	return fmt.Sprintf("\n\n[ccski: this SKILL.md is %s; the skill tool returns at most its first %s, "+
		"so the text above stops there and %s left out. Read the rest from %s.]\n",
		size, safefile.Size(MaxSkillText), left, where)
}
