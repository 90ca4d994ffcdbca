package web

import (
	"cmp"
	"context"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"github.com/ccski/ccski/internal/search"
	"github.com/ccski/ccski/pipeline"
)

// The states of a skill on the page.
const (
	stateServed   = "served"   // the server serves it
	stateHidden   = "hidden"   // a filter or a dedupe hid it
	stateDisabled = "disabled" // its file is .SKILL.md, or the state filter hid it
)

// pageSize is how many skills one page of the list holds: the first paint
// renders this many, whatever the catalogue's size.
const pageSize = 100

// maxLimit caps the limit a request of /ui/skills.json may ask for.
const maxLimit = 500

// row is one skill as the list shows it. The JSON names are what the
// script reads (app.js).
type row struct {
	rec       *pipeline.Record
	lname     string           // Name, lower-cased, to sort by
	bare      *pipeline.Record // a skill not served, less its description: what the search of those may match
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Desc      string           `json:"desc"`
	Provider  string           `json:"provider"`
	Plugin    string           `json:"plugin,omitempty"`
	Location  string           `json:"location"`
	Group     string           `json:"group"`
	State     string           `json:"state"`
	Reason    string           `json:"reason,omitempty"`
	Integrity string           `json:"integrity,omitempty"`
	Signature string           `json:"signature"`
	Signer    string           `json:"signer,omitempty"`
	Findings  int              `json:"findings"`
	Severity  string           `json:"severity,omitempty"` // the worst finding's
	Off       string           `json:"off,omitempty"`      // the hosts whose settings switch it off
}

// catalogue is every skill of one snapshot as rows, grouped by provider
// and plugin, built once per snapshot.
type catalogue struct {
	// snap is the snapshot the catalogue lists, held weakly: the rows
	// keep its records alive, so the catalogue is dropped once nothing
	// else holds the snapshot (catalogues.of).
	snap weak.Pointer[pipeline.Snapshot]
	rows []*row
	byID map[string]*row
	// The values each filter offers.
	providers, plugins, locations []string
	counts                        map[string]int // rows per state
}

// catalogues keeps the catalogue of the snapshot served now, and no
// longer: once the server has moved on and its old snapshot is collected,
// the catalogue (at 100,000 skills, its rows and through them the old
// records) goes too, even when nobody browses the page again.
type catalogues struct {
	mu  sync.Mutex
	cur *catalogue
}

// of returns the catalogue of snap, building it when snap is new.
func (c *catalogues) of(snap *pipeline.Snapshot) *catalogue {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := weak.Make(snap)
	if c.cur == nil || c.cur.snap != key {
		c.cur = buildCatalogue(snap)
		if snap != nil {
			runtime.AddCleanup(snap, c.forget, key)
		}
	}
	return c.cur
}

// forget drops the catalogue of the snapshot key, collected.
func (c *catalogues) forget(key weak.Pointer[pipeline.Snapshot]) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && c.cur.snap == key {
		c.cur = nil
	}
}

// buildCatalogue makes the rows of every skill of snap: the visible ones,
// then the ones the pipeline dropped, each with why.
func buildCatalogue(snap *pipeline.Snapshot) *catalogue {
	c := &catalogue{snap: weak.Make(snap), byID: map[string]*row{}, counts: map[string]int{}}
	if snap == nil {
		return c
	}
	add := func(r *pipeline.Record, state, reason string) {
		if r.IsCommand() || c.byID[r.ID] != nil {
			return
		}
		w := rowOf(snap, r, state, reason)
		c.rows = append(c.rows, w)
		c.byID[r.ID] = w
		c.counts[state]++
	}
	for _, r := range snap.Skills() {
		add(r, stateServed, "")
	}
	for _, d := range snap.Drops {
		state := stateHidden
		if d.Record.Disabled || d.Stage == "state" {
			state = stateDisabled
		}
		add(d.Record, state, d.Reason)
	}
	slices.SortStableFunc(c.rows, func(a, b *row) int {
		return cmp.Or(strings.Compare(a.Provider, b.Provider), strings.Compare(a.Plugin, b.Plugin),
			strings.Compare(a.lname, b.lname), strings.Compare(a.ID, b.ID))
	})
	seen := map[string]bool{}
	for _, w := range c.rows {
		for _, v := range [...]struct {
			list *[]string
			val  string
		}{{&c.providers, "p:" + w.Provider}, {&c.plugins, "g:" + w.Plugin}, {&c.locations, "l:" + w.Location}} {
			if v.val[2:] != "" && !seen[v.val] {
				seen[v.val] = true
				*v.list = append(*v.list, v.val[2:])
			}
		}
	}
	slices.Sort(c.providers)
	slices.Sort(c.plugins)
	slices.Sort(c.locations)
	return c
}

// rowOf describes r for the list. A skill the server does not serve
// (state hidden or disabled) is described by its name, where it is and
// why it is not served, and nothing of its content: /mcp never serves
// it, and the page publishes no more (its description, findings and
// files are withheld).
func rowOf(snap *pipeline.Snapshot, r *pipeline.Record, state, reason string) *row {
	w := &row{rec: r, ID: r.ID, Name: r.Name, Provider: r.Agent,
		Location: string(r.Location), State: state, Reason: reason, Group: r.Agent}
	if r.Plugin != nil {
		w.Plugin = r.Plugin.Plugin
		w.Group += "/" + w.Plugin
	}
	var off []string
	for _, s := range r.Off {
		off = append(off, s.Host+" ("+s.Mode+")")
	}
	w.Off = strings.Join(off, ", ")
	w.lname = strings.ToLower(w.Name)
	if state != stateServed {
		bare := *r
		bare.Description = "" // withheld: a search must not reveal it either
		w.bare = &bare
		return w
	}
	w.Desc = r.Description
	if in, ok := snap.Integrity[r]; ok {
		w.Integrity = string(in.State)
	}
	sig := snap.SignatureOf(r)
	w.Signature = string(sig.State)
	if sig.Signed() {
		w.Signer = sig.Signer.String()
	}
	finds := snap.Security[r]
	w.Findings = len(finds)
	for _, f := range finds {
		if w.Severity == "" || severityRank(string(f.Severity)) > severityRank(w.Severity) {
			w.Severity = string(f.Severity)
		}
	}
	return w
}

