package engine

// A server rescans on every change it is told of, and most rescans find
// nothing changed. This file keeps what Snapshot derived from the last
// scan, so that such a rescan derives nothing again.
//
// What Snapshot derives, and from what:
//   - ids, skill paths and host switches (pipeline.AssignIDs and
//     ApplySwitches) are written into the records, from the records and
//     the switches the providers planned. The scan hands back the previous
//     records only when they are what it would build again (see
//     scan.Options.Reuse), and Snapshot lets it only when the switches are
//     equal to those it applied to them (recordState): so reused records
//     carry the ids and switches this scan would give them. When the scan
//     built new records (something changed), the ids and skill paths are
//     still taken from the last records if every record has the names of
//     the one at its place (pipeline.AssignIDsFrom, recordState.ided).
//   - the filter stages and their warnings (filters.BuildReport), from the
//     filter settings (the configuration, the disabled plugins the
//     providers planned, and whether unknown tokens are lenient) and the
//     records: kept while the records are reused and the settings are
//     deeply equal (stageState.matches).
//   - what is visible and why the rest is not (pipeline.Run), from the
//     stages and the records: kept with the stages, but only while the
//     security scan, the trust check and signature verification add no
//     stage of their own; those run on every snapshot (their findings may
//     change with no record changing), and when one adds a stage, Run runs
//     again.
//
// Everything else in a snapshot (the diagnostics of the plans and the
// scan, the roots, folders, manifests, findings, integrity and
// signatures) is built again on every run: it is cheap (a signature is
// verified again only when the skill's files changed, signing.go).

import (
	"reflect"
	"slices"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/pipeline"
)

// recordState says what Snapshot did to the records of the last scan
// after the scan built them.
type recordState struct {
	// valid is set once a scan's records had their switches applied and
	// their ids assigned.
	valid bool
	// switches are the switches applied to them, and present the hosts
	// set up on the machine then (see presentHosts).
	switches []pipeline.SkillSwitch
	present  []string
	// ided are those records, as AssignIDs left them: a rescan whose
	// records have the same names in the same order takes their ids and
	// skill paths (pipeline.AssignIDsFrom). nil when the engine keeps no
	// cache.
	ided []*pipeline.Record
}

// stageState is what the filter stages made of the last scan's records.
type stageState struct {
	// settings are the filter settings the stages were built from.
	settings filters.Settings
	// stages are the filter stages; warnings the filter-names-nothing
	// diagnostics of building them.
	stages   []pipeline.Stage
	warnings []pipeline.Diagnostic
	// ran is set once visible and drops hold what stages (alone) made of
	// the records.
	ran     bool
	visible []*pipeline.Record
	drops   []pipeline.Drop
}

// matches reports whether st was built from the filter settings fs (and
// exists at all).
func (st *stageState) matches(fs filters.Settings) bool {
	return st != nil && reflect.DeepEqual(st.settings, fs)
}

// run runs stages over records. When stages are st's own stages (no
// security or trust stage was added to them), it runs them once and then
// serves what they made: st is only kept while the records are the same.
// The slices are shared between snapshots, which never change them, and
// clipped so that appending to them copies.
func (st *stageState) run(stages []pipeline.Stage, records []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	if !sameStages(stages, st.stages) {
		return pipeline.Run(stages, slices.Clone(records))
	}
	if !st.ran {
		st.visible, st.drops = pipeline.Run(stages, slices.Clone(records))
		st.ran = true
	}
	return slices.Clip(st.visible), slices.Clip(st.drops)
}

// sameStages reports whether a and b hold the same stages in the same
// order. A stage of a type that cannot be compared is never the same.
func sameStages(a, b []pipeline.Stage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		ta := reflect.TypeOf(a[i])
		if ta != reflect.TypeOf(b[i]) || ta == nil || !ta.Comparable() || a[i] != b[i] {
			return false
		}
	}
	return true
}
