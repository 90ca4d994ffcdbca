package pipeline

import (
	"fmt"
	"strings"
)

// IntegrityState says how a project or plugin skill's files compare with
// what the trust store (package trust) recorded of them.
type IntegrityState string

// The integrity states.
const (
	// IntegrityNew: no record of the skill's folder until this run,
	// which recorded its files (trust on first use); not accepted.
	IntegrityNew IntegrityState = "new"
	// IntegrityRecorded: the files match what was recorded the first
	// time the skill was seen, which nobody accepted with ccski trust.
	IntegrityRecorded IntegrityState = "recorded"
	// IntegrityTrusted: the files match the state accepted with ccski
	// trust.
	IntegrityTrusted IntegrityState = "trusted"
	// IntegrityChanged: the files differ from the record.
	IntegrityChanged IntegrityState = "changed"
	// IntegrityUnknown: the files or the store could not be read.
	IntegrityUnknown IntegrityState = "unknown"
)

// Integrity is what the trust store says of one skill's files (see
// Snapshot.Integrity).
type Integrity struct {
	State IntegrityState `json:"state"`
	// Accepted is true when the record compared against was accepted
	// with ccski trust (rather than only recorded at first sight).
	Accepted bool `json:"accepted"`
	// Changed, Added and Removed are the '/'-separated paths, relative
	// to the skill folder, of the files whose content differs from the
	// record, that the record lacks, and that are gone, for
	// IntegrityChanged; each sorted.
	Changed []string `json:"changed,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Error says why the state is IntegrityUnknown.
	Error string `json:"error,omitempty"`
}

// Trusted reports whether the skill's files match a state accepted with
// ccski trust.
func (i Integrity) Trusted() bool { return i.State == IntegrityTrusted }

// Summary counts the differences in words: "2 files changed, 1 added".
// It is "" when there are none.
func (i Integrity) Summary() string {
	var parts []string
	if n := len(i.Changed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s changed", n, plural(n, "file", "files")))
	}
	if n := len(i.Added); n > 0 {
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%d %s added", n, plural(n, "file", "files")))
		} else {
			parts = append(parts, fmt.Sprintf("%d added", n))
		}
	}
	if n := len(i.Removed); n > 0 {
		if len(parts) == 0 {
			parts = append(parts, fmt.Sprintf("%d %s removed", n, plural(n, "file", "files")))
		} else {
			parts = append(parts, fmt.Sprintf("%d removed", n))
		}
	}
	return strings.Join(parts, ", ")
}

// Since says since when a changed skill's files differ: "changed since
// first seen", or "changed since trusted" when the record compared against
// was accepted with ccski trust. It is "" for the other states. ccski
// list's badge, ccski info, ccski sources and the MCP skill tool's header
// all say it so.
func (i Integrity) Since() string {
	switch {
	case i.State != IntegrityChanged:
		return ""
	case i.Accepted:
		return "changed since trusted"
	}
	return "changed since first seen"
}

// Describe says in words what a person should know of a changed or
// unknown skill: "changed since trusted: 2 files changed, 1 added; run
// ccski trust <id>". It is "" for the other states.
func (i Integrity) Describe(id string) string {
	switch i.State {
	case IntegrityChanged:
		return fmt.Sprintf("%s: %s; review it, then run ccski trust %s", i.Since(), i.Summary(), id)
	case IntegrityUnknown:
		return "integrity not checked: " + i.Error
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ChangedSkill is a project or plugin skill whose files differ from what
// the trust store recorded, or could not be checked.
type ChangedSkill struct {
	ID        string    `json:"id"`
	File      string    `json:"file"`
	Integrity Integrity `json:"integrity"`
	// Message is Integrity.Describe, for people.
	Message string `json:"message"`
}
