package main

import (
	"fmt"
	"io"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/pipeline"
)

// signatureBadge is a listed skill's signature marker: who signed it, or
// that its signature is invalid; under mcp.require_signed, a skill ccski
// mcp does not serve is marked so. An unsigned skill otherwise has none:
// most skills carry no signature yet.
func signatureBadge(st style, snap *pipeline.Snapshot, r *pipeline.Record, require bool) string {
	if r.IsCommand() && !require {
		return ""
	}
	sig := snap.SignatureOf(r)
	switch {
	case sig.Signed():
		return " " + st.Green("[signed by "+sig.Signer.Identity+"]")
	case sig.State == pipeline.SignatureInvalid && require:
		return " " + st.Red("[signature invalid: not served by ccski mcp]")
	case sig.State == pipeline.SignatureInvalid:
		return " " + st.Red("[signature invalid]")
	case require:
		return " " + st.Red("[unsigned: not served by ccski mcp]")
	}
	return ""
}

// signatureNote closes a listing with why each skill whose signature is
// invalid fails, and, under mcp.require_signed, how many records ccski mcp
// does not serve.
func signatureNote(w io.Writer, st style, snap *pipeline.Snapshot, recs []*pipeline.Record, require bool) {
	hidden := 0
	for _, r := range recs {
		sig := snap.SignatureOf(r)
		if sig.State == pipeline.SignatureInvalid {
			fmt.Fprintf(w, "%s %s\n", st.Red("✗"), wrap(r.ID+" "+sig.Describe(), width(w), "  ")[2:])
		}
		if action.NotServed(snap, r, require) != "" {
			hidden++
		}
	}
	if hidden > 0 {
		fmt.Fprintln(w, st.Dim(wrap(fmt.Sprintf("mcp.require_signed is on: ccski mcp does not serve %s without a verified signature "+
			"(ccski info NAME says why).", plural(hidden, "skill or command", "skills and commands")), width(w), "")))
	}
}
