package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/pipeline"
)

// TestSnapshotJudged: a snapshot carries what each gate judged, so that a
// server serves those bytes and no others: under mcp.scan: block every
// record, with the digest of its file as the scan read it; under
// mcp.require_trusted every project skill, with its accepted files, or
// none while untrusted. Without a gate, or under warn, it carries none.
func TestSnapshotJudged(t *testing.T) {
	m := newMachine(t)
	store := filepath.Join(t.TempDir(), "trust.json")
	ownDigest := func(t *testing.T, r *pipeline.Record) string {
		t.Helper()
		data, err := os.ReadFile(r.File)
		if err != nil {
			t.Fatal(err)
		}
		return manifest.Digest(data)
	}

	for _, mode := range []scanmode.Mode{scanmode.Off, scanmode.Warn} {
		e := m.engine(t, m.config())
		e.SetScan(mode)
		if snap, _ := snapshot(t, e); snap.Judged != nil {
			t.Errorf("scan %s: Judged = %+v, want none", mode, snap.Judged)
		}
	}

	e := m.engine(t, m.config())
	e.SetScan(scanmode.Block)
	snap, _ := snapshot(t, e)
	if len(snap.Judged) != 1 || snap.Judged[0].Gate != pipeline.GateScan {
		t.Fatalf("block: Judged = %+v, want the scan's", snap.Judged)
	}
	for _, r := range snap.Visible {
		got, ok := snap.Judged[0].Files[r]
		if !ok {
			t.Errorf("block: %s is not judged", r.ID)
			continue
		}
		if f, ok := got.File(filepath.Base(r.File)); !ok || f.Digest != ownDigest(t, r) {
			t.Errorf("block: %s: %s judged as %+v, want its digest", r.ID, filepath.Base(r.File), f)
		}
	}

	e = m.engine(t, m.config())
	e.SetTrust(TrustOptions{File: store, Require: true})
	snap, _ = snapshot(t, e)
	var project []*pipeline.Record
	for _, r := range snap.All {
		if trust.Gated(r) {
			project = append(project, r)
		}
	}
	if len(snap.Judged) != 1 || snap.Judged[0].Gate != pipeline.GateTrust || len(project) == 0 {
		t.Fatalf("require_trusted: Judged = %+v over %d project skills", snap.Judged, len(project))
	}
	for _, r := range snap.All {
		got, ok := snap.Judged[0].Files[r]
		if ok != trust.Gated(r) || ok && len(got) != 0 {
			t.Errorf("require_trusted, nothing accepted: %s judged %v (%+v)", r.ID, ok, got)
		}
	}
	c := trust.Checker{Path: store}
	if _, err := trust.Accept(store, c.Manifests(context.Background(), project), time.Now()); err != nil {
		t.Fatal(err)
	}
	snap, _ = snapshot(t, e)
	for _, r := range snap.All {
		if !trust.Gated(r) {
			continue
		}
		if f, ok := snap.Judged[0].Files[r].File(filepath.Base(r.File)); !ok || f.Digest != ownDigest(t, r) {
			t.Errorf("require_trusted, accepted: %s judged as %+v, want its digest", r.ID, f)
		}
	}
}