func severityRank(s string) int {
	switch s {
	case "error":
		return 3
	case "warning":
		return 2
	case "info":
		return 1
	}
	return 0
}

// query is a view of the list: the search and the filters a URL names.
type query struct {
	Q, Provider, Plugin, Location, State, Integrity, Signature, Findings string
	Offset, Limit                                                        int
}

// queryOf reads a view from URL parameters.
func queryOf(v url.Values) query {
	q := query{Q: strings.TrimSpace(v.Get("q")), Provider: v.Get("provider"), Plugin: v.Get("plugin"),
		Location: v.Get("location"), State: v.Get("state"), Integrity: v.Get("integrity"),
		Signature: v.Get("signature"), Findings: v.Get("findings"), Limit: pageSize}
	if q.State == "" {
		q.State = stateServed // the skills served; "all" shows the hidden and disabled ones too
	}
	if n, err := strconv.Atoi(v.Get("offset")); err == nil && n > 0 {
		q.Offset = n
	}
	if n, err := strconv.Atoi(v.Get("limit")); err == nil && n > 0 {
		q.Limit = min(n, maxLimit)
	}
	return q
}

// values is the view as URL parameters, without paging and empty ones.
func (q query) values() url.Values {
	v := url.Values{}
	state := q.State
	if state == stateServed {
		state = "" // the default
	}
	for _, p := range [...][2]string{{"q", q.Q}, {"provider", q.Provider}, {"plugin", q.Plugin},
		{"location", q.Location}, {"state", state}, {"integrity", q.Integrity},
		{"signature", q.Signature}, {"findings", q.Findings}} {
		if p[1] != "" {
			v.Set(p[0], p[1])
		}
	}
	return v
}

// keeps reports whether w passes the view's filters (not its search).
func (q query) keeps(w *row) bool {
	switch {
	case q.Provider != "" && w.Provider != q.Provider,
		q.Plugin != "" && w.Plugin != q.Plugin,
		q.Location != "" && w.Location != q.Location,
		q.State != "all" && w.State != q.State,
		q.Integrity != "" && w.Integrity != q.Integrity && !(q.Integrity == "none" && w.Integrity == ""),
		q.Signature != "" && w.Signature != q.Signature:
		return false
	}
	switch q.Findings {
	case "yes":
		return w.Findings > 0
	case "no":
		return w.Findings == 0
	case "error", "warning", "info":
		return w.Severity == q.Findings
	}
	return true
}

// result is one page of a view.
type result struct {
	Count int    // the skills matching the view
	Rows  []*row // the page
	Next  int    // the offset of the next page; 0 when this is the last
}

// list returns the page of the view q: with a search, the visible skills
// the server's search finds, best first, then the hidden and disabled ones
// that package search (skills_search's matching and ranking) finds by
// their name and id, best first: not by their description or body, which
// the page withholds for skills the server does not serve; without one,
// every skill in group order.
func (c *catalogue) list(ctx context.Context, src Source, q query) (result, error) {
	var matched []*row
	if q.Q == "" {
		for _, w := range c.rows {
			if q.keeps(w) {
				matched = append(matched, w)
			}
		}
	} else {
		ids, err := src.Search(ctx, q.Q, len(c.rows)+1)
		if err != nil {
			return result{}, err
		}
		seen := make(map[*row]bool, len(ids))
		for _, id := range ids {
			if w := c.byID[id]; w != nil && !seen[w] && q.keeps(w) {
				seen[w] = true
				matched = append(matched, w)
			}
		}
		var dropped []*pipeline.Record
		for _, w := range c.rows {
			if w.State != stateServed && !seen[w] && q.keeps(w) {
				dropped = append(dropped, w.bare)
			}
		}
		if len(dropped) > 0 {
			hits, _ := search.Rank(dropped, q.Q, search.Options{})
			for _, h := range hits {
				if w := c.byID[h.Record.ID]; w != nil {
					matched = append(matched, w)
				}
			}
		}
	}
	res := result{Count: len(matched)}
	if q.Offset < len(matched) {
		end := min(q.Offset+q.Limit, len(matched))
		res.Rows = matched[q.Offset:end]
		if end < len(matched) {
			res.Next = end
		}
	}
	return res, nil
}

// group is a run of rows of one provider and plugin on a page.
type group struct {
	Key  string
	Rows []*row
}

// groups splits a page's rows into runs of one provider and plugin, in
// the order the rows come: a new group starts wherever the group changes.
// Without a search the rows are in group order, so each group is one run;
// with one, the ranking is kept and a group that comes back, after a
// better hit of another, heads a run again. The script (app.js, groupFor)
// applies the same rule to the rows of /ui/skills.json, so that typing a
// search and opening its deep link show the same list.
func groups(rows []*row) []*group {
	var out []*group
	for _, w := range rows {
		if len(out) == 0 || out[len(out)-1].Key != w.Group {
			out = append(out, &group{Key: w.Group})
		}
		g := out[len(out)-1]
		g.Rows = append(g.Rows, w)
	}
	return out
}
