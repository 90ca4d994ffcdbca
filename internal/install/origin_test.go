package install

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/gitfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
)

// runGit runs git in dir with a fixed identity, or fails the test.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestPinClone: a folder that is a clone of a repository (its remote a
// path, as `git clone PATH` writes it) is pinned to that repository as a
// file:// URL, the folder's path in it and the clone's commit; a skill
// with uncommitted or ignored files, a clone without a remote, a folder in
// no clone and a folder of the project's own repository are not pinned,
// and a commit no remote branch holds is pinned with a note to push it.
func TestPinClone(t *testing.T) {
	base := testfs.TempDir(t)
	url, _ := gitRepo(t, base, map[string]string{"group/pdf/SKILL.md": skill("pdf"), "group/docx/SKILL.md": skill("docx")})
	bare := strings.TrimPrefix(url, "file://")
	clone := filepath.Join(base, "clone")
	runGit(t, base, "clone", "-q", bare, clone)
	testfs.Write(t, base, map[string]string{"proj/.git/": "", "plain/pdf/SKILL.md": skill("pdf")})
	// x is a new run each time: a run reads each clone once.
	x := func() *Installer {
		return &Installer{Ctx: context.Background(), Git: &gitfetch.Git{}, Layout: Layout{Scope: ScopeProject, Base: filepath.Join(base, "proj")}}
	}
	head := runGit(t, clone, "rev-parse", "HEAD")
	root := filepath.Join(clone, "group")

	src, commit, note := x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "pdf", Rel: "pdf"})
	if diff := cmp.Diff(Origin{URL: "file://" + filepath.ToSlash(bare), Path: "group"}, src.Origin); diff != "" || commit != head || note != "" {
		t.Errorf("clean clone: origin (-want +got):\n%s commit %s (want %s), note %q", diff, commit, head, note)
	}

	testfs.Write(t, clone, map[string]string{"group/docx/extra.md": "untracked"})
	src, commit, note = x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "docx", Rel: "docx"})
	if src.Origin != (Origin{}) || commit != "" || !strings.Contains(note, "not committed") {
		t.Errorf("untracked file: origin %+v, commit %q, note %q", src.Origin, commit, note)
	}
	if _, commit, _ := x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "pdf", Rel: "pdf"}); commit != head {
		t.Errorf("a change beside the skill unpinned it")
	}

	testfs.Write(t, clone, map[string]string{"group/pdf/SKILL.md": skill("pdf") + "more\n"})
	runGit(t, clone, "commit", "-q", "-am", "local")
	src, commit, note = x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "pdf", Rel: "pdf"})
	if src.Origin.URL == "" || commit != runGit(t, clone, "rev-parse", "HEAD") || !strings.Contains(note, "push it") {
		t.Errorf("unpushed commit: origin %+v, commit %q, note %q", src.Origin, commit, note)
	}

	testfs.Write(t, clone, map[string]string{".git/info/exclude": "*.log\n", "group/pdf/run.log": "ignored"})
	if src, commit, note := x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "pdf", Rel: "pdf"}); src.Origin != (Origin{}) || commit != "" || !strings.Contains(note, "not committed") {
		t.Errorf("ignored file: origin %+v, commit %q, note %q", src.Origin, commit, note)
	}
	os.Remove(filepath.Join(clone, "group/pdf/run.log"))

	runGit(t, clone, "remote", "remove", "origin")
	if src, commit, note := x().pin(Source{Kind: KindDir, Dir: root}, root, "", Candidate{Name: "pdf", Rel: "pdf"}); src.Origin != (Origin{}) || commit != "" || !strings.Contains(note, "no remote") {
		t.Errorf("no remote: origin %+v, commit %q, note %q", src.Origin, commit, note)
	}

	plain := filepath.Join(base, "plain")
	if src, commit, note := x().pin(Source{Kind: KindDir, Dir: plain}, plain, "", Candidate{Name: "pdf", Rel: "pdf"}); src.Origin != (Origin{}) || commit != "" || note != "" {
		t.Errorf("plain folder: origin %+v, commit %q, note %q", src.Origin, commit, note)
	}

	proj := filepath.Join(base, "own")
	testfs.Write(t, proj, map[string]string{"vendor/pdf/SKILL.md": skill("pdf")})
	runGit(t, proj, "init", "-q")
	runGit(t, proj, "remote", "add", "origin", bare)
	runGit(t, proj, "add", "-A")
	runGit(t, proj, "commit", "-q", "-m", "own")
	own := &Installer{Ctx: context.Background(), Git: &gitfetch.Git{}, Layout: Layout{Scope: ScopeProject, Base: proj}}
	vendor := filepath.Join(proj, "vendor")
	if src, commit, _ := own.pin(Source{Kind: KindDir, Dir: vendor}, vendor, "", Candidate{Name: "pdf", Rel: "pdf"}); src.Origin != (Origin{}) || commit != "" {
		t.Errorf("a folder of the project's own repository was pinned: %+v %q", src.Origin, commit)
	}
}

