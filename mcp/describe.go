package mcp

import (
	"strings"
	"unicode/utf8"

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
// skills the block is empty and noSkills follows it: a made-up entry
// would be a skill the model could try to load.
func Describe(recs []*pipeline.Record) string { return describe(recs, nil) }

// describe is Describe with names[i] as the <name> of recs[i] (its id
// when names is nil).
func describe(recs []*pipeline.Record, names []string) string {
	var b strings.Builder
	b.Grow(len(preamble) + 64 + len(recs)*200)
	b.WriteString(preamble)
	b.WriteString(blockOpen)
	for i, r := range recs {
		writeEntry(&b, r, nameAt(names, recs, i))
	}
	b.WriteString(blockClose)
	if len(recs) == 0 {
		b.WriteString(noSkills)
	}
	return b.String()
}

// noSkills follows an empty <available_skills>: what the model can tell
// the user, who adds skills.
const noSkills = "\n\nNo skills are installed, so there is nothing to load now. A skill is a folder holding a SKILL.md file " +
	"(frontmatter with its name and description, then its instructions) in a folder ccski reads, such as " +
	"~/.claude/skills/<name>/ or ~/.agents/skills/<name>/ (`ccski sources` lists them all). " +
	"The user can start one with `ccski new <name>` or install some with `ccski install <source>` (a git repository " +
	"or owner/repo); this list updates when they appear."

// nameAt is the name the catalogue prints for recs[i]: names[i], or its
// id when names is nil.
func nameAt(names []string, recs []*pipeline.Record, i int) string {
	if names == nil {
		return recs[i].ID
	}
	return names[i]
}

// The tags of one <skill> entry, in order around the escaped id,
// description, provider and location.
const (
	entryName        = "<skill>\n<name>"
	entryDescription = "</name>\n<description>"
	entryProvider    = "</description>\n<provider>"
	entryLocation    = "</provider>\n<location>"
	entryEnd         = "</location>\n</skill>\n"
)

// writeEntry writes r's <skill> entry, named name.
func writeEntry(b *strings.Builder, r *pipeline.Record, name string) {
	b.WriteString(entryName)
	escape(b, name)
	b.WriteString(entryDescription)
	escape(b, r.Description)
	b.WriteString(entryProvider)
	escape(b, r.Agent)
	b.WriteString(entryLocation)
	escape(b, string(r.Location))
	b.WriteString(entryEnd)
}

// entryLen is the length in characters of r's <skill> entry, named name.
func entryLen(r *pipeline.Record, name string) int {
	return len(entryName+entryDescription+entryProvider+entryLocation+entryEnd) +
		escapedLen(name) + escapedLen(r.Description) + escapedLen(r.Agent) + escapedLen(string(r.Location))
}

// escapedLen is the length in characters of s once escaped, counted as
// utf8.RuneCountInString counts (an invalid byte is one character).
func escapedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
			continue
		}
		switch c {
		case '&':
			n += len("&amp;")
		case '<', '>':
			n += len("&lt;")
		default:
			n++
		}
		i++
	}
	return n
}

// xmlText escapes the three characters that matter in XML text content;
// quotes stay readable for the model.
var xmlText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(b *strings.Builder, s string) { _, _ = xmlText.WriteString(b, s) }
