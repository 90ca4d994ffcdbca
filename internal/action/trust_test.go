package action

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// integrityOf is the integrity list gives the visible record named name.
func integrityOf(t *testing.T, c *Config, name string) pipeline.Integrity {
	t.Helper()
	res, err := List(context.Background(), c, ListRequest{Kind: pipeline.TypeSkill})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Records {
		if r.Name == name {
			in, ok := res.Snapshot.Integrity[r]
			if !ok {
				t.Fatalf("%s has no integrity", r.ID)
			}
			return in
		}
	}
	t.Fatalf("list shows no %s", name)
	return pipeline.Integrity{}
}

// TestTrust accepts a project skill, which list then shows trusted;
// trusting it again accepts nothing; a changed file shows it changed
// since trusted, and --all accepts the change, saying what it was.
func TestTrust(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	ctx := context.Background()

	res, err := Trust(ctx, c, TrustRequest{Skills: []string{"notes"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(b.proj, ".claude", "skills", "notes")
	if len(res.Accepted) != 1 || res.Asked != 1 {
		t.Fatalf("accepted %+v of %d, want notes of 1", res.Accepted, res.Asked)
	}
	if a := res.Accepted[0]; a.ID != "claude:notes" || a.Dir != dir || a.Files != 1 || a.Before != pipeline.IntegrityNew {
		t.Errorf("accepted %+v, want claude:notes in %s, 1 file, new before", a, dir)
	}
	if in := integrityOf(t, c, "notes"); in.State != pipeline.IntegrityTrusted || !in.Accepted {
		t.Errorf("after trust, list shows %+v, want trusted", in)
	}

	if res, err = Trust(ctx, c, TrustRequest{Skills: []string{"claude:notes"}}); err != nil ||
		len(res.Accepted) != 0 || res.Asked != 1 {
		t.Errorf("trusting it again: %+v, %v; want nothing accepted of 1", res, err)
	}

	testfs.Write(t, dir, map[string]string{"SKILL.md": skillText("notes", "now it says something else")})
	if in := integrityOf(t, c, "notes"); in.State != pipeline.IntegrityChanged || !in.Accepted {
		t.Errorf("after a change, list shows %+v, want changed since trusted", in)
	}
	res, err = Trust(ctx, c, TrustRequest{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Accepted) != 1 || res.Accepted[0].Before != pipeline.IntegrityChanged ||
		res.Accepted[0].Summary != "1 file changed" {
		t.Errorf("--all after a change: %+v, want notes, 1 file changed", res.Accepted)
	}
	if in := integrityOf(t, c, "notes"); in.State != pipeline.IntegrityTrusted {
		t.Errorf("after accepting the change, list shows %+v", in)
	}
}

// TestTrustRefuses: a request naming nothing (or naming skills and
// --all) is a usage error; a user skill is not checked, so naming one
// fails, as a name that finds nothing does.
func TestTrustRefuses(t *testing.T) {
	b := newBox(t)
	b.writeSkills(t)
	c := b.config(t)
	ctx := context.Background()
	for _, req := range []TrustRequest{{}, {Skills: []string{"notes"}, All: true}} {
		if _, err := Trust(ctx, c, req); !IsUsage(err) {
			t.Errorf("%+v: %v, want a usage error", req, err)
		}
	}
	for name, want := range map[string]string{
		"claude:pdf": "claude:pdf is a user skill: ccski records and checks only project and plugin skills",
		"nosuch":     "nosuch",
	} {
		if _, err := Trust(ctx, c, TrustRequest{Skills: []string{name}}); err == nil || IsUsage(err) ||
			!strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a failure saying %q", name, err, want)
		}
	}
}
