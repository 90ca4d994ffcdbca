package trust

import (
	"fmt"

	"github.com/ccski/ccski/pipeline"
)

// StageName is the name of the stage Stage returns, as pipeline.Drop.Stage
// gives it.
const StageName = "trust"

// Stage returns the stage of mcp.require_trusted: it drops every project
// skill record whose files do not match a state accepted with ccski trust
// (see Checker.Check for found), with a reason that names ccski trust, so
// that agents are neither listed nor served it. Like the security scan's
// block stage it runs before the filter stages, so that the next copy of
// a dropped skill takes its place. Plugin skills are only flagged.
func Stage(found map[*pipeline.Record]pipeline.Integrity) pipeline.Stage {
	return &stage{found: found}
}

// Gated reports whether mcp.require_trusted decides if r is served: a
// project skill. Plugin skills are only flagged, and a user's own skills
// and commands are not checked.
func Gated(r *pipeline.Record) bool { return pipeline.GateTrust.Covers(r) }

type stage struct {
	found map[*pipeline.Record]pipeline.Integrity
}

func (s *stage) Name() string { return StageName }

func (s *stage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var drops []pipeline.Drop
	for _, r := range in {
		if !Gated(r) {
			out = append(out, r)
			continue
		}
		in, ok := s.found[r]
		if ok && in.Trusted() {
			out = append(out, r)
			continue
		}
		drops = append(drops, pipeline.Drop{Record: r, Reason: untrusted(r, in, ok)})
	}
	return out, drops
}

// untrusted says why a project skill is not served under
// mcp.require_trusted.
func untrusted(r *pipeline.Record, in pipeline.Integrity, checked bool) string {
	why := "its files were never accepted with ccski trust"
	switch {
	case !checked:
		why = "its files were not checked"
	case in.State == pipeline.IntegrityChanged && in.Accepted:
		why = "its files changed since you trusted them (" + in.Summary() + ")"
	case in.State == pipeline.IntegrityChanged:
		why = "its files were never accepted with ccski trust, and changed since first seen (" + in.Summary() + ")"
	case in.State == pipeline.IntegrityUnknown:
		why = "its files could not be checked (" + in.Error + ")"
	}
	return fmt.Sprintf("project skill not trusted: %s, and mcp.require_trusted is on, so it is not served to agents: "+
		"review it, then run ccski trust %s", why, r.ID)
}
