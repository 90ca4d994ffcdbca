package pipeline

import (
	"slices"
	"strings"
)

// Gate names a check that decides which records a server serves.
type Gate string

// The gates.
const (
	// GateScan is the security scan under mcp.scan: block: a record with
	// an error-level finding is not served.
	GateScan Gate = "mcp.scan: block"
	// GateTrust is the trust store under mcp.require_trusted: a project
	// skill whose files are not a state accepted with ccski trust is not
	// served.
	GateTrust Gate = "mcp.require_trusted"
	// GateSigned is signature verification under mcp.require_signed: a
	// record whose signature does not verify against its files (or that
	// carries none) is not served, and a signed skill's files are served
	// only while they are the bytes verified.
	GateSigned Gate = "mcp.require_signed"
	// GatePolicySigned is signature verification for the organisation's
	// policy (policy.required_signers, policy.allow_unsigned): a skill
	// the policy allowed on its signer is served only while its files
	// are the bytes verified. It covers only the records whose files it
	// holds (Judgement.Files): those the policy needed a signature of.
	GatePolicySigned Gate = "policy.required_signers"
)

// Covers reports whether the gate decides whether r is served: every
// record under GateScan (skills and commands alike), a project skill
// under GateTrust (plugin skills are only flagged, a user's own skills
// and commands are not checked), every record under GateSigned (a command
// carries no signature, so none is served). GatePolicySigned covers the
// records its judgement holds (Judgement.Of), never by itself.
func (g Gate) Covers(r *Record) bool {
	switch g {
	case GateScan, GateSigned:
		return true
	case GateTrust:
		return !r.IsCommand() && r.Location == LocationProject
	}
	return false
}

// JudgedFile is one file a gate judged, as a skill manifest lists it
// (internal/manifest): its '/'-separated path in the folder holding the
// record's file, its size, and the digest ("sha256:" and 64 hex digits)
// of the bytes judged.
type JudgedFile struct {
	Path   string
	Size   int64
	Digest string
}

// JudgedFiles are the files a gate judged of one record, sorted by path.
type JudgedFiles []JudgedFile

// File returns the file at path, if the gate judged one.
func (fs JudgedFiles) File(path string) (JudgedFile, bool) {
	i, ok := slices.BinarySearchFunc(fs, path, func(f JudgedFile, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return JudgedFile{}, false
	}
	return fs[i], true
}

// Judgement is what one gate saw of the files of the records it judged
// (Snapshot.Judged), so that a server serves a file of a gated record
// only while its bytes are the ones the gate judged: a file changed since
// the judgement, or added (not among the files), is not served.
type Judgement struct {
	Gate Gate
	// Files holds, for the records the gate covers, the files it judged:
	// those the scan read, or the state of them the trust store
	// accepted. A covered record without files (one the gate could not
	// read, an untrusted skill) has nothing served.
	Files map[*Record]JudgedFiles
}

// Of returns the files the gate judged of r, and whether it covers r
// (Gate.Covers). A covered record it has no files of, such as one of
// another snapshot, has none judged.
func (j Judgement) Of(r *Record) (JudgedFiles, bool) {
	if j.Gate == GatePolicySigned {
		files, ok := j.Files[r]
		return files, ok
	}
	if !j.Gate.Covers(r) {
		return nil, false
	}
	return j.Files[r], true
}