// TestFetchURL: a remote's local path becomes a file:// URL, from the
// clone's top when relative; URLs pass as they are; what ccski does not
// fetch is "".
func TestFetchURL(t *testing.T) {
	tests := map[string]string{
		"/srv/repo.git":                  "file:///srv/repo.git",
		"../up/repo.git":                 "file:///work/up/repo.git",
		"https://example.com/o/r.git":    "https://example.com/o/r.git",
		"git@example.com:o/r.git":        "git@example.com:o/r.git",
		"ext::sh -c evil":                "",
		"https://u:secret@example.com/r": "",
		"":                               "",
	}
	for raw, want := range tests {
		if got := fetchURL("/work/top", raw); got != want {
			t.Errorf("fetchURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestLockOrigin: an entry with an origin is written as version 2 and
// read back whole; a lock without one stays version 1 (older ccski reads
// it), a version 1 lock still reads, and an origin that is no fetchable
// URL, escapes its repository or lacks its commit is refused. A lock that
// names no skill is deleted.
func TestLockOrigin(t *testing.T) {
	base := testfs.TempDir(t)
	file := filepath.Join(base, LockName)
	commit := strings.Repeat("ab", 20)
	pinned := Entry{Name: "km", Source: Source{Kind: KindMarketplace, Name: "team",
		Origin: Origin{URL: "https://example.com/team.git", Path: "sub"}}, Commit: commit, Path: "kit/skills/km",
		Targets: []Target{{Agent: "agents", Dir: filepath.Join(base, ".agents", "skills")}},
		Files:   []manifest.File{{Path: "SKILL.md", Size: 3, Digest: "sha256:00"}}}
	plain := Entry{Name: "alpha", Source: Source{Kind: KindDir, Dir: filepath.Join(base, "vendor")}, Path: "alpha",
		Targets: pinned.Targets, Files: pinned.Files}
	if err := (&Lock{Skills: []Entry{plain}}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(file); !strings.Contains(string(data), `"version": 1`) || strings.Contains(string(data), "origin") {
		t.Errorf("a lock without an origin:\n%s", data)
	}
	if err := (&Lock{Skills: []Entry{plain, pinned}}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(file)
	if !strings.Contains(string(data), `"version": 2`) || !strings.Contains(string(data), `"origin": {`) {
		t.Errorf("a lock with an origin:\n%s", data)
	}
	got, err := ReadLock(file, base, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(pinned, *got.Find("km")); diff != "" {
		t.Errorf("pinned entry round trip (-want +got):\n%s", diff)
	}
	for name, tt := range map[string]struct{ origin, commit, err string }{
		"ext URL":     {`{"url":"ext::sh -c x"}`, commit, "not one ccski fetches"},
		"escaping":    {`{"url":"https://e/r.git","path":"../x"}`, commit, "clean path inside its repository"},
		"no commit":   {`{"url":"https://e/r.git"}`, "", "needs the full commit"},
		"short":       {`{"url":"https://e/r.git"}`, "abc123", "needs the full commit"},
		"git origin?": {`{"url":"https://e/r.git"}`, commit, "has no origin"},
	} {
		kind := `"kind":"dir","dir":"v"`
		if name == "git origin?" {
			kind = `"kind":"git","url":"https://e/r.git"`
		}
		os.WriteFile(file, []byte(`{"version":2,"skills":[{"name":"x","source":{`+kind+`,"origin":`+tt.origin+`},"commit":"`+
			tt.commit+`","path":".","targets":[{"dir":"s"}],"files":[]}]}`), 0o644)
		if _, err := ReadLock(file, base, true); err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: ReadLock = %v, want an error holding %q", name, err, tt.err)
		}
	}
	if err := (&Lock{}).Write(file, base); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(file); err == nil {
		t.Error("a lock naming no skill was kept")
	}
	if err := (&Lock{}).Write(file, base); err != nil {
		t.Errorf("deleting a missing empty lock: %v", err)
	}
}

// TestPinnedRestoreAndUpdate: a pinned marketplace entry whose
// marketplace this machine does not know is restored from its origin at
// the locked commit (the digests checked), and updated from the origin's
// default branch, keeping its origin.
func TestPinnedRestoreAndUpdate(t *testing.T) {
	f := newFixture(t, nil)
	url, shas := gitRepo(t, filepath.Join(f.base, "mkt"),
		map[string]string{"m/kit/skills/km/SKILL.md": skill("km")},
		map[string]string{"m/kit/skills/km/SKILL.md": skill("km") + "v2\n"})
	x := f.installer()
	x.Git = &gitfetch.Git{CacheDir: filepath.Join(f.base, "cache")}
	x.Marketplace = func(string) (string, bool, []string) { return "", false, nil }
	defer x.Close()
	agents, _ := ParseAgents(nil)
	e := Entry{Name: "km", Source: Source{Kind: KindMarketplace, Name: "team", Origin: Origin{URL: url, Path: "m"}},
		Commit: shas[0], Path: "kit/skills/km", Targets: f.layout.Targets(agents, ""),
		Files: []manifest.File{fileOf("SKILL.md", skill("km"))}}
	if r := x.Restore(e, true); r.Status != StatusInstalled || r.Commit != shas[0] {
		t.Fatalf("restore: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(f.layout.Base, ".agents/skills/km/SKILL.md")); string(got) != skill("km") {
		t.Errorf("restored %q, want the locked commit's", got)
	}
	r := x.Update(*x.Lock.Find("km"), "")
	if r.Status != StatusUpdated || r.Commit != shas[1] || r.From != shas[0] {
		t.Fatalf("update: %+v", r)
	}
	if got := x.Lock.Find("km"); got.Commit != shas[1] || got.Source.Origin != e.Source.Origin {
		t.Errorf("the lock after the update: %+v", got)
	}
	// A changed digest is refused, from the origin as from anywhere.
	e.Files = []manifest.File{fileOf("SKILL.md", "tampered")}
	os.RemoveAll(filepath.Join(f.layout.Base, ".agents"))
	os.RemoveAll(filepath.Join(f.layout.Base, ".claude"))
	x.Lock = &Lock{}
	if r := x.Restore(e, true); r.Status != StatusFailed || !strings.Contains(r.Message, "no longer matches the lock") {
		t.Errorf("restore with a wrong digest: %+v", r)
	}
}
