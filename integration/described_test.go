package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ccski/ccski/internal/testfs"
)

// catalogueLines returns the skills a skill tool description shows, by the
// name it lists each under, and whether it gives the skill a description
// (a full entry, or a <skill_names> line with one).
func catalogueLines(desc string) (names []string, described map[string]bool) {
	_, block, _ := strings.Cut(desc, "<available_skills>")
	block, _, _ = strings.Cut(block, "</available_skills>")
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
	described = map[string]bool{}
	for _, m := range nameElem.FindAllStringSubmatch(block, -1) {
		n := unescape.Replace(m[1])
		names = append(names, n)
		described[n] = true
	}
	if _, lines, ok := strings.Cut(block, "<skill_names>\n"); ok {
		lines, _, _ = strings.Cut(lines, "</skill_names>")
		for line := range strings.SplitSeq(strings.TrimSuffix(lines, "\n"), "\n") {
			name, d, _ := strings.Cut(line, " — ")
			n := unescape.Replace(name)
			names = append(names, n)
			described[n] = d != ""
		}
	}
	return names, described
}

// TestCatalogueDescriptionsWhereTheyMatter is issue 22's point 8 on a
// machine-sized tree (347 skills, 207 of them in six plugins) at the
// default budget: the description lists each skill by the shortest name
// that loads exactly it (document-skills-skill-003, not
// claude:@document-skills:document-skills-skill-003), which leaves room
// for descriptions; the project's skills get theirs first, then the
// skills loaded most on this machine (counted by the server in a file of
// ccski's state folder that holds ids and numbers only, read when the
// server starts), then the rest.
func TestCatalogueDescriptionsWhereTheyMatter(t *testing.T) {
	tr := newCatalogueTree(t)
	extra := map[string]string{}
	for i := range 33 {
		name := fmt.Sprintf("extra-skill-%03d", i)
		extra[".agents/skills/"+name+"/SKILL.md"] = fmt.Sprintf("---\nname: %s\ndescription: Use when the user asks about %s, "+
			"a realistic description of what it does and which steps it follows.\n---\n# %s\n", name, name, name)
	}
	testfs.Write(t, tr.home, extra)
	const total = 347
	tr.state = t.TempDir()

	ctx := mcpContext(t)
	cs, stderr := tr.serve(t, ctx, "")
	desc := toolsByName(t, ctx, cs)["skill"].Description
	names, described := catalogueLines(desc)
	n := 0
	for _, d := range described {
		if d {
			n++
		}
	}
	t.Logf("%d of %d skills named, %d with a description, in %d characters", len(names), total, n, utf8.RuneCountInString(desc))
	if len(names) != total {
		t.Fatalf("%d of %d skills named, want every one\nstderr:\n%s", len(names), total, stderr)
	}
	loaded := loadedIDs(t, ctx, cs, names)
	seen := map[string]bool{}
	for _, name := range names {
		id := loaded[name]
		if seen[id] {
			t.Errorf("%q loads %s, which another listed name loads too", name, id)
		}
		seen[id] = true
		if strings.HasPrefix(name, "claude:@") || name == id && strings.Contains(id, ":") {
			t.Errorf("%q is listed by its id, where a shorter name loads it", name)
		}
	}
	for i := range 12 {
		if name := fmt.Sprintf("repo-skill-%03d", i); !described[name] {
			t.Errorf("the project's skill %s has no description", name)
		}
	}

	// A count of its own: two skills the round-robin reaches last, loaded
	// through the skill tool, get descriptions from the next start on.
	tr.state = t.TempDir()
	busy := map[string]int{"scientific-skill-149": 3, "scientific-skill-148": 2}
	cs, _ = tr.serve(t, ctx, "")
	_, before := catalogueLines(toolsByName(t, ctx, cs)["skill"].Description)
	for name, times := range busy {
		if before[name] {
			t.Fatalf("%s is described before any load: the test shows nothing", name)
		}
		for range times {
			if _, err := loadSkill(ctx, cs, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	_ = cs.Close()
	data, err := os.ReadFile(filepath.Join(tr.state, "ccski", "usage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var count struct {
		Version int            `json:"version"`
		Loads   map[string]int `json:"loads"`
	}
	if err := json.Unmarshal(data, &count); err != nil {
		t.Fatal(err)
	}
	if len(count.Loads) != 2 || count.Loads["claude:@scientific-skills:scientific-skill-149"] != 3 ||
		count.Loads["claude:@scientific-skills:scientific-skill-148"] != 2 {
		t.Errorf("the count holds %s, want the two skills' ids with 3 and 2 loads", data)
	}
	cs, _ = tr.serve(t, ctx, "")
	_, after := catalogueLines(toolsByName(t, ctx, cs)["skill"].Description)
	for name := range busy {
		if !after[name] {
			t.Errorf("%s, loaded %d times, has no description after a restart", name, busy[name])
		}
	}
}
