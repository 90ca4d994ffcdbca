package install

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/testfs"
)

// TestRecoverJournal: the next run finishes a change that passed its
// commit point and undoes one that did not, from the journal and the
// disk; a journal that is not ccski's, or that names a staging folder
// ccski would not make, changes nothing but is deleted; and a journal
// never makes ccski replace or delete what the lock does not record.
func TestRecoverJournal(t *testing.T) {
	const (
		v1 = "---\nname: pdf\ndescription: The pdf skill.\n---\none\n"
		v2 = "---\nname: pdf\ndescription: The pdf skill.\n---\ntwo\n"
	)
	entry := func(base, content string) Entry {
		return Entry{Name: "pdf", Source: Source{Kind: KindDir, Dir: filepath.Join(base, "vendor")}, Path: "pdf",
			Targets: []Target{{Agent: "agents", Dir: filepath.Join(base, ".agents/skills")},
				{Agent: "claude", Dir: filepath.Join(base, ".claude/skills"), Link: true}},
			Files: []manifest.File{fileOf("SKILL.md", content)}}
	}
	tests := []struct {
		name  string
		files map[string]string // in the project, before the run
		lock  string            // content of pdf in the lock, "" for none
		op    string
		// journal, when set, replaces the journal written from op.
		journal string
		want    map[string]string // the project's skill folders after
		locked  string            // content of pdf in the lock after
		note    string
		// keep is a file that must be where it was after.
		keep string
		// notePath is the start of a path the note names, in the project.
		notePath string
	}{
		{name: "put before the swap", op: opPut, lock: v1,
			files: map[string]string{".agents/skills/pdf/SKILL.md": v1, ".claude/skills/pdf": "-> ../../.agents/skills/pdf",
				".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2},
			want:   map[string]string{".agents/skills/pdf/SKILL.md": v1, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			locked: v1, note: "undid an interrupted install of pdf"},
		{name: "put after the swap", op: opPut, lock: v1,
			files:  map[string]string{".agents/skills/pdf/SKILL.md": v2, ".agents/skills/.ccski-stage-1/pdf/SKILL.md": v1},
			want:   map[string]string{".agents/skills/pdf/SKILL.md": v2, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			locked: v2, note: "finished an interrupted install of pdf"},
		{name: "put with the old copy moved aside", op: opPut, lock: v1,
			files: map[string]string{".agents/skills/.ccski-stage-1/.old/SKILL.md": v1,
				".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			want:   map[string]string{".agents/skills/pdf/SKILL.md": v1, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			locked: v1, note: "undid an interrupted install of pdf"},
		// install --force killed after it moved the user's own folder
		// aside: undoing it puts that folder back, as it was before.
		{name: "put with a moved-aside copy the lock does not record", op: opPut, lock: v1,
			files: map[string]string{".agents/skills/.ccski-stage-1/.old/SKILL.md": "hand-made",
				".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2},
			want: map[string]string{".agents/skills/pdf/SKILL.md": "hand-made"}, locked: v1,
			note: "put back the copy it was replacing"},
		{name: "put with a moved-aside copy and no lock entry", op: opPut,
			files: map[string]string{".agents/skills/.ccski-stage-1/.old/SKILL.md": v1,
				".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2},
			want: map[string]string{".agents/skills/pdf/SKILL.md": v1}, note: "put back the folder it was replacing"},
		// Something else took the skill's place since: the moved-aside
		// folder is kept beside it, hidden, never deleted.
		{name: "put with a moved-aside copy and another folder in place", op: opPut,
			files: map[string]string{".agents/skills/.ccski-stage-1/.old/SKILL.md": "hand-made",
				".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2, ".agents/skills/pdf/SKILL.md": "newer"},
			want: map[string]string{".agents/skills/pdf/SKILL.md": "newer", ".agents/skills/.ccski-kept-pdf-T/pdf/SKILL.md": "hand-made"},
			note: "the folder it was replacing, which is kept in", notePath: ".agents/skills/.ccski-kept-pdf-"},
		{name: "put after the swap keeps a folder it did not check", op: opPut,
			files:  map[string]string{".agents/skills/pdf/SKILL.md": v2, ".claude/skills/pdf/SKILL.md": "hand-made"},
			want:   map[string]string{".agents/skills/pdf/SKILL.md": v2, ".claude/skills/pdf/SKILL.md": "hand-made"},
			locked: v2, note: "finished"},
		{name: "remove before the copy left", op: opRemove, lock: v2,
			files:  map[string]string{".agents/skills/pdf/SKILL.md": v2, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			want:   map[string]string{".agents/skills/pdf/SKILL.md": v2, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			locked: v2, note: "changed nothing"},
		{name: "remove after the copy left", op: opRemove, lock: v2,
			files: map[string]string{".agents/skills/.ccski-stage-1/pdf/SKILL.md": v2, ".claude/skills/pdf": "-> ../../.agents/skills/pdf"},
			want:  map[string]string{}, note: "finished an interrupted remove of pdf"},
		{name: "remove of a skill the lock does not name", op: opRemove,
			files: map[string]string{".claude/skills/pdf/SKILL.md": "hand-made"},
			want:  map[string]string{".claude/skills/pdf/SKILL.md": "hand-made"}},
		{name: "not a journal", journal: "not json", lock: v1,
			files: map[string]string{".agents/skills/pdf/SKILL.md": v1},
			want:  map[string]string{".agents/skills/pdf/SKILL.md": v1}, locked: v1, note: "no journal of ccski's"},
		{name: "staging folder elsewhere", lock: v1,
			journal: `{"version": 1, "lock": "LOCK", "op": "put", "stage": ".agents/skills/pdf", "entry": {"name": "pdf",
				"source": {"kind": "dir", "dir": "vendor"}, "path": "pdf", "targets": [{"dir": ".agents/skills"}], "files": []}}`,
			files: map[string]string{".agents/skills/pdf/SKILL.md": v1},
			want:  map[string]string{".agents/skills/pdf/SKILL.md": v1}, locked: v1, note: "not one ccski makes"},
		{name: "staging folder is a link", op: opPut, lock: v1,
			files: map[string]string{".agents/skills/.ccski-stage-1": "-> ../../outside", "outside/.old/SKILL.md": v2},
			want:  map[string]string{}, keep: "outside/.old/SKILL.md", locked: v1, note: "not one ccski makes"},
		{name: "journal of another lock", lock: v1,
			journal: `{"version": 1, "lock": "/elsewhere/ccski.lock", "op": "remove", "entry": {"name": "pdf",
				"source": {"kind": "dir", "dir": "vendor"}, "path": "pdf", "targets": [{"dir": ".agents/skills"}], "files": []}}`,
			files: map[string]string{".agents/skills/pdf/SKILL.md": v1},
			want:  map[string]string{".agents/skills/pdf/SKILL.md": v1}, locked: v1, note: "it is the journal of the lock /elsewhere/ccski.lock"},
		{name: "target outside the project", journal: `{"version": 1, "lock": "LOCK", "op": "remove", "entry": {"name": "pdf",
				"source": {"kind": "dir", "dir": "vendor"}, "path": "pdf", "targets": [{"dir": "../elsewhere"}], "files": []}}`,
			lock: v1, files: map[string]string{".agents/skills/pdf/SKILL.md": v1},
			want: map[string]string{".agents/skills/pdf/SKILL.md": v1}, locked: v1, note: "outside the project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, nil)
			base := f.layout.Base
			testfs.Write(t, base, tt.files)
			if exists(filepath.Join(base, ".agents/skills/.ccski-stage-1")) {
				// As newStage makes it; no process holds it now.
				testfs.Write(t, base, map[string]string{".agents/skills/.ccski-stage-1/.held": ""})
			}
			x := f.installer()
			x.SaveLock = true
			if tt.lock != "" {
				x.Lock.Put(entry(base, tt.lock))
			}
			if tt.journal != "" {
				lock, err := safefile.Resolve(f.layout.LockFile)
				if err != nil {
					t.Fatal(err)
				}
				data := strings.ReplaceAll(tt.journal, "LOCK", strings.ReplaceAll(lock, `\`, `\\`))
				testfs.Write(t, filepath.Dir(f.layout.Journal), map[string]string{filepath.Base(f.layout.Journal): data})
			} else {
				j := journal{Op: tt.op, Stage: filepath.Join(base, ".agents/skills/.ccski-stage-1"), Entry: entry(base, v2)}
				if tt.op == opRemove {
					j.Entry = entry(base, tt.lock)
					if tt.lock == "" {
						j.Entry = entry(base, "hand-made")
					}
				}
				if err := x.begin(j); err != nil {
					t.Fatal(err)
				}
			}
			notes := x.Recover()
			if tt.note == "" && len(notes) > 0 || tt.note != "" && (len(notes) != 1 || !strings.Contains(notes[0], tt.note) ||
				tt.notePath != "" && !strings.Contains(notes[0], filepath.Join(base, tt.notePath))) {
				t.Errorf("notes %q, want one with %q", notes, tt.note)
			}
			got := map[string]string{}
			for _, d := range []string{".agents/skills", ".claude/skills"} {
				if !exists(filepath.Join(base, d)) {
					continue
				}
				for p, v := range listTree(t, filepath.Join(base, d)) {
					if v != "<dir>" {
						got[d+"/"+keptName.ReplaceAllString(p, "${1}T")] = v
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("skill folders after Recover (-want +got):\n%s", diff)
			}
			if tt.keep != "" && !exists(filepath.Join(base, tt.keep)) {
				t.Errorf("%s was moved", tt.keep)
			}
			if exists(f.layout.Journal) {
				t.Error("the journal is still there")
			}
			e := x.Lock.Find("pdf")
			switch {
			case tt.locked == "" && e != nil:
				t.Errorf("the lock names pdf: %+v", e)
			case tt.locked != "" && (e == nil || !cmp.Equal(e.Files, []manifest.File{fileOf("SKILL.md", tt.locked)})):
				t.Errorf("the lock's pdf is %+v, want the files of %q", e, tt.locked)
			}
			if tt.locked != "" && tt.locked != tt.lock {
				l, err := ReadLock(f.layout.LockFile, base, true)
				if err != nil || l.Find("pdf") == nil {
					t.Errorf("the finished change was not written to the lock file (%v)", err)
				}
			}
		})
	}
}

// keptName matches the folder a moved-aside copy is kept in, whose name
// ends with the time it was kept.
var keptName = regexp.MustCompile(`^(\.ccski-kept-pdf-)[^/]+`)

// TestJournalIsNoLink: a symlink where the journal goes (a clone could
// ship one) is removed by the next run, never followed by a write: its
// target keeps its bytes, and the journal is written as a file of its own.
func TestJournalIsNoLink(t *testing.T) {
	f := newFixture(t, nil)
	target := filepath.Join(f.base, "target")
	testfs.Write(t, f.base, map[string]string{"target": "keep"})
	if err := os.MkdirAll(filepath.Dir(f.layout.Journal), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f.layout.Journal); err != nil {
		t.Skip("no symlinks here")
	}
	x := f.installer()
	e := Entry{Name: "pdf", Source: Source{Kind: KindDir, Dir: f.src}, Targets: []Target{{Dir: filepath.Join(f.layout.Base, ".agents/skills")}}}
	if err := x.begin(journal{Op: opRemove, Entry: e}); err == nil {
		t.Error("a change began with something at the journal's place")
	}
	if notes := x.Recover(); len(notes) != 1 || !strings.Contains(notes[0], "no journal of ccski's") {
		t.Errorf("notes %q", notes)
	}
	if err := x.begin(journal{Op: opRemove, Entry: e}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep" {
		t.Errorf("the journal was written through the link: %q", data)
	}
	if st, err := os.Lstat(f.layout.Journal); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the journal is no file of its own: %v %v", st, err)
	}
}

// TestLockWriteFails: when the lock cannot be written once a skill's copy
// is in place, the change keeps its journal, no other change starts, and
// the next run, once the lock can be written, records the copy.
func TestLockWriteFails(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf"), "docx/SKILL.md": skill("docx")})
	testfs.Write(t, f.layout.Base, map[string]string{LockName + "/": ""}) // a folder where the lock goes
	x := f.installer()
	x.SaveLock = true
	got := f.install(t, x, "pdf", "docx")
	if got[0].Status != StatusFailed || !strings.Contains(got[0].Message, "tries again") {
		t.Errorf("pdf: %+v", got[0])
	}
	if got[1].Status != StatusFailed || !strings.Contains(got[1].Message, "not finished") {
		t.Errorf("docx: %+v", got[1])
	}
	if !exists(f.layout.Journal) || exists(filepath.Join(f.layout.Base, ".agents/skills/docx")) {
		t.Fatal("want the journal of pdf kept, and docx not installed")
	}
	os.Remove(f.layout.LockFile)
	y := &Installer{Ctx: x.Ctx, Layout: f.layout, Lock: &Lock{}, SaveLock: true}
	if notes := y.Recover(); len(notes) != 1 || !strings.Contains(notes[0], "finished an interrupted install of pdf") {
		t.Errorf("notes %q", notes)
	}
	l, err := ReadLock(f.layout.LockFile, f.layout.Base, true)
	if err != nil || l.Find("pdf") == nil {
		t.Errorf("the lock does not record pdf (%v)", err)
	}
	if d := diskState(*l.Find("pdf")); !d.ok() {
		t.Errorf("pdf on disk: %+v", d)
	}
}

// TestFailedSettleKeepsStage: when a change stopped by an error cannot be
// settled either, its journal and its staging folder (which may hold the
// only copy to put back) stay, through the change's own clean-up and
// through the next run's when that run cannot settle it either; the run
// that settles it deletes the staging folder.
func TestFailedSettleKeepsStage(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	x := f.installer()
	x.SaveLock = true
	if got := f.install(t, x, "pdf"); got[0].Status != StatusInstalled {
		t.Fatalf("%+v", got[0])
	}
	testfs.Write(t, f.src, map[string]string{"pdf/SKILL.md": skill("pdf") + "two\n"})
	os.Remove(f.layout.LockFile)
	testfs.Write(t, f.layout.Base, map[string]string{LockName + "/": ""}) // the lock cannot be written
	if r := x.Update(*x.Lock.Find("pdf"), ""); r.Status != StatusFailed || !strings.Contains(r.Message, "tries again") {
		t.Fatalf("Update: %+v", r)
	}
	j, ok, err := x.readJournal()
	if !ok || err != nil {
		t.Fatalf("the journal: %v %v", ok, err)
	}
	if !exists(j.Stage) {
		t.Fatalf("the failed change deleted its staging folder %s", j.Stage)
	}
	y := &Installer{Ctx: x.Ctx, Layout: f.layout, Lock: &Lock{}, SaveLock: true}
	if notes := y.Recover(); len(notes) != 1 || !strings.Contains(notes[0], "could not be finished") {
		t.Errorf("notes %q", notes)
	}
	if !exists(j.Stage) {
		t.Fatalf("a run that could not settle the change deleted its staging folder %s", j.Stage)
	}
	os.Remove(f.layout.LockFile)
	z := &Installer{Ctx: x.Ctx, Layout: f.layout, Lock: &Lock{}, SaveLock: true}
	if notes := z.Recover(); len(notes) != 1 || !strings.Contains(notes[0], "finished an interrupted install of pdf") {
		t.Errorf("notes %q", notes)
	}
	if exists(j.Stage) {
		t.Errorf("the settled change left its staging folder %s", j.Stage)
	}
}
