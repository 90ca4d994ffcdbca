package action

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/internal/userdirs"
	"github.com/ccski/ccski/pipeline"
)

// This file holds ccski trust.

// TrustRequest is ccski trust: the skills named, or All.
type TrustRequest struct {
	// Skills are the skills to accept, each a name or id as info takes
	// it.
	Skills []string
	// All accepts every project and plugin skill, disabled ones included.
	All bool
}

// Accepted is one skill folder ccski trust accepted, and an element of
// its --json output.
type Accepted struct {
	ID     string                  `json:"id"`
	Dir    string                  `json:"dir"`
	Files  int                     `json:"files"`
	Before pipeline.IntegrityState `json:"before"`
	// Summary says what changed since the previous record, if anything.
	Summary string `json:"summary,omitempty"`
}

// TrustResult is what ccski trust accepted.
type TrustResult struct {
	// Accepted are the folders accepted, in the order asked for; a
	// folder already trusted in its current state is not among them.
	Accepted []Accepted
	// Asked is how many skills were asked for: those named, or every
	// project and plugin skill with All.
	Asked int
}

// Trust accepts the current files of the skills req names (or of every
// project and plugin skill) as trusted, in the trust store. Only project
// and plugin skills are recorded and checked; naming another is an error.
func Trust(ctx context.Context, c *Config, req TrustRequest) (*TrustResult, error) {
	if req.All == (len(req.Skills) > 0) {
		return nil, usage(errors.New("name the skills to trust, or give --all for every project and plugin skill"))
	}
	file := c.TrustFile()
	if file == "" {
		return nil, userdirs.ErrNoConfig
	}
	d, err := c.Discover(ctx, Checks{Trust: true, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	recs, err := trustTargets(d.Snapshot, req)
	if err != nil {
		return nil, err
	}
	// The snapshot's check has just hashed these files: the digest cache
	// it kept spares hashing them again.
	cache := manifest.NewCache()
	_ = cache.LoadFile(trust.DigestCachePath()) // a missing or bad cache costs only hashing
	ch := trust.Checker{Path: file, Cache: cache}
	done, err := trust.Accept(file, ch.Manifests(ctx, recs), time.Now().UTC().Truncate(time.Second))
	if err != nil {
		return nil, err
	}
	res := &TrustResult{Accepted: make([]Accepted, 0, len(done)), Asked: len(recs)}
	for _, cu := range done {
		r := cu.Records[0]
		before := d.Snapshot.Integrity[r]
		res.Accepted = append(res.Accepted, Accepted{ID: r.ID, Dir: cu.Dir, Files: len(cu.Files),
			Before: before.State, Summary: before.Summary()})
	}
	return res, nil
}

// trustTargets returns the records req asks ccski trust to accept: the
// named skills, or every project and plugin skill with All.
func trustTargets(snap *pipeline.Snapshot, req TrustRequest) ([]*pipeline.Record, error) {
	var out []*pipeline.Record
	if req.All {
		for _, r := range snap.All {
			if trust.Checked(r) {
				out = append(out, r)
			}
		}
		return out, nil
	}
	for _, name := range req.Skills {
		r, _, err := Resolve(snap, name)
		if err != nil {
			return nil, err
		}
		if !trust.Checked(r) {
			return nil, fmt.Errorf("%s is a %s %s: ccski records and checks only project and plugin skills",
				r.ID, r.Location, r.Type.OrSkill())
		}
		out = append(out, r)
	}
	return out, nil
}
