package security

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"

	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/safetext"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// The rules of names: what the names of the skills scanned together say,
// which no one skill's files do. A skill named "рdf" (Cyrillic er) beside
// the real "pdf" passes every check of its files, yet an agent choosing a
// skill by name and description, and a person reading a listing, cannot
// tell the two apart.
//
// Two names look alike when their Unicode TR39 skeletons are equal
// (package confusable, generated from confusables.txt of Unicode 17.0.0)
// of the names in NFKC, compared without case. Only names holding a character beyond ASCII are
// reported: ASCII names that differ by case, '-' or '_' are the
// duplicate-name and dedupe checks' business, and ASCII look-alikes (rn
// and m, l and 1) show in any listing's font. A name mixing scripts is
// reported alone too, as TR39's "highly restrictive" level has it: one
// script, or Latin with Han and Japanese kana, Han and Bopomofo, or Han
// and Hangul.

// The codes of the rules of names.
const (
	CodeLookalikeName   = "lookalike-name"
	CodeMixedScriptName = "mixed-script-name"
)

// nameRules are the rules of names, in documentation order; rules.go
// puts them in the table.
var nameRules = []Rule{
	{Code: CodeLookalikeName, Group: "names", Severity: report.SeverityError,
		Title: "the skill's name looks like the name of another skill found with it, but differs in characters beyond ASCII",
		Doc: "Agents choose a skill by its name and description, and people by its name in a listing, so a look-alike " +
			"of an installed skill (Cyrillic р in рdf) takes the calls meant for it; rename the skill in plain " +
			"letters, or remove it if you did not install it on purpose (only the name beyond ASCII is flagged, so " +
			"mcp.scan: block keeps serving the original).",
		names: checkLookalikes},
	{Code: CodeMixedScriptName, Group: "names", Severity: report.SeverityWarning,
		Title: "the skill's name mixes letters of scripts that are not written together, such as Latin and Cyrillic",
		Doc: "A name that mixes scripts is how look-alikes are made (pdf with a Cyrillic р), even when the skill it " +
			"imitates is not installed here; write the name in one script (Latin with Chinese, Japanese or Korean is " +
			"not reported).",
		names: checkMixedScripts},
}

// NamedSkill is a skill as the rules of names see it.
type NamedSkill struct {
	// Name is the skill's name as agents see it; a plugin's or a scope's
	// prefix ("tools:pdf") is compared without, and checked for mixed
	// scripts on its own.
	Name string
	// File is the skill file, where the findings point.
	File string
	// Label names the skill in the messages of the others: its id, or
	// "" for its file.
	Label string
	// Command sets a command apart: commands are compared with commands
	// only.
	Command bool
}

// nameCheck is what a rule of names sees.
type nameCheck struct {
	skills []NamedSkill
	// keys are the nameKey of each short name, a command's after a "/";
	// nil when no name is beyond ASCII.
	keys []string
	out  [][]report.Finding
	code string
}

func (c *nameCheck) add(i int, format string, args ...any) {
	c.out[i] = append(c.out[i], report.Finding{Code: c.code, File: c.skills[i].File,
		Message: fmt.Sprintf(format, args...)})
}

// has reports whether skill i has a finding of code.
func (c *nameCheck) has(i int, code string) bool {
	return slices.ContainsFunc(c.out[i], func(f report.Finding) bool { return f.Code == code })
}

// CheckNames runs the rules of names on skills and returns the findings
// of each, in order, with their severities.
func CheckNames(skills []NamedSkill) [][]report.Finding {
	c := &nameCheck{skills: skills, out: make([][]report.Finding, len(skills))}
	if !slices.ContainsFunc(skills, func(s NamedSkill) bool { return hasNonASCII([]byte(s.Name)) }) {
		return c.out // every rule needs a name beyond ASCII
	}
	c.keys = make([]string, len(skills))
	for i, s := range skills {
		c.keys[i] = nameKey(s.short())
		if s.Command {
			c.keys[i] = "/" + c.keys[i]
		}
	}
	for _, r := range rules {
		if r.names != nil {
			c.code = r.Code
			r.names(c)
		}
	}
	for _, fs := range c.out {
		for j := range fs {
			r, _ := Lookup(fs[j].Code)
			fs[j].Severity = r.Severity
		}
	}
	return c.out
}

