package filters

import (
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
)

// groupByKey groups records by DedupeKey, groups in first-seen order and
// records in input order within each group.
func groupByKey(records []*pipeline.Record) [][]*pipeline.Record {
	index := map[string]int{}
	var groups [][]*pipeline.Record
	for _, r := range records {
		k := r.DedupeKey()
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// autoDedupe keeps the priority winner of every group of records sharing
// a DedupeKey. Each winner takes the position of its group's first-seen
// copy. lostTo maps every other record to its winner.
func autoDedupe(records []*pipeline.Record, prio *Priority) (kept []*pipeline.Record, lostTo map[*pipeline.Record]*pipeline.Record) {
	lostTo = map[*pipeline.Record]*pipeline.Record{}
	for _, g := range groupByKey(records) {
		w := prio.best(g)
		kept = append(kept, w)
		for _, r := range g {
			if r != w {
				lostTo[r] = w
			}
		}
	}
	return kept, lostTo
}

// DupInfo describes a record's place among copies of the same skill.
type DupInfo struct {
	// Group numbers the groups from 1 in the order their first copy
	// appears.
	Group int
	// Winner is true for the copy that wins by priority.
	Winner bool
}

// Duplicates finds the records that share a DedupeKey with another record
// and reports their group and which copy wins. Records without a copy are
// absent from the map. The list command uses it to badge duplicates.
func Duplicates(records []*pipeline.Record, prio *Priority) map[*pipeline.Record]DupInfo {
	if prio == nil {
		prio = defaultPriority()
	}
	out := map[*pipeline.Record]DupInfo{}
	n := 0
	for _, g := range groupByKey(records) {
		if len(g) < 2 {
			continue
		}
		n++
		w := prio.best(g)
		for _, r := range g {
			out[r] = DupInfo{Group: n, Winner: r == w}
		}
	}
	return out
}

// pathDedupe drops records whose folder was already kept.
type pathDedupe struct{}

// PathDedupe returns the stage that drops a record whose folder (RealDir,
// or Dir when RealDir is empty) is the same as an earlier kept record's,
// for example one skill reached through two symlinked roots. A folder holds
// many commands, so a command is compared by its file in that folder
// instead. Records with no folder are kept.
func PathDedupe() pipeline.Stage { return pathDedupe{} }

// Name returns "path-dedupe".
func (pathDedupe) Name() string { return "path-dedupe" }

// Apply keeps the first record of every folder (every file, for commands).
func (pathDedupe) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	seen := map[string]*pipeline.Record{}
	var out []*pipeline.Record
	var dropped []pipeline.Drop
	for _, r := range in {
		key, what := folderKey(r)
		if key == "" {
			out = append(out, r)
			continue
		}
		if first, ok := seen[key]; ok {
			dropped = append(dropped, pipeline.Drop{Record: r, Reason: "same " + what + " as " + first.ID, By: first})
			continue
		}
		seen[key] = r
		out = append(out, r)
	}
	return out, dropped
}

// folderKey returns what makes r the same skill as another record reached
// through another root: its folder (RealDir, or Dir when RealDir is
// empty), or for a command its file in that folder, and which of the two
// it is ("folder" or "file"). The key is "" for a record with no folder.
func folderKey(r *pipeline.Record) (key, what string) {
	dir := r.RealDir
	if dir == "" {
		dir = r.Dir
	}
	if dir == "" {
		return "", ""
	}
	if r.IsCommand() {
		// "\x00" keeps command keys apart from folder keys.
		return "\x00" + filepath.Join(filepath.Clean(dir), filepath.Base(r.File)), "file"
	}
	return filepath.Clean(dir), "folder"
}
