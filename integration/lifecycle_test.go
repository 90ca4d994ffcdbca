package integration

import (
	"crypto/rand"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// This file drives the whole install lifecycle as a team meets it: what
// ccski leaves in the project, and what a teammate's clone restores from
// the lock alone.

// TestInstallLeavesNoLockFileInProject installs, updates and removes in a
// git project and checks that `git status` shows only the skills and
// ccski.lock: the lock that serialises runs lives in ccski's state
// folder, so a plain `git add -A` commits nothing of ccski's own.
func TestInstallLeavesNoLockFileInProject(t *testing.T) {
	b := newInstallBox(t)
	os.RemoveAll(filepath.Join(b.proj, ".git"))
	gitRun(t, b.proj, "init", "-q")
	testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p")})
	for _, args := range [][]string{
		{"install", filepath.Join(b.root, "src"), "pdf"},
		{"update"},
		{"remove", "pdf"},
		{"install", filepath.Join(b.root, "src"), "pdf"},
	} {
		mustOK(t, b.run(t, args...))
		if _, err := os.Lstat(filepath.Join(b.proj, "ccski.lock.lck")); err == nil {
			t.Fatalf("ccski %s left ccski.lock.lck in the project", strings.Join(args, " "))
		}
	}
	status := gitRun(t, b.proj, "status", "--porcelain", "--untracked-files=all")
	var got []string
	for _, l := range strings.Split(status, "\n") {
		got = append(got, strings.TrimSpace(l))
	}
	want := []string{"?? .agents/skills/pdf/SKILL.md", "?? .claude/skills/pdf", "?? ccski.lock"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("git status after install:\n%s\nwant:\n%s", status, strings.Join(want, "\n"))
	}
}

// TestLifecycleRoundTrip is the team's round trip. A project installs
// from a local git repository (file://), a marketplace Claude Code cloned
// from a git repository, a local clone of another repository (by its
// path, outside the project) and a folder inside the project, then
// commits. Upstream moves on: the marketplace gets a new commit, which
// Claude Code's clone takes, and the local clone a commit of its own. A
// second clone of the project, under an empty HOME (no marketplace, no
// git cache, no state), restores every skill with --frozen from the lock
// alone, byte for byte; then removing them leaves that clone
// byte-identical to the project before the install.
func TestLifecycleRoundTrip(t *testing.T) {
	b := newInstallBox(t)
	os.RemoveAll(filepath.Join(b.proj, ".git"))
	// The project: a repository whose installed skills are not committed
	// (each clone restores them from the lock).
	testfs.Write(t, b.proj, map[string]string{
		"README.md":                    "a project\n",
		".gitignore":                   ".agents/skills/\n.claude/skills/\n",
		"vendor/notes/SKILL.md":        skillText("notes", "project notes"),
		"vendor/notes/references/a.md": "reference\n",
	})
	gitRun(t, b.proj, "init", "-q")
	gitRun(t, b.proj, "add", "-A")
	gitRun(t, b.proj, "commit", "-q", "-m", "project")
	before := treeSnapshot(t, b.proj)

	// A local git repository, reached as file://.
	repo, _ := newGitSource(t, filepath.Join(b.root, "repo"), map[string]string{
		"skills/pdf/SKILL.md":       skillText("pdf", "p"),
		"skills/pdf/scripts/run.sh": "#!/bin/sh\necho pdf\n",
		"other/big.txt":             strings.Repeat("x", 1<<16),
	})
	// A marketplace Claude Code cloned from a git repository (its
	// origin a path, as `git clone PATH` records it).
	mkt, _ := newGitSource(t, filepath.Join(b.root, "mkt"), map[string]string{
		".claude-plugin/marketplace.json": `{"name": "team-tools", "owner": {"name": "o"}, "plugins": [
			{"name": "kit", "source": "./kit"}]}`,
		"kit/skills/km-skill/SKILL.md": skillText("km-skill", "marketplace v1"),
	})
	mktClone := filepath.Join(b.home, ".claude/plugins/marketplaces/team-tools")
	gitRun(t, b.root, "clone", "-q", mkt.bare, mktClone)
	testfs.Write(t, b.home, map[string]string{".claude/plugins/known_marketplaces.json": `{"team-tools": {
		"source": {"source": "git", "url": "` + mkt.bare + `"}, "installLocation": "` + filepath.ToSlash(mktClone) + `"}}`})
	// A local clone of another repository, installed by its path.
	tools, _ := newGitSource(t, filepath.Join(b.root, "tools"), map[string]string{
		"xlsx/SKILL.md": skillText("xlsx", "tools v1"),
		"xlsx/guide.md": "guide v1\n",
		"unrelated.txt": "not a skill\n",
	})
	localClone := filepath.Join(b.root, "checkouts", "tools")
	gitRun(t, b.root, "clone", "-q", tools.bare, localClone)

	mustOK(t, b.run(t, "install", repo.url+"#skills/pdf"))
	mustOK(t, b.run(t, "install", "team-tools", "km-skill"))
	mustOK(t, b.run(t, "install", localClone, "xlsx"))
	mustOK(t, b.run(t, "install", "vendor/notes"))
	installed := map[string]map[string]string{}
	for _, d := range []string{".agents", ".claude"} {
		installed[d] = treeSnapshot(t, filepath.Join(b.proj, d))
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	for _, want := range []string{"file://" + mkt.bare, "file://" + tools.bare} {
		if !strings.Contains(lock, `"url": "`+want+`"`) {
			t.Errorf("the lock does not record the repository %s:\n%s", want, lock)
		}
	}
	gitRun(t, b.proj, "add", "-A")
	gitRun(t, b.proj, "commit", "-q", "-m", "skills")
	if got := gitRun(t, b.proj, "show", "--name-only", "--format=", "HEAD"); got != "ccski.lock" {
		t.Errorf("the commit after install holds %q, want only ccski.lock", got)
	}

	// Upstream moves on: Claude Code's clone of the marketplace takes a
	// new commit, and the local clone gets one of its own.
	mkt.commit(t, map[string]string{"kit/skills/km-skill/SKILL.md": skillText("km-skill", "marketplace v2")})
	gitRun(t, mktClone, "pull", "-q")
	testfs.Write(t, localClone, map[string]string{"xlsx/guide.md": "guide v2, not pushed\n"})
	gitRun(t, localClone, "commit", "-q", "-am", "local change")

	// A teammate: a second clone under an empty HOME.
	mate := filepath.Join(b.root, "mate")
	gitRun(t, b.root, "clone", "-q", b.proj, filepath.Join(mate, "proj"))
	mateHome := filepath.Join(mate, "home")
	os.MkdirAll(mateHome, 0o755)
	vars := append([]string{}, b.vars...)
	for i, v := range vars {
		if strings.HasPrefix(v, "HOME=") {
			vars[i] = "HOME=" + mateHome
		}
	}
	matesProj := filepath.Join(mate, "proj")
	r := runBinary(t, matesProj, vars, "install", "--frozen", "--json")
	if r.code != 0 {
		t.Fatalf("install --frozen in the second clone:\n%s", r)
	}
	var rep installJSON
	decodeOnly(t, r, &rep)
	want := []string{"km-skill installed", "notes installed", "pdf installed", "xlsx installed"}
	if strings.Join(rep.statuses(), ",") != strings.Join(want, ",") {
		t.Errorf("--frozen restored %v, want %v", rep.statuses(), want)
	}
	for _, d := range []string{".agents", ".claude"} {
		got := treeSnapshot(t, filepath.Join(matesProj, d))
		for p, v := range installed[d] {
			if got[p] != v {
				t.Errorf("%s/%s in the second clone = %q, want %q", d, p, got[p], v)
			}
		}
		if len(got) != len(installed[d]) {
			t.Errorf("%s in the second clone holds %d entries, want %d", d, len(got), len(installed[d]))
		}
	}
	if got := textOf(t, filepath.Join(matesProj, "ccski.lock")); got != lock {
		t.Errorf("--frozen changed the lock")
	}

	// Upstream changes pdf: the teammate lists the skills (the trust
	// store sees them first), checks for updates (exit 10, nothing
	// written), updates with a diff, and lists again without a warning
	// about ccski's own write.
	repo.commit(t, map[string]string{"skills/pdf/scripts/run.sh": "#!/bin/sh\necho pdf v2\n"})
	r = runBinary(t, matesProj, vars, "list")
	mustOK(t, r)
	r = runBinary(t, matesProj, vars, "update", "--check")
	if r.code != 10 || !strings.Contains(r.stdout, "updated   pdf") {
		t.Errorf("update --check with pdf behind its source: want exit 10 naming pdf\n%s", r)
	}
	if got := textOf(t, filepath.Join(matesProj, "ccski.lock")); got != lock {
		t.Errorf("update --check changed the lock")
	}
	r = runBinary(t, matesProj, vars, "update", "pdf")
	mustOK(t, r)
	for _, want := range []string{"--- a/", "+++ b/", "-echo pdf\n", "+echo pdf v2\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("update shows no %q of its diff\n%s", want, r)
		}
	}
	r = runBinary(t, matesProj, vars, "list")
	mustOK(t, r)
	if strings.Contains(r.stdout+r.stderr, "changed since") {
		t.Errorf("list after ccski's own update warns of a change\n%s", r)
	}
	r = runBinary(t, matesProj, vars, "update", "--check", "pdf")
	if r.code != 0 {
		t.Errorf("update --check with everything current: want exit 0\n%s", r)
	}

	r = runBinary(t, matesProj, vars, "remove", "km-skill", "notes", "pdf", "xlsx")
	mustOK(t, r)
	after := treeSnapshot(t, matesProj)
	for p, v := range before {
		if after[p] != v {
			t.Errorf("after remove, %s = %q, want %q as before the install", p, after[p], v)
		}
	}
	for p, v := range after {
		if _, ok := before[p]; !ok && !strings.HasSuffix(p, "/") {
			t.Errorf("after remove, %s is left (%q)", p, v)
		}
	}
}

// TestInstallFetchesOnlyTheSkill installs one skill from a repository
// that also holds a large file and many others, served with filters
// allowed (uploadpack.allowFilter, as GitHub and GitLab serve): the git
// cache receives the skill's files and the trees, not the large file;
// the skill, its symlinked file from elsewhere in the repository and the
// lock's digests are as a full checkout gives them, and a restore from
// the lock alone gets the same bytes.
func TestInstallFetchesOnlyTheSkill(t *testing.T) {
	b := newInstallBox(t)
	files := map[string]string{
		"skills/pdf/SKILL.md":    skillText("pdf", "p"),
		"skills/pdf/shared.md":   "-> ../../shared/common.md",
		"shared/common.md":       "common text\n",
		"skills/docx/SKILL.md":   skillText("docx", "d"),
		"assets/big.bin":         randomText(t, 4<<20),
		"vendor/lib/unused.txt":  "unused\n",
		"vendor/lib/unused2.txt": "unused too\n",
	}
	g, _ := newGitSource(t, filepath.Join(b.root, "git"), files)
	gitRun(t, g.bare, "config", "uploadpack.allowFilter", "true")
	mustOK(t, b.run(t, "install", g.url, "pdf"))
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/pdf/shared.md")); got != "common text\n" {
		t.Errorf("the symlinked file = %q, want the file it leads to", got)
	}
	cache := filepath.Join(b.home, ".cache", "ccski", "git")
	var size int64
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if st, err := d.Info(); err == nil {
				size += st.Size()
			}
		}
		return nil
	})
	if size > 1<<20 {
		t.Errorf("the git cache holds %d bytes after installing one small skill: the large file was fetched", size)
	}
	if ents, _ := os.ReadDir(filepath.Join(cache, "tmp")); len(ents) != 0 {
		t.Errorf("checkouts left in the cache: %v", ents)
	}
	// A full checkout gives the same digests: a restore from a fresh
	// cache, checked against the lock, installs the same bytes.
	installed := treeSnapshot(t, filepath.Join(b.proj, ".agents"))
	os.RemoveAll(filepath.Join(b.proj, ".agents"))
	os.RemoveAll(cache)
	gitRun(t, g.bare, "config", "uploadpack.allowFilter", "false")
	rep := b.jsonRun(t, 0, "install", "--frozen")
	if strings.Join(rep.statuses(), ",") != "pdf installed" {
		t.Fatalf("restore: %v", rep.statuses())
	}
	if got := treeSnapshot(t, filepath.Join(b.proj, ".agents")); fmt.Sprint(got) != fmt.Sprint(installed) {
		t.Errorf("restored %v, want %v", got, installed)
	}
}

