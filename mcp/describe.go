package mcp

import (
	"strings"

	"github.com/ccski/ccski/pipeline"
)

const preamble = `Load a skill: specialised instructions, scripts and references for one kind of task.

<skills_instructions>
Before you start a task, check whether a skill below covers it. If one does, call this tool with the skill's name first and follow the instructions it returns; they take precedence over your general habits for that task.

- Pass the name exactly as it appears in <name> (case-insensitive).
- The result starts with the skill's base directory; files the skill mentions (references/, scripts/, assets/) are relative to it.
- Only use skills listed in <available_skills>; the list is what is installed now and may change during the session.
- Do not load a skill that is already loaded in this conversation.
</skills_instructions>

`

// Describe renders the skill tool's description for the visible records:
// a preamble, then one <skill> entry per record, XML-escaped. With no
// skills the block holds a placeholder entry.
func Describe(recs []*pipeline.Record) string {
	var b strings.Builder
	b.Grow(len(preamble) + 64 + len(recs)*200)
	b.WriteString(preamble)
	b.WriteString("<available_skills>\n")
	if len(recs) == 0 {
		b.WriteString("<skill>\n<name>none</name>\n<description>No skills are installed.</description>\n</skill>\n")
	}
	for _, r := range recs {
		b.WriteString("<skill>\n<name>")
		escape(&b, r.ID)
		b.WriteString("</name>\n<description>")
		escape(&b, r.Description)
		b.WriteString("</description>\n<provider>")
		escape(&b, r.Provider)
		b.WriteString("</provider>\n<location>")
		escape(&b, string(r.Location))
		b.WriteString("</location>\n</skill>\n")
	}
	b.WriteString("</available_skills>")
	return b.String()
}

// xmlText escapes the three characters that matter in XML text content;
// quotes stay readable for the model.
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(b *strings.Builder, s string) { _, _ = xmlText.WriteString(b, s) }