// checkLookalikes reports every name beyond ASCII whose skeleton is the
// skeleton of another name, naming the others and the characters that
// make the likeness.
func checkLookalikes(c *nameCheck) {
	groups := map[string][]int{}
	for i, k := range c.keys {
		groups[k] = append(groups[k], i)
	}
	for i, s := range c.skills {
		name := s.short()
		if !hasNonASCII([]byte(name)) {
			continue
		}
		var others []string
		seen := map[string]bool{sameName(name): true}
		for _, j := range groups[c.keys[i]] {
			other := c.skills[j].short()
			if seen[sameName(other)] {
				continue // the same name: copies of one skill, or duplicate-name's business
			}
			seen[sameName(other)] = true
			label := c.skills[j].Label
			if label == "" {
				label = c.skills[j].File
			}
			others = append(others, fmt.Sprintf("%q (%s)", other, label))
		}
		if len(others) == 0 {
			continue
		}
		if len(others) > 3 {
			others = append(others[:3], fmt.Sprintf("%d more", len(others)-3))
		}
		c.add(i, "the name %q looks like %s: %s; agents and people choosing a skill by name cannot tell them "+
			"apart: rename this skill in plain letters, or remove it if you did not install it on purpose",
			name, safetext.JoinAnd(others), strings.Join(likeness(name), ", "))
	}
}

// checkMixedScripts reports every name, or plugin or scope prefix, that
// mixes scripts, unless it is reported as a look-alike already.
func checkMixedScripts(c *nameCheck) {
	for i, s := range c.skills {
		if !hasNonASCII([]byte(s.Name)) || c.has(i, CodeLookalikeName) {
			continue
		}
		for part := range strings.SplitSeq(s.Name, ":") {
			if names, letters := scriptsOf(part); mixed(names) {
				var parts []string
				for _, n := range names {
					parts = append(parts, fmt.Sprintf("%s (%s)", n, strings.Join(letters[n], ", ")))
				}
				c.add(i, "the name %q mixes %s letters, as look-alikes of other names do: write it in one script",
					part, safetext.JoinAnd(parts))
				break
			}
		}
	}
}

// sameName is what two names that are the same share: the name in NFC
// (a name read from a folder on macOS is in NFD, the frontmatter's
// usually in NFC), in lower case.
func sameName(name string) string { return strings.ToLower(norm.NFC.String(name)) }

// nameKey is what two look-alike names share: the TR39 skeleton of the
// name in NFKC (confusables.txt leaves compatibility characters such as
// fullwidth ｐ to it) and lower case, lower-cased again (the skeleton maps
// 0 to O), so that names are compared without case, as agents and dedupe
// compare them.
func nameKey(name string) string {
	return strings.ToLower(confusable.Skeleton(strings.ToLower(norm.NFKC.String(name))))
}

// likeness lists the characters of name beyond ASCII whose skeleton is
// another text: "р (U+0440, Cyrillic) looks like p".
func likeness(name string) []string {
	var out []string
	seen := map[rune]bool{}
	for _, r := range norm.NFC.String(name) {
		if r < utf8.RuneSelf || seen[r] {
			continue
		}
		seen[r] = true
		self := norm.NFC.String(strings.ToLower(string(r)))
		key := norm.NFC.String(nameKey(string(r)))
		if key == self {
			continue
		}
		// "р (U+0440, Cyrillic)"; a character that shows nothing by
		// itself by its code alone: "(U+200B)".
		what := fmt.Sprintf("U+%04X", r)
		if s := scriptOf(r); s != "" {
			what += ", " + s
		}
		what = "(" + what + ")"
		if unicode.IsGraphic(r) && !unicode.Is(unicode.Mn, r) {
			what = string(r) + " " + what
		}
		if key == "" {
			out = append(out, what+" is invisible")
		} else {
			out = append(out, what+" looks like "+key)
		}
	}
	if len(out) == 0 {
		out = append(out, "their characters differ only in ways the skeleton ignores")
	}
	return out
}