// randomText is n bytes of printable random text, which no compression
// shrinks much.
func randomText(t *testing.T, n int) string {
	t.Helper()
	buf := make([]byte, n)
	if _, err := rand.Read(buf); err != nil {
		t.Fatal(err)
	}
	for i, c := range buf {
		buf[i] = 'a' + c%26
	}
	return string(buf)
}

// TestUnpinnedMarketplaceSaysWhatToDo: a marketplace that is no git clone
// is locked by name only; a machine that does not know it gets a failure
// that says Claude Code knows none and how the lock gets a repository,
// not an empty list of names.
func TestUnpinnedMarketplaceSaysWhatToDo(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{
		"home/.claude/plugins/known_marketplaces.json": `{"team-tools": {"source": {"source": "directory", "path": "x"},
			"installLocation": "` + filepath.ToSlash(filepath.Join(b.root, "plain")) + `"}}`,
		"plain/.claude-plugin/marketplace.json": `{"name": "team-tools", "owner": {"name": "o"}, "plugins": [
			{"name": "kit", "source": "./kit"}]}`,
		"plain/kit/skills/km-skill/SKILL.md": skillText("km-skill", "k"),
	})
	mustOK(t, b.run(t, "install", "team-tools", "km-skill"))
	os.RemoveAll(filepath.Join(b.proj, ".agents"))
	os.RemoveAll(filepath.Join(b.home, ".claude"))
	rep := b.jsonRun(t, 1, "install")
	if len(rep.Results) != 1 || !strings.Contains(rep.Results[0].Message, "knows none") ||
		!strings.Contains(rep.Results[0].Message, "ccski update") {
		t.Errorf("restore without the marketplace: %+v", rep.Results)
	}
}
