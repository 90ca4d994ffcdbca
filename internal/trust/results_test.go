package trust

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// TestResults: a check of unchanged folders against an unchanged store
// takes every integrity from Results and reads no store, also from
// Results saved and loaded; every change to a folder's files or to the
// store shows in the next check. Changes put back the times they touch,
// as a tool that keeps times would: the change times catch them.
func TestResults(t *testing.T) {
	later := func() time.Time { return time.Now().Add(time.Hour) } // everything written is settled
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, base, store string, recs []*pipeline.Record)
		want   pipeline.IntegrityState // of the project skill
		reads  int64                   // of the store by the check after the change
	}{
		{name: "nothing changed", change: func(*testing.T, string, string, []*pipeline.Record) {},
			want: pipeline.IntegrityRecorded, reads: 0},
		{name: "a file edited in place, its time restored", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			p := filepath.Join(base, "proj", "ref.md")
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt([]byte("R"), 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "a file added", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			testfs.Write(t, base, map[string]string{"proj/new.md": "new"})
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "a file removed", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			if err := os.Remove(filepath.Join(base, "proj", "ref.md")); err != nil {
				t.Fatal(err)
			}
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "a symlink out of the folder added", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			testfs.Write(t, base, map[string]string{"proj/leak.md": "-> ../plug/SKILL.md"})
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "a symlink out of the folder pointed elsewhere", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			if err := os.Remove(filepath.Join(base, "proj", "out")); err != nil {
				t.Fatal(err)
			}
			testfs.Write(t, base, map[string]string{"proj/out": "-> ../elsewhere"})
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "a subfolder added", change: func(t *testing.T, base, _ string, _ []*pipeline.Record) {
			testfs.Write(t, base, map[string]string{"proj/scripts/run.sh": "run"})
		}, want: pipeline.IntegrityChanged, reads: 1},
		{name: "the store changed by ccski trust", change: func(t *testing.T, _, store string, recs []*pipeline.Record) {
			c := Checker{Path: store}
			if _, err := Accept(store, c.Manifests(context.Background(), recs[:1]), at); err != nil {
				t.Fatal(err)
			}
		}, want: pipeline.IntegrityTrusted, reads: 1},
		{name: "the store rewritten in place by another process, same size and time", change: func(t *testing.T, _, store string, recs []*pipeline.Record) {
			// The same store with the project skill accepted, written
			// over the old one's bytes with its size and times kept.
			before, err := os.ReadFile(store)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(store)
			other := filepath.Join(t.TempDir(), "trust.json")
			if err := os.WriteFile(other, before, 0o600); err != nil {
				t.Fatal(err)
			}
			c := Checker{Path: other}
			if _, err := Accept(other, c.Manifests(context.Background(), recs[:1]), at); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(other)
			if err != nil {
				t.Fatal(err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, after); err != nil {
				t.Fatal(err)
			}
			after = compact.Bytes()
			if len(after) > len(before) {
				t.Fatalf("the accepted store is longer (%d bytes) than the old one (%d)", len(after), len(before))
			}
			after = append(after, strings.Repeat(" ", len(before)-len(after))...)
			f, err := os.OpenFile(store, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(after, 0); err != nil {
				t.Fatal(err)
			}
			f.Close()
			if err := os.Chtimes(store, st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			if st2, _ := os.Stat(store); st2.Size() != st.Size() || !st2.ModTime().Equal(st.ModTime()) {
				t.Fatalf("the rewrite changed the store's size or time")
			}
		}, want: pipeline.IntegrityTrusted, reads: 1},
	} {
		for _, persisted := range []bool{false, true} {
			name := tt.name
			if persisted {
				name += ", saved and loaded"
			}
			t.Run(name, func(t *testing.T) {
				base := testfs.TempDir(t)
				testfs.Write(t, base, map[string]string{"proj/SKILL.md": "project", "proj/ref.md": "ref", "plug/SKILL.md": "plugin",
					"proj/out": "-> ../outside"})
				testfs.Age(t, base, time.Hour)
				store := filepath.Join(base, "cfg", "trust.json")
				proj, plug := record(filepath.Join(base, "proj"), pipeline.LocationProject),
					record(filepath.Join(base, "plug"), pipeline.LocationPlugin)
				recs := []*pipeline.Record{proj, plug}
				res := &Results{}
				check := func(c Checker) map[*pipeline.Record]pipeline.Integrity {
					t.Helper()
					c.Path, c.Results, c.now = store, res, later
					found, err := c.Check(context.Background(), recs)
					if err != nil {
						t.Fatal(err)
					}
					return found
				}
				check(Checker{})         // records both
				warm := check(Checker{}) // compares, keeps the results
				if warm[proj].State != pipeline.IntegrityRecorded || !res.Changed() {
					t.Fatalf("second check: %+v, results changed %v; want recorded, and results kept", warm[proj], res.Changed())
				}
				if persisted {
					file := filepath.Join(t.TempDir(), "integrity.bin")
					if err := res.SaveFile(file); err != nil {
						t.Fatal(err)
					}
					res = &Results{}
					if err := res.LoadFile(file); err != nil {
						t.Fatal(err)
					}
				}
				tt.change(t, base, store, recs)
				reads := storeReads.Load()
				got := check(Checker{})
				if n := storeReads.Load() - reads; n != tt.reads {
					t.Errorf("the check read the store %d times, want %d", n, tt.reads)
				}
				if got[proj].State != tt.want || got[plug].State == "" {
					t.Errorf("project skill %+v, plugin skill %+v; want the project skill %s", got[proj], got[plug], tt.want)
				}
				// What a check without Results finds.
				fresh, err := (&Checker{Path: store, ReadOnly: true}).Check(context.Background(), recs)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(fresh, got); diff != "" {
					t.Errorf("the check with Results differs from one without (-without +with):\n%s", diff)
				}
			})
		}
	}
}

// TestResultsUnsettled: results compared against a store written within
// the racy window of the check are not kept (an edit in the same clock
// tick would keep its stamp), and a check that records new folders
// forgets the results (the store it compared against is gone).
func TestResultsUnsettled(t *testing.T) {
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{"proj/SKILL.md": "project", "plug/SKILL.md": "plugin"})
	store := filepath.Join(base, "cfg", "trust.json")
	proj, plug := record(filepath.Join(base, "proj"), pipeline.LocationProject),
		record(filepath.Join(base, "plug"), pipeline.LocationPlugin)
	res := &Results{}
	if _, err := (&Checker{Path: store, Results: res}).Check(context.Background(), []*pipeline.Record{proj}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(store)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return st.ModTime().Add(time.Second) } // within the racy window
	if _, err := (&Checker{Path: store, Results: res, now: now}).Check(context.Background(), []*pipeline.Record{proj}); err != nil {
		t.Fatal(err)
	}
	if res.Changed() || len(res.entries) != 0 {
		t.Errorf("results kept against a store written a second before: %+v", res.entries)
	}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	if _, err := (&Checker{Path: store, Results: res, now: later}).Check(context.Background(), []*pipeline.Record{proj}); err != nil {
		t.Fatal(err)
	}
	if len(res.entries) != 1 {
		t.Fatalf("results against a settled store: %d, want 1", len(res.entries))
	}
	if _, err := (&Checker{Path: store, Results: res, now: later}).Check(context.Background(), []*pipeline.Record{proj, plug}); err != nil {
		t.Fatal(err)
	}
	if len(res.entries) != 0 {
		t.Errorf("results kept after the check recorded a new folder: %+v", res.entries)
	}
}

// TestResultsDecodeRefuses: an integrity cache file of another form or
// version, truncated, or with an unknown state is refused and changes
// nothing.
func TestResultsDecodeRefuses(t *testing.T) {
	r := &Results{}
	st := storeStamp{path: "/cfg/trust.json"}
	r.put(st, "/p/a", [32]byte{1}, pipeline.Integrity{State: pipeline.IntegrityChanged, Accepted: true,
		Changed: []string{"SKILL.md"}, Added: []string{"x.sh"}, Removed: []string{"y.md"}})
	r.put(st, "/p/b", [32]byte{2}, pipeline.Integrity{State: pipeline.IntegrityRecorded})
	file := filepath.Join(t.TempDir(), "integrity.bin")
	if err := r.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	back := &Results{}
	if err := back.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r.entries, back.entries, cmp.AllowUnexported(result{})); diff != "" || back.store != r.store {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	cases := map[string][]byte{
		"JSON":          []byte(`{"version":1}`),
		"bytes left":    append(append([]byte{}, good...), 0),
		"unknown state": []byte(strings.Replace(string(good), "recorded", "recordeX", 1)),
	}
	for n := range len(good) {
		cases[fmt.Sprintf("truncated to %d bytes", n)] = good[:n]
	}
	for name, data := range cases {
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := back.LoadFile(file); err == nil {
			t.Errorf("%s: LoadFile = nil, want an error", name)
		}
		if len(back.entries) != 2 {
			t.Errorf("%s: a refused LoadFile changed the results", name)
		}
	}
}
