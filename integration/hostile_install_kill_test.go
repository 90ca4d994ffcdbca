package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// This file kills ccski install, update and remove at every step of their
// change on disk (the ccski_hold build counts the steps and SIGKILLs
// itself at the one $CCSKITEST_INSTALL_KILL_AT names) and checks what
// is left: never a skill the lock does not name, never a half skill,
// never a staging folder listed as a skill, and a next run that works.

// killVersions are the two versions of the multi-file skill pdf the
// tests install and update between.
var killVersions = []map[string]string{
	{"pdf/SKILL.md": skillText("pdf", "version one"), "pdf/references/guide.md": "guide one",
		"pdf/scripts/run.sh": "#!/bin/sh\necho one\n"},
	{"pdf/SKILL.md": skillText("pdf", "version two"), "pdf/references/guide.md": "guide two",
		"pdf/references/extra.md": "new in two", "pdf/scripts/run.sh": "#!/bin/sh\necho two\n"},
}

// maxKillSteps bounds the kills of one scenario: the runs have fewer steps.
const maxKillSteps = 30

// TestInstallKilledAtEveryStep kills each of install, update (with and
// without the atomic exchange of Linux) and remove at every step. After
// each kill, ccski list shows no staging folder; the next run on the
// scope (a remove of another skill) leaves pdf either absent and not in
// the lock, or whole (one version's every file, the link leading to it),
// matching the lock and named by it, with no staging folder or journal
// left; then install, update and remove of pdf succeed.
func TestInstallKilledAtEveryStep(t *testing.T) {
	scenarios := []struct {
		name       string
		noExchange bool
		// copy installs pdf with --copy: .claude/skills/pdf is a copy,
		// not a link.
		copy bool
		// installed is the version of pdf installed before the run (-1:
		// none); source the version the source then holds.
		installed, source int
		args              []string
	}{
		{name: "install", installed: -1, source: 0, args: []string{"install", "SRC", "pdf"}},
		{name: "update", installed: 0, source: 1, args: []string{"update", "pdf"}},
		{name: "update without exchange", noExchange: true, installed: 0, source: 1, args: []string{"update", "pdf"}},
		{name: "remove", installed: 0, source: 0, args: []string{"remove", "pdf"}},
		{name: "install --copy", copy: true, installed: -1, source: 0, args: []string{"install", "SRC", "pdf", "--copy"}},
		{name: "update of copies", copy: true, installed: 0, source: 1, args: []string{"update", "pdf"}},
		{name: "update of copies without exchange", copy: true, noExchange: true, installed: 0, source: 1,
			args: []string{"update", "pdf"}},
		{name: "remove of copies", copy: true, installed: 0, source: 0, args: []string{"remove", "pdf"}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			kills := 0
			for n := 1; ; n++ {
				if n > maxKillSteps {
					t.Fatalf("the run still had steps after %d kills", maxKillSteps)
				}
				b := newInstallBox(t)
				src := filepath.Join(b.root, "src")
				testfs.Write(t, src, map[string]string{"other/SKILL.md": skillText("other", "o")})
				if sc.installed >= 0 {
					testfs.Write(t, src, killVersions[sc.installed])
					mustOK(t, b.run(t, copyArgs(sc.copy, "install", src, "pdf")...))
				}
				mustOK(t, b.run(t, "install", src, "other"))
				os.RemoveAll(filepath.Join(src, "pdf"))
				testfs.Write(t, src, killVersions[sc.source])
				os.Chmod(filepath.Join(src, "pdf/scripts/run.sh"), 0o755)
				args := slices.Clone(sc.args)
				if args[1] == "SRC" {
					args[1] = src
				}
				vars := append(slices.Clone(b.vars), "CCSKITEST_INSTALL_KILL_AT="+strconv.Itoa(n))
				if sc.noExchange {
					vars = append(vars, "CCSKITEST_NO_EXCHANGE=1")
				}
				r := runBinary(t, b.proj, vars, args...)
				killed := strings.Contains(r.stderr, "ccski-test: killed at step")
				if !killed {
					mustOK(t, r)
					if kills < 4 {
						t.Fatalf("only %d steps were killed: the hook does not reach the run's steps", kills)
					}
					return
				}
				kills++
				step := strings.TrimSpace(r.stderr[strings.LastIndex(r.stderr, "killed at"):])
				t.Run(step, func(t *testing.T) { checkAfterKill(t, b, src, sc.copy) })
			}
		})
	}
}

// copyArgs is args, with --copy when copy is set.
func copyArgs(copy bool, args ...string) []string {
	if copy {
		return append(args, "--copy")
	}
	return args
}

