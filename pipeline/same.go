package pipeline

import (
	"maps"
	"reflect"
	"slices"
)

// Same reports whether s and o serve the same thing: the same records
// (the same *Record values, which never change once published) visible,
// dropped and discovered in the same order, and equal roots, diagnostics,
// watched folders and files, disabled plugins, priority, findings,
// integrity, signatures and judgements. Only Created and what is built on
// first use may differ. A rescan that gives a snapshot the same as the one
// served keeps serving that one (see live.Refresher): nothing is built or
// notified again for it.
func (s *Snapshot) Same(o *Snapshot) bool {
	if s == o {
		return true
	}
	if s == nil || o == nil {
		return false
	}
	return slices.Equal(s.All, o.All) && slices.Equal(s.Visible, o.Visible) &&
		slices.Equal(s.Drops, o.Drops) && slices.Equal(s.Diagnostics, o.Diagnostics) &&
		slices.Equal(s.Folders, o.Folders) && slices.Equal(s.Manifests, o.Manifests) &&
		slices.Equal(s.Listings, o.Listings) && slices.Equal(s.Priority, o.Priority) &&
		(s.Priority == nil) == (o.Priority == nil) &&
		reflect.DeepEqual(s.Roots, o.Roots) && reflect.DeepEqual(s.Disabled, o.Disabled) &&
		sameMap(s.Security, o.Security, slices.Equal) &&
		sameMap(s.Integrity, o.Integrity, func(a, b Integrity) bool { return reflect.DeepEqual(a, b) }) &&
		sameMap(s.Signatures, o.Signatures, func(a, b Signature) bool { return reflect.DeepEqual(a, b) }) &&
		slices.EqualFunc(s.Judged, o.Judged, func(a, b Judgement) bool {
			return a.Gate == b.Gate && sameMap(a.Files, b.Files, slices.Equal)
		}) && (s.Judged == nil) == (o.Judged == nil)
}

// sameMap is maps.EqualFunc that also tells nil (the check did not run)
// from empty (it ran and found nothing).
func sameMap[V any](a, b map[*Record]V, eq func(V, V) bool) bool {
	return (a == nil) == (b == nil) && maps.EqualFunc(a, b, eq)
}
