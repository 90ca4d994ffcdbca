package engine

import (
	"fmt"
	"path/filepath"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// Discovery reads a record's own file (SKILL.md, a command's file) to
// parse its name, description and the other fields every list shows; a
// gate reads the file again to judge it. A file changed between the two
// reads would have lists show fields parsed from bytes the gate never
// judged. So, under a gate, a record is served only when the bytes
// discovery parsed (pipeline.Record.HeadDigest, of its first HeadSize
// bytes) are the judged file's: compared with the judged digest when
// discovery read the whole file, else checked by reading the file again,
// whole, against both digests. A record that fails is dropped from the
// snapshot (its next copy takes its place), and the next snapshot, which
// reads both again, serves it.

// ParsedStageName is the name of the stage that drops the records whose
// own file changed between discovery's read and a gate's, as
// pipeline.Drop.Stage gives it.
const ParsedStageName = "parsed-as-judged"

// parsedMemo remembers the records whose file a re-read showed to be, as
// parsed, the bytes judged, with the judged digest, so that a rescan
// that hands back the same records reads none of them again.
type parsedMemo map[*pipeline.Record]string

// parsedStage returns the stage that drops, of records, those a gate of
// judged covers whose own file, as discovery parsed it, is not the file
// as that gate judged it. It returns nil when no gate ran. memo is
// replaced by what the stage checked now.
func parsedStage(records []*pipeline.Record, judged []*pipeline.Judgement, memo *parsedMemo) pipeline.Stage {
	var gates []*pipeline.Judgement
	for _, j := range judged {
		if j != nil {
			gates = append(gates, j)
		}
	}
	if len(gates) == 0 {
		*memo = nil
		return nil
	}
	next := parsedMemo{}
	why := map[*pipeline.Record]string{}
	for _, r := range records {
		for _, j := range gates {
			files, ok := j.Of(r)
			if !ok {
				continue
			}
			f, ok := files.File(filepath.Base(r.File))
			if !ok {
				if len(files) == 0 {
					continue // nothing judged: nothing is served, and the gate's stage says why
				}
				why[r] = fmt.Sprintf("%s was not among the files %s judged", filepath.Base(r.File), j.Gate)
				break
			}
			if err := parsedIsJudged(r, f, *memo, next); err != nil {
				why[r] = err.Error()
				break
			}
		}
	}
	*memo = next
	return &parsedDrop{why: why}
}

// parsedIsJudged returns nil when the bytes discovery parsed of r's own
// file are those of f, the file as a gate judged it; memo holds what
// earlier snapshots showed, and next gets what this one did.
func parsedIsJudged(r *pipeline.Record, f pipeline.JudgedFile, memo, next parsedMemo) error {
	changed := fmt.Errorf("%s changed while ccski read it: the fields lists show were parsed from other bytes "+
		"than %s were judged, so it is not served until the next rescan reads both again", r.File, filepath.Base(r.File))
	switch {
	case r.HeadDigest == "" || r.HeadSize > f.Size:
		return changed
	case r.HeadSize == f.Size:
		if r.HeadDigest != f.Digest {
			return changed
		}
		return nil
	case memo[r] == f.Digest:
		next[r] = f.Digest
		return nil
	}
	// Discovery read the beginning of a longer file: read it whole, no
	// further than the size judged, and check both digests.
	data, more, err := safefile.ReadPrefix(r.File, f.Size)
	if err != nil || more || int64(len(data)) != f.Size || manifest.Digest(data) != f.Digest ||
		manifest.Digest(data[:r.HeadSize]) != r.HeadDigest {
		return changed
	}
	next[r] = f.Digest
	return nil
}

// parsedDrop is the stage parsedStage returns.
type parsedDrop struct {
	why map[*pipeline.Record]string
}

func (s *parsedDrop) Name() string { return ParsedStageName }

func (s *parsedDrop) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	if len(s.why) == 0 {
		return in, nil
	}
	var out []*pipeline.Record
	var drops []pipeline.Drop
	for _, r := range in {
		if why, ok := s.why[r]; ok {
			drops = append(drops, pipeline.Drop{Record: r, Reason: why})
			continue
		}
		out = append(out, r)
	}
	return out, drops
}