// checkAfterKill checks the state a kill left, as ccski list and the next
// run see it, and that the next runs on pdf succeed. With copy, pdf's
// second target is a copy rather than a link.
func checkAfterKill(t *testing.T, b *installBox, src string, copy bool) {
	r := b.run(t, "list", "--json")
	mustOK(t, r)
	var recs []struct{ Name, Path string }
	decodeOnly(t, r, &recs)
	for _, rec := range recs {
		if strings.Contains(rec.Path, ".ccski-") {
			t.Errorf("list shows %s at %s", rec.Name, rec.Path)
		}
	}
	// The next run on the scope finishes or undoes the killed one.
	mustOK(t, b.run(t, "remove", "other"))
	for p := range treeSnapshot(t, b.proj) {
		if strings.Contains(p, ".ccski-") || strings.Contains(p, "journal") {
			t.Errorf("%s is left after the next run", p)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(b.home, ".local/state/ccski/journal")); len(left) > 0 {
		t.Errorf("the journal %s is left after the next run", left[0].Name())
	}
	canon, link := filepath.Join(b.proj, ".agents/skills/pdf"), filepath.Join(b.proj, ".claude/skills/pdf")
	files, named := lockedFiles(t, b)
	if !named {
		for _, p := range []string{canon, link} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%s is there, but the lock does not name pdf", p)
			}
		}
		mustOK(t, b.run(t, copyArgs(copy, "install", src, "pdf")...))
		return
	}
	onDisk := digests(t, canon)
	whole := false
	for _, v := range killVersions {
		want := map[string]string{}
		for p, content := range v {
			sum := sha256.Sum256([]byte(content))
			want[strings.TrimPrefix(p, "pdf/")] = "sha256:" + hex.EncodeToString(sum[:])
		}
		whole = whole || maps.Equal(want, onDisk)
	}
	if !whole {
		t.Errorf("%s holds %v: no version whole", canon, onDisk)
	}
	if !maps.Equal(files, onDisk) {
		t.Errorf("the lock records %v, the copy holds %v", files, onDisk)
	}
	if copy {
		if st, err := os.Lstat(link); err != nil || !st.IsDir() {
			t.Errorf("%s is no folder (%v)", link, err)
		} else if second := digests(t, link); !maps.Equal(files, second) {
			t.Errorf("the lock records %v, the copy %s holds %v", files, link, second)
		}
	} else if got, err := filepath.EvalSymlinks(link); err != nil || got != mustReal(t, canon) {
		t.Errorf("%s leads to %q (%v), want the copy", link, got, err)
	}
	mustOK(t, b.run(t, "install"))
	mustOK(t, b.run(t, "update", "pdf"))
	mustOK(t, b.run(t, "remove", "pdf"))
}

// lockedFiles returns the digests the project's lock records for pdf, by
// path, and whether it names pdf.
func lockedFiles(t *testing.T, b *installBox) (map[string]string, bool) {
	t.Helper()
	var lock struct {
		Skills []struct {
			Name  string
			Files []struct{ Path, Digest string }
		}
	}
	data, err := os.ReadFile(filepath.Join(b.proj, "ccski.lock"))
	if err != nil {
		return nil, false
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		t.Fatalf("the lock is not JSON: %v\n%s", err, data)
	}
	for _, e := range lock.Skills {
		if e.Name == "pdf" {
			out := map[string]string{}
			for _, f := range e.Files {
				out[f.Path] = f.Digest
			}
			return out, true
		}
	}
	return nil, false
}

// digests maps each file below dir to its SHA-256, as the lock writes it.
func digests(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = "sha256:" + hex.EncodeToString(sum[:])
		return nil
	})
	return out
}

// mustReal resolves the symlinks of p or fails the test.
func mustReal(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFrozenNeverSettles: --frozen never writes the lock, so it does not
// finish a change a killed run left: it fails (exit 1) naming the
// interrupted change and what to do, and changes neither the lock nor
// the skill; a plain ccski install then settles it, and --frozen passes.
func TestFrozenNeverSettles(t *testing.T) {
	b := newInstallBox(t)
	src := filepath.Join(b.proj, "vendor") // --frozen installs from folders in the project
	testfs.Write(t, src, killVersions[0])
	mustOK(t, b.run(t, "install", src, "pdf"))
	os.RemoveAll(filepath.Join(src, "pdf"))
	testfs.Write(t, src, killVersions[1])
	// Kill the update once its new copy is in place, before the lock
	// records it.
	for n := 1; ; n++ {
		if n > maxKillSteps {
			t.Fatal("the update has no step swapped")
		}
		vars := append(slices.Clone(b.vars), "CCSKITEST_INSTALL_KILL_AT="+strconv.Itoa(n))
		r := runBinary(t, b.proj, vars, "update", "pdf")
		if !strings.Contains(r.stderr, "ccski-test: killed at step") {
			t.Fatalf("the update ended before its copy was swapped in\n%s", r)
		}
		if strings.Contains(r.stderr, "(swapped)") {
			break
		}
		mustOK(t, b.run(t, "install")) // settle, then try the next step
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	before := treeSnapshot(t, filepath.Join(b.proj, ".agents"))
	r := b.run(t, "install", "--frozen")
	if r.code != 1 || !strings.Contains(r.stderr, "interrupted") || !strings.Contains(r.stderr, "pdf") ||
		!strings.Contains(r.stderr, "without --frozen") {
		t.Errorf("want exit 1 naming the interrupted change of pdf and what to do\n%s", r)
	}
	if got := textOf(t, filepath.Join(b.proj, "ccski.lock")); got != lock {
		t.Errorf("--frozen wrote the lock:\n%s", got)
	}
	if after := treeSnapshot(t, filepath.Join(b.proj, ".agents")); !maps.Equal(before, after) {
		t.Errorf("--frozen changed the skills folder:\nbefore %v\nafter  %v", before, after)
	}
	mustOK(t, b.run(t, "install"))
	mustOK(t, b.run(t, "install", "--frozen"))
	files, _ := lockedFiles(t, b)
	if onDisk := digests(t, filepath.Join(b.proj, ".agents/skills/pdf")); !maps.Equal(files, onDisk) {
		t.Errorf("the lock records %v, the copy holds %v", files, onDisk)
	}
}
