package pipeline

import (
	"strconv"
	"strings"
)

// baseID is the id a record gets when nothing else shares it:
// "<provider>:<name>", or "<provider>:@<plugin>:<skill>" for plugin skills.
// Commands have a "/" before the name ("claude:/deploy"), so they never
// collide with skills.
func baseID(r *Record) string { return r.Agent + ":" + qualifiedName(r) }

// locatedID qualifies the base id with the location:
// "<provider>@<location>:<name>".
func locatedID(r *Record) string {
	return r.Agent + "@" + string(r.Location) + ":" + qualifiedName(r)
}

// qualifiedName is the name as it appears in ids.
func qualifiedName(r *Record) string { return qualify(r, r.Name) }

// qualify writes name, r's name or its alias, as it appears in ids: "@"
// before a plugin record's, "/" before a command's.
func qualify(r *Record, name string) string {
	q, _ := qualifier(r)
	return q + name
}

// qualifier is what qualify writes before a name of r, and the same after
// a ':'.
func qualifier(r *Record) (q, colonQ string) {
	switch {
	case r.Plugin != nil && r.IsCommand():
		return "/@", ":/@"
	case r.Plugin != nil:
		return "@", ":@"
	case r.IsCommand():
		return "/", ":/"
	}
	return "", ":"
}

// AssignIDsFrom is AssignIDs for the records of a rescan, given prev, the
// records AssignIDs (or AssignIDsFrom) last ran on, in their order. The ids
// and skill paths AssignIDs gives depend on nothing but each record's
// names (sameIDInputs) and their order, so when every record has the names
// of the record at its place in prev (a rescan that found an edited
// description, a changed file or a moved time), each takes that record's
// id and skill path: what AssignIDs would give it, without building every
// id and path of the tree again. prev is only read. Otherwise it runs
// AssignIDs.
func AssignIDsFrom(records, prev []*Record) {
	if len(prev) == len(records) && len(records) > 0 {
		i := 0
		for i < len(records) && sameIDInputs(records[i], prev[i]) {
			i++
		}
		if i == len(records) {
			for i, r := range records {
				r.ID, r.SkillPath = prev[i].ID, prev[i].SkillPath
			}
			return
		}
	}
	AssignIDs(records)
}

// sameIDInputs reports whether a and b are equal in every field AssignIDs
// reads to give a record its id (baseID, locatedID) and its skill path
// (skillPathOf).
func sameIDInputs(a, b *Record) bool {
	if a.Agent != b.Agent || a.Location != b.Location || a.Name != b.Name || a.Alias != b.Alias ||
		a.FolderNamed != b.FolderNamed || a.Type != b.Type || (a.Plugin == nil) != (b.Plugin == nil) {
		return false
	}
	return a.Plugin == nil || a.Plugin.Plugin == b.Plugin.Plugin && a.Plugin.Marketplace == b.Plugin.Marketplace
}

// AssignIDs gives every record an id that no other record in the slice
// shares, compared case-insensitively. It is deterministic: the same records
// in the same order get the same ids. Records that share a base id are
// qualified with their location; records that still collide get "#2",
// "#3", ... in slice order. It also assigns every skill's SkillPath, by the
// same rule. It must run before the records are published.
func AssignIDs(records []*Record) {
	groups := make(map[string][]*Record, len(records))
	for _, r := range records {
		k := strings.ToLower(baseID(r))
		groups[k] = append(groups[k], r)
	}
	var located map[string][]*Record
	for _, r := range records {
		if len(groups[strings.ToLower(baseID(r))]) == 1 {
			r.ID = baseID(r)
			continue
		}
		r.ID = "" // drop an id from an earlier call; the loop below sets it
		if located == nil {
			located = make(map[string][]*Record)
		}
		k := strings.ToLower(locatedID(r))
		located[k] = append(located[k], r)
	}
	for _, r := range records {
		if r.ID != "" {
			continue
		}
		g := located[strings.ToLower(locatedID(r))]
		r.ID = locatedID(r)
		for i, o := range g {
			if o == r && i > 0 {
				r.ID += "#" + strconv.Itoa(i+1)
			}
		}
	}
	assignSkillPaths(records)
}
