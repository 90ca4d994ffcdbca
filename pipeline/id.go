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
