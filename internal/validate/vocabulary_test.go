package validate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// TestDiscoveryCodesAreValidateCodes runs discovery and validate over the
// same broken skills and commands: every problem discovery reports about
// a file must carry the code validate reports for that file, so that a
// code seen in ccski sources or ccski info is one docs/validate.md
// documents.
func TestDiscoveryCodesAreValidateCodes(t *testing.T) {
	skills := map[string]string{
		"no-frontmatter":     "# just markdown\n",
		"unclosed":           "---\nname: unclosed\ndescription: d\n",
		"too-large":          "---\nname: too-large\ndescription: " + strings.Repeat("x", skillmd.MaxFrontmatter) + "\n---\n",
		"empty":              "---\n\n---\nbody\n",
		"leading-blank":      "\n---\nname: leading-blank\ndescription: d\n---\n",
		"bom":                "\ufeff---\nname: bom\ndescription: d\n---\n",
		"utf8":               "---\nname: utf8\ndescription: \xff\xfe\n---\n",
		"syntax":             "---\nname: syntax\ndescription: [unclosed, list\n---\n",
		"tab":                "---\nname: tab\ndescription: d\nmetadata:\n\tauthor: x\n---\n",
		"colon":              "---\nname: colon\ndescription: Use when: the user asks\n---\n",
		"sequence":           "---\n- a\n- b\n---\n",
		"typed":              "---\nname: 123\ndescription: d\n---\n",
		"wrong-type":         "---\nname:\n  first: a\ndescription: d\n---\n",
		"no-name":            "---\ndescription: d\n---\n",
		"blank-name":         "---\nname: \"\"\ndescription: d\n---\n",
		"no-description":     "---\nname: no-description\n---\n",
		"blank-description":  "---\nname: blank-description\ndescription: \"  \"\n---\n",
		"twins/SKILL.md":     "---\nname: twins\ndescription: d\n---\n",
		"twins/.SKILL.md":    "---\nname: twins\ndescription: d\n---\n",
		"lowercase/skill.md": "---\nname: lowercase\ndescription: d\n---\n",
		"folder/SKILL.md/x":  "a folder named SKILL.md",
		"control":            "---\nname: control\ndescription: \"title\\e]0;x\\a\"\n---\n",
	}
	commands := map[string]string{
		"unclosed.md": "---\ndescription: never closed\nBody\n",
		"syntax.md":   "---\ndescription: \"open\n---\nBody\n",
		"sequence.md": "---\n- a\n---\nBody\n",
		"utf8.md":     "---\ndescription: \xff\xfe\n---\n",
		"hint.md":     "---\nargument-hint: [a] [b]\n---\nDo $1.\n",
		"type.md":     "---\ndescription: [a, b]\n---\nBody\n",
		"handoffs.md": "---\ndescription: d\nhandoffs: &h\n  - *h\n---\nBody\n",
		"huge.md":     strings.Repeat("x", skillmd.MaxCommandSize+1),
		"control.md":  "---\ndescription: \"clear\\e[2J\"\n---\nBody\n",
	}
	base := t.TempDir()
	skillRoot := filepath.Join(base, "skills")
	cmdRoot := filepath.Join(base, "commands")
	for name, content := range skills {
		file := filepath.Join(skillRoot, filepath.FromSlash(name))
		if !strings.Contains(name, "/") {
			file = filepath.Join(file, "SKILL.md")
		}
		writeFile(t, file, content)
	}
	for name, content := range commands {
		writeFile(t, filepath.Join(cmdRoot, name), content)
	}

	res := scan.Scan(context.Background(), []pipeline.Root{
		{Path: skillRoot, Agent: "claude", Provider: "claude", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent},
		{Path: cmdRoot, Agent: "claude", Provider: "commands", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserAgent, Type: pipeline.TypeCommand},
	}, scan.DefaultOptions())
	diags := res.Diagnostics
	for _, r := range res.Records {
		diags = append(diags, r.Diagnostics...)
	}

	targets, pre, err := Collect(context.Background(), []string{skillRoot, cmdRoot}, KindAll)
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := Run(context.Background(), targets, pre, Options{Profile: ProfileStrict})
	found := map[string][]string{} // skill folder or command file -> codes
	for _, f := range rep.Findings {
		found[place(f.File)] = append(found[place(f.File)], f.Code)
	}

	seen := map[string]bool{}
	for _, d := range diags {
		if d.Path == skillRoot || d.Path == cmdRoot {
			continue // about the walk, not a file
		}
		seen[d.Code] = true
		if _, ok := Lookup(d.Code); !ok {
			t.Errorf("discovery reports %s on %s: validate has no such code", d.Code, d.Path)
			continue
		}
		if at := place(d.Path); !slices.Contains(found[at], d.Code) {
			t.Errorf("discovery reports %s on %s, validate reports %q there", d.Code, d.Path, found[at])
		}
	}
	// The fixtures reach every code discovery gives a skill or command
	// file, so that a new one cannot slip past this test.
	for _, code := range []string{CodeNoFrontmatter, CodeUnclosedFrontmatter, CodeFrontmatterTooLarge,
		CodeEmptyFrontmatter, CodeLeadingBlankLine, CodeByteOrderMark, CodeInvalidUTF8, CodeYAMLSyntax, CodeYAMLTab,
		CodeUnquotedColon, CodeNotAMapping, CodeTypedScalar, CodeWrongType, CodeNameMissing, CodeNameEmpty,
		CodeDescriptionMissing, CodeDescriptionEmpty, CodeEnabledAndDisabled, CodeLowercaseSkillFile, CodeUnreadable,
		CodeCommandUnclosedFrontmatter, CodeCommandYAMLSyntax, CodeCommandArgumentHintQuotes,
		CodeCommandDescriptionType, CodeCommandHandoffs, CodeControlCharacters} {
		if !seen[code] {
			t.Errorf("no fixture makes discovery report %s", code)
		}
	}
}

// place is what a finding is about: a skill's folder, or a command file.
func place(p string) string {
	switch base := filepath.Base(p); {
	case strings.EqualFold(base, pipeline.SkillFile), strings.EqualFold(base, pipeline.DisabledSkillFile):
		return filepath.Dir(p)
	}
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return p
	}
	if strings.HasSuffix(p, ".md") && filepath.Base(filepath.Dir(p)) == "commands" {
		return p
	}
	return filepath.Dir(p)
}
