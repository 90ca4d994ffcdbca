package web

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// rankedSource answers every search with a fixed ranking that goes back
// and forth between groups, as a real one does.
type rankedSource struct {
	*fakeSource
	ranking []string
}

func (r rankedSource) Search(context.Context, string, int) ([]string, error) { return r.ranking, nil }

// sectionsOf reads the catalogue's list as the browser shows it: each
// section's group and the ids of its rows, in order.
func sectionsOf(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`data-group="([^"]*)"|<li class="skill" data-id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if m[2] == "" {
			out = append(out, "["+m[1]+"]")
		} else {
			out = append(out, m[2])
		}
	}
	return out
}

// TestSearchGroupsAgree: the server's page of a search and the list the
// script builds from /ui/skills.json (app.js's rule, groupFor: a new
// section wherever the group changes) are the same list, in the order of
// the ranking: a deep link and typing show the same page.
func TestSearchGroupsAgree(t *testing.T) {
	base, _ := fixture(t, 3)
	src := rankedSource{base, []string{"agents:s000001", "claude:pdf", "agents:s000002", "agents:s000000"}}
	h := Handler(src, Options{})
	_, page := get(t, h, "/?q=x")
	_, body := get(t, h, "/ui/skills.json?q=x")
	var js struct {
		Skills []struct{ ID, Group string }
	}
	if err := json.Unmarshal([]byte(body), &js); err != nil {
		t.Fatal(err)
	}
	var script []string // what app.js builds
	last := ""
	for i, s := range js.Skills {
		if i == 0 || s.Group != last {
			script = append(script, "["+s.Group+"]")
			last = s.Group
		}
		script = append(script, s.ID)
	}
	want := "[agents] agents:s000001 [claude] claude:pdf [agents] agents:s000002 agents:s000000"
	if got := strings.Join(sectionsOf(page), " "); got != want {
		t.Errorf("the server's page lists\n%s\nwant the ranking\n%s", got, want)
	}
	if got := strings.Join(script, " "); got != want {
		t.Errorf("the script's list is\n%s\nwant\n%s", got, want)
	}
	// Without a search, each group is one section, in group order.
	_, page = get(t, h, "/")
	if got := strings.Join(sectionsOf(page), " "); got != "[agents] agents:s000000 agents:s000001 agents:s000002 [claude] claude:pdf [claude/&#34;&gt;&lt;script&gt;alert(&#39;plugin&#39;)&lt;/script&gt;] claude:evil" {
		t.Errorf("the catalogue lists %s", got)
	}
}

// TestDroppedSkillsSearchedAsServed: with state=all, the hidden and
// disabled skills are found by package search's rules, as skills_search
// finds the served ones, on their name and id only: a typo in a name
// finds it, and their description, which the page withholds, finds
// nothing (a search must not reveal it either).
func TestDroppedSkillsSearchedAsServed(t *testing.T) {
	rec := func(id, name, desc string) *pipeline.Record {
		return &pipeline.Record{ID: id, Name: name, Description: desc, Agent: "claude", Location: pipeline.LocationUser,
			Dir: "/nowhere/" + name, File: "/nowhere/" + name + "/SKILL.md"}
	}
	served := rec("claude:served", "served", "a served skill")
	sheet := rec("claude:spreadsheet", "spreadsheet", "tables of numbers")
	about := rec("claude:about", "about", "writes a spreadsheet report")
	off := rec("claude:charts", "charts", "draws charts")
	off.Disabled = true
	all := []*pipeline.Record{served, sheet, about, off}
	snap := pipeline.NewSnapshot(all, []*pipeline.Record{served}, []pipeline.Drop{
		{Record: sheet, Stage: "exclude", Reason: "excluded"},
		{Record: about, Stage: "exclude", Reason: "excluded"},
		{Record: off, Stage: "state", Reason: "disabled"},
	}, nil, nil)
	h := Handler(&fakeSource{snap: snap}, Options{})
	for q, want := range map[string]string{
		"spreadsheet": "claude:spreadsheet", // not about, whose withheld description holds the word
		"report":      "",                   // only in a withheld description
		"spredsheet":  "claude:spreadsheet", // a typo in the name, as skills_search forgives it
		"chrts":       "claude:charts",
		"nothing":     "",
	} {
		_, page := get(t, h, "/?state=all&q="+url.QueryEscape(q))
		if got := strings.Join(idsOf(page), ","); got != want {
			t.Errorf("q=%s: got %q, want %q", q, got, want)
		}
	}
}
