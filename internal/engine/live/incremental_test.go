package live

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/fixture"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// TestRescanMatchesFullScan checks that what a rescan takes from the scan
// before (the ids and skill paths of pipeline.AssignIDsFrom, the name
// index of Snapshot.Inherit) never makes it serve another snapshot than a
// full discovery by a new engine: after an edited description (where both
// are taken), an added skill, a removed one, a renamed one, a change of
// the copy a dedupe keeps and a disabled skill turned on, the two
// snapshots hold equal records, visible records, drops and diagnostics,
// and every name of every visible skill resolves to the same skill.
func TestRescanMatchesFullScan(t *testing.T) {
	tree, err := fixture.Generate(t.TempDir(), 400, 1)
	if err != nil {
		t.Fatal(err)
	}
	newEngine := func() *engine.Engine {
		e, err := engine.New(configs.Default(all.Registry()), providers.NewEnv(tree.Home, tree.Workspace, func(string) string { return "" }))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	ctx := context.Background()
	r := New(newEngine(), Options{})
	r.Subscribe(func(s *pipeline.Snapshot) { s.Warm() }) // as the server does
	first, _, err := r.First(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The skills the changes act on: a visible user skill of Claude's, a
	// skill outside plugins with a copy that lost the dedupe to it, and a
	// disabled skill.
	var edited, winner *pipeline.Record
	for _, rec := range first.Skills() {
		if rec.Agent == "claude" && rec.Location == pipeline.LocationUser && edited == nil {
			edited = rec
		}
	}
	var disabled *pipeline.Record
	for _, d := range first.Drops {
		if d.By != nil && d.By.Plugin == nil && d.By != edited && winner == nil && filepath.Base(d.By.File) == pipeline.SkillFile {
			winner = d.By
		}
		if d.Record.Disabled && disabled == nil && d.Record.Plugin == nil && !d.Record.IsCommand() &&
			filepath.Base(d.Record.File) == pipeline.DisabledSkillFile {
			disabled = d.Record
		}
	}
	if edited == nil || winner == nil || disabled == nil {
		t.Fatalf("the fixture lacks a skill to change: edited %v, dedupe winner %v, disabled %v", edited != nil, winner != nil, disabled != nil)
	}
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	setLine := func(p, key, value string) {
		b := read(p)
		i := bytes.Index(b, []byte("\n"+key+":"))
		if i < 0 {
			t.Fatalf("%s has no %s line", p, key)
		}
		end := bytes.IndexByte(b[i+1:], '\n') + i + 1
		out := append(append(append([]byte(nil), b[:i+1]...), key+": "+value...), b[end:]...)
		writeFile(t, p, out)
	}
	removed := filepath.Join(tree.Home, ".claude", "skills", "added-by-test")
	changes := []struct {
		name string
		do   func()
	}{
		{"edit a description", func() { setLine(edited.File, "description", "Edited by TestRescanMatchesFullScan.") }},
		{"edit it again", func() { setLine(edited.File, "description", "Edited twice.") }},
		{"add a skill", func() {
			writeFile(t, filepath.Join(removed, "SKILL.md"), []byte("---\nname: added-by-test\ndescription: Added.\n---\nBody.\n"))
		}},
		{"remove it", func() {
			if err := os.RemoveAll(removed); err != nil {
				t.Fatal(err)
			}
		}},
		{"rename a skill", func() { setLine(edited.File, "name", "renamed-by-test") }},
		{"the dedupe winner goes", func() {
			if err := os.Rename(winner.File, filepath.Join(filepath.Dir(winner.File), pipeline.DisabledSkillFile)); err != nil {
				t.Fatal(err)
			}
		}},
		{"a disabled skill is turned on", func() {
			if err := os.Rename(disabled.File, filepath.Join(filepath.Dir(disabled.File), pipeline.SkillFile)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	prev := first
	for _, c := range changes {
		c.do()
		r.Refresh(ctx)
		got := r.Snapshot()
		if got == prev {
			t.Fatalf("%s: the rescan kept the snapshot", c.name)
		}
		want, _, err := newEngine().Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		compareSnapshots(t, c.name, got, want)
		prev = got
	}
}

// compareSnapshots fails t when got and want differ in their records,
// visible records, drops or diagnostics, or resolve some name of a
// visible skill differently.
func compareSnapshots(t *testing.T, what string, got, want *pipeline.Snapshot) {
	t.Helper()
	values := func(rs []*pipeline.Record) []pipeline.Record {
		out := make([]pipeline.Record, len(rs))
		for i, r := range rs {
			out[i] = *r
		}
		return out
	}
	if g, w := values(got.All), values(want.All); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: records differ from a full scan's:\n%s", what, firstDiff(g, w))
	}
	if g, w := values(got.Visible), values(want.Visible); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: visible records differ from a full scan's:\n%s", what, firstDiff(g, w))
	}
	drops := func(ds []pipeline.Drop) []string {
		out := make([]string, len(ds))
		for i, d := range ds {
			by := ""
			if d.By != nil {
				by = d.By.ID
			}
			out[i] = fmt.Sprintf("%s %s %q by %s", d.Record.ID, d.Stage, d.Reason, by)
		}
		return out
	}
	if g, w := drops(got.Drops), drops(want.Drops); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: drops differ from a full scan's:\n got %v\nwant %v", what, g, w)
	}
	if !reflect.DeepEqual(got.Diagnostics, want.Diagnostics) {
		t.Errorf("%s: diagnostics differ from a full scan's:\n got %v\nwant %v", what, got.Diagnostics, want.Diagnostics)
	}
	resolve := func(s *pipeline.Snapshot, name string) string {
		r, err := s.ResolveSkill(name)
		if err != nil {
			return "error: " + err.Error()
		}
		return r.ID + " " + r.File
	}
	for _, rec := range want.Skills() {
		for _, name := range []string{rec.ID, rec.Name, rec.ShortName(), rec.Agent + ":" + rec.Name, strings.ToUpper(rec.Name), rec.Alias} {
			if name == "" {
				continue
			}
			if g, w := resolve(got, name), resolve(want, name); g != w {
				t.Errorf("%s: %q resolves to %s, a full scan's to %s", what, name, g, w)
			}
		}
	}
}

// firstDiff describes the first record where got and want differ.
func firstDiff(got, want []pipeline.Record) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d records, want %d", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("record %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	return ""
}

// TestRescanNothingChangedKeepsSnapshot checks that rescans which find
// nothing changed keep the snapshot served, the same pointer, and call no
// subscriber (so a server builds nothing again and tells no client of a
// change), and that every kind of change still gives a new snapshot, the
// one a full discovery by a new engine gives: an edited SKILL.md, a host
// switch turning a skill off (skillOverrides), and a settings file
// turning a plugin on (a manifest the providers read to plan).
func TestRescanNothingChangedKeepsSnapshot(t *testing.T) {
	tr := newTree(t)
	withPlugin(t, &tr)
	writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha skill"))
	writeFile(t, tr.userSkill("beta"), skillMD("beta", "Beta skill"))
	// Files written within filestamp.Window of a scan are read again by
	// the next (their time cannot tell a later write); the tree is aged
	// after every change so that a rescan can find nothing to read.
	step := 0
	settle := func() {
		step++
		age(t, tr.home, time.Now().Add(time.Duration(step)*time.Minute-time.Hour))
		age(t, tr.ws, time.Now().Add(time.Duration(step)*time.Minute-time.Hour))
	}
	settle()
	ctx := testCtx(t, 30*time.Second)
	r := New(newEngine(t, tr.home, tr.ws), Options{})
	calls := 0
	r.Subscribe(func(s *pipeline.Snapshot) { calls++; s.Warm() })
	// The work on files the records do not describe is offered the
	// snapshot kept after every quiet rescan, and only then.
	var kept []*pipeline.Snapshot
	r.SubscribeUnchanged(func(s *pipeline.Snapshot) { kept = append(kept, s) })
	first, _, err := r.First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("the subscriber ran %d times for the first snapshot", calls)
	}
	unchanged := func(what string, want *pipeline.Snapshot) {
		t.Helper()
		before := calls
		kept = nil
		for i := range 3 {
			if d := r.Refresh(ctx); !d.Empty() {
				t.Errorf("%s, rescan %d with nothing changed: Refresh = %+v", what, i, d)
			}
			if got := r.Snapshot(); got != want {
				t.Fatalf("%s, rescan %d with nothing changed: a new snapshot replaced the one served", what, i)
			}
		}
		if calls != before {
			t.Errorf("%s: rescans with nothing changed called the subscriber %d times", what, calls-before)
		}
		if !slices.Equal(kept, []*pipeline.Snapshot{want, want, want}) {
			t.Errorf("%s: the unchanged subscriber had %d snapshots, want the one kept after each of 3 rescans", what, len(kept))
		}
	}
	unchanged("after the first snapshot", first)

	changes := []struct {
		name string
		do   func()
	}{
		{"edit a description", func() { writeFile(t, tr.userSkill("alpha"), skillMD("alpha", "Alpha, edited")) }},
		{"a host switch turns a skill off", func() {
			writeJSON(t, tr.userSettings(), map[string]any{"enabledPlugins": map[string]any{pluginKey: false},
				"skillOverrides": map[string]any{"beta": "off"}})
		}},
		{"settings turn a plugin on", func() {
			writeJSON(t, tr.userSettings(), map[string]any{"enabledPlugins": map[string]any{pluginKey: true},
				"skillOverrides": map[string]any{"beta": "off"}})
		}},
	}
	prev := first
	for _, c := range changes {
		c.do()
		settle()
		before := calls
		kept = nil
		r.Refresh(ctx)
		got := r.Snapshot()
		if got == prev {
			t.Fatalf("%s: the rescan kept the snapshot", c.name)
		}
		if calls != before+1 {
			t.Errorf("%s: the subscriber ran %d times, want once", c.name, calls-before)
		}
		if len(kept) != 0 {
			t.Errorf("%s: a rescan that changed something called the unchanged subscriber", c.name)
		}
		want, _, err := newEngine(t, tr.home, tr.ws).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		compareSnapshots(t, c.name, got, want)
		unchanged("after "+c.name, got)
		prev = got
	}
}

// age sets the times of every file and folder under root to when.
func age(t *testing.T, root string, when time.Time) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, when, when)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRescanUnderBlockJudgesEveryEdit: under mcp.scan: block a rescan
// after an edit of a file discovery does not read (a reference, whose
// record is kept as it was) still gives a new snapshot, and its judgement
// is of the bytes on disk, so that what was scanned is what is served; a
// rescan with nothing changed keeps it (pipeline.Snapshot.Same compares
// the judged files by content).
func TestRescanUnderBlockJudgesEveryEdit(t *testing.T) {
	tr := newTree(t)
	skill := tr.userSkill("guide")
	ref := filepath.Join(filepath.Dir(skill), "references", "api.md")
	writeFile(t, skill, skillMD("guide", "The guide"))
	writeFile(t, ref, []byte("API v1\n"))
	// Aged, so that a rescan reads no file it need not (filestamp.Window).
	age(t, tr.home, time.Now().Add(-time.Hour))
	eng := newEngine(t, tr.home, tr.ws)
	eng.SetScan(scanmode.Block)
	r := New(eng, Options{})
	ctx := testCtx(t, 30*time.Second)
	first, _, err := r.First(ctx)
	if err != nil {
		t.Fatal(err)
	}
	judgedRef := func(s *pipeline.Snapshot) string {
		t.Helper()
		if len(s.Visible) != 1 || len(s.Judged) != 1 || s.Judged[0].Gate != pipeline.GateScan {
			t.Fatalf("want one skill judged by %s: %d visible, judgements %v", pipeline.GateScan, len(s.Visible), s.Judged)
		}
		files, _ := s.Judged[0].Of(s.Visible[0])
		f, ok := files.File("references/api.md")
		if !ok {
			t.Fatalf("references/api.md not judged: %v", files)
		}
		return f.Digest
	}
	if got, want := judgedRef(first), manifest.Digest([]byte("API v1\n")); got != want {
		t.Fatalf("first snapshot judged the reference as %s, want %s", got, want)
	}
	if r.Refresh(ctx); r.Snapshot() != first {
		t.Fatal("a rescan with nothing changed replaced the snapshot")
	}

	writeFile(t, ref, []byte("API v2\n")) // the same size
	age(t, ref, time.Now().Add(-time.Hour+time.Minute))
	r.Refresh(ctx)
	got := r.Snapshot()
	if got == first {
		t.Fatal("a rescan after a reference was edited kept the snapshot judged before the edit")
	}
	if got.Visible[0] != first.Visible[0] {
		t.Fatal("the record was read again: the test is of an edit discovery does not see")
	}
	if d, want := judgedRef(got), manifest.Digest([]byte("API v2\n")); d != want {
		t.Errorf("after the edit the reference is judged as %s, want %s, the bytes on disk", d, want)
	}
	if r.Refresh(ctx); r.Snapshot() != got {
		t.Error("a rescan with nothing changed after the edit replaced the snapshot")
	}
}
