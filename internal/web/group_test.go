package web

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
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
