package mcp

// What the catalogue names each skill, and which skills it favours with
// descriptions when not every one fits (catalog.go).

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/ccski/ccski/pipeline"
)

// SkillDescription is the skill tool's description of snap's visible
// skills the model may pick on its own (implicit) within budget
// characters (0: no budget), each named by
// CatalogueNames and the favoured by Favour with loads: what a server
// registers for snap.
func SkillDescription(snap *pipeline.Snapshot, budget int, loads map[string]int) (string, CatalogueStats) {
	skills := implicit(snap.Skills())
	return CatalogueWith(skills, budget, CatalogueOptions{Names: CatalogueNames(snap, skills), Favoured: Favour(skills, loads)})
}

// CatalogueNames returns for each of recs, visible skills of snap, the
// name the catalogue prints: the shortest of its names that snap.Load,
// the skill tool's lookup, resolves to exactly that skill (Snapshot.Loads) ("pdf",
// "document-skills:docx", "codex:pdf"), else its id. A name is tried only
// when shorter than the id; names of equal length are tried in the order
// short name, full name, provider-qualified short name and full name,
// "@" and the full name.
func CatalogueNames(snap *pipeline.Snapshot, recs []*pipeline.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = shortestName(snap, r)
	}
	return out
}

func shortestName(snap *pipeline.Snapshot, r *pipeline.Record) string {
	cands := []string{r.ShortName(), r.Name, r.Agent + ":" + r.ShortName(), r.Agent + ":" + r.Name}
	if r.Plugin != nil {
		cands = append(cands, "@"+r.Name)
	}
	slices.SortStableFunc(cands, func(a, b string) int {
		return cmp.Compare(utf8.RuneCountInString(a), utf8.RuneCountInString(b))
	})
	id := utf8.RuneCountInString(r.ID)
	for _, c := range cands {
		if utf8.RuneCountInString(c) >= id {
			break
		}
		if snap.Loads(c, r) { // what snap.Load, the skill tool's lookup, resolves c to
			return c
		}
	}
	return r.ID
}

// Favour returns the skills of recs (indices, in priority order) that
// the catalogue gives descriptions first, in order: the project's own
// skills (location project) in priority order, then the skills loaded
// at least once on this machine by loads (by id), most loaded first, ties
// in priority order.
func Favour(recs []*pipeline.Record, loads map[string]int) []int {
	var project, used []int
	for i, r := range recs {
		switch {
		case r.Location == pipeline.LocationProject:
			project = append(project, i)
		case loads[r.ID] > 0:
			used = append(used, i)
		}
	}
	slices.SortStableFunc(used, func(a, b int) int { return cmp.Compare(loads[recs[b].ID], loads[recs[a].ID]) })
	return append(project, used...)
}
