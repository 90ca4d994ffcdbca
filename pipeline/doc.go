// Package pipeline holds the skill record that every provider emits, the
// ordered stage runner that turns all discovered records into the visible
// set, and the immutable snapshot that the CLI and the MCP server read.
//
// The flow is:
//
//	providers  --Plan-->  []Root  --scan-->  []*Record  --Stages-->  Snapshot
//
// Records are immutable once emitted: a stage selects, orders or drops
// records but never edits one. Every record a stage drops is reported as a
// Drop with a reason, so nothing disappears silently.
package pipeline