// scriptOf names the script of r: "" for characters of no one script
// (digits, punctuation, combining marks: Common and Inherited).
func scriptOf(r rune) string {
	if r < utf8.RuneSelf {
		if 'a' <= r|0x20 && r|0x20 <= 'z' {
			return "Latin"
		}
		return ""
	}
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	for _, name := range likelyScripts {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	for name, t := range unicode.Scripts { // scripts are disjoint: the order does not matter
		if unicode.Is(t, r) {
			return name
		}
	}
	return ""
}

// likelyScripts are tried first by scriptOf.
var likelyScripts = []string{"Latin", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul", "Armenian"}

// scriptsOf returns the scripts of the letters of s, in order of first
// appearance, and the distinct letters of each.
func scriptsOf(s string) (names []string, letters map[string][]string) {
	letters = map[string][]string{}
	for _, r := range s {
		n := scriptOf(r)
		if n == "" {
			continue
		}
		if _, ok := letters[n]; !ok {
			names = append(names, n)
		}
		if l := string(r); !slices.Contains(letters[n], l) {
			letters[n] = append(letters[n], l)
		}
	}
	return names, letters
}

// allowedMixes are the sets of scripts TR39's highly restrictive level
// lets one identifier mix.
var allowedMixes = [][]string{
	{"Latin", "Han", "Hiragana", "Katakana"},
	{"Latin", "Han", "Bopomofo"},
	{"Latin", "Han", "Hangul"},
}

// mixed reports whether the scripts of one name are more than one, and
// not a set allowedMixes allows.
func mixed(scripts []string) bool {
	if len(scripts) < 2 {
		return false
	}
	for _, set := range allowedMixes {
		if !slices.ContainsFunc(scripts, func(s string) bool { return !slices.Contains(set, s) }) {
			return false
		}
	}
	return true
}

// short is the skill's name within its plugin or scope, as
// pipeline.Record.ShortName has it: a plugin's skills are compared with
// everyone's by the names they give themselves.
func (s NamedSkill) short() string { return (&pipeline.Record{Name: s.Name}).ShortName() }

// RecordNames are the records as the rules of names see them.
func RecordNames(records []*pipeline.Record) []NamedSkill {
	out := make([]NamedSkill, len(records))
	for i, r := range records {
		// The frontmatter name, which every host shows (Claude Code beside
		// the folder's, in parentheses), and FileNames reads.
		out[i] = NamedSkill{Name: r.FrontmatterName(), File: r.File, Label: r.ID, Command: r.IsCommand()}
	}
	return out
}

// FileNames are the skills whose skill files are files as the rules of
// names see them: the frontmatter name, as discovery reads it, or the
// folder's name when there is none.
func FileNames(files []string) []NamedSkill {
	out := make([]NamedSkill, len(files))
	for i, file := range files {
		out[i] = NamedSkill{Name: readName(file), File: file}
	}
	return out
}

// readName reads the name of the skill whose skill file is file, as
// discovery does (see skillmd.CleanName); a file without one is named
// after its folder.
func readName(file string) string {
	name := ""
	if f, _, err := safefile.Open(file); err == nil {
		if h, err := skillmd.ReadHead(f); err == nil {
			front, _ := skillmd.Decode(h)
			name = front.Name
		}
		f.Close()
	}
	if name, _ = skillmd.CleanName(name); name == "" {
		name = filepath.Base(filepath.Dir(file))
	}
	return name
}
