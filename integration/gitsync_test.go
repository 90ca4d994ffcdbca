package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
)

// gitSkill is a SKILL.md of name saying body.
func gitSkill(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill of the organisation.\n---\n" + body + "\n"
}

// gitMachine is a bare machine whose user config sets providers.git to
// extra (YAML lines under it, indented by four).
func gitMachine(t *testing.T, extra string) *machine.Machine {
	t.Helper()
	m := bareMachine(t, nil)
	cfg := filepath.Join(m.Home, ".config", "ccski", "config.yaml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("providers:\n  git:\n"+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// gitState is the state.json of the machine's one providers.git checkout,
// or "" while there is none.
func gitState(t *testing.T, m *machine.Machine) string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(m.Home, ".cache", "ccski", "git-sync", "*", "state.json"))
	if len(files) != 1 {
		return ""
	}
	data, _ := os.ReadFile(files[0])
	return string(data)
}

// TestGitProviderSyncs: ccski mcp serves the skills of a git repository
// (providers.git), follows a new commit on its own (a rescan, then
// list_changed), keeps serving the last good commit while the repository
// cannot be fetched, and sources says which commit is served and why a
// fetch failed.
func TestGitProviderSyncs(t *testing.T) {
	repo := gitfetchtest.New(t, t.TempDir())
	first := repo.Commit(map[string]string{
		"skills/pdf/SKILL.md":           gitSkill("pdf", "Fill PDF forms, v1."),
		"skills/pdf/references/api.md":  "API v1",
		"README.md":                     "The organisation's skills.",
		"skills/pdf/scripts/extract.sh": "#!/bin/sh\necho extract\n",
	})
	m := gitMachine(t, "    url: "+repo.URL+"\n    path: skills\n    interval: 0s\n")
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--refresh-interval", "300ms")
	entries, _ := mustListSkills(t, ctx, s.cs)
	if _, ok := findEntry(entries, "git:pdf"); !ok {
		t.Fatalf("listed %v, want git:pdf from the repository", entryIDs(entries))
	}
	if text, err := loadSkill(ctx, s.cs, "pdf"); err != nil || !strings.Contains(text, "v1") {
		t.Fatalf("pdf = %q, %v; want the first commit's body", text, err)
	}

	// A new commit upstream: the server fetches it at a rescan and says
	// the list changed.
	before, start := s.changes.Load(), time.Now()
	second := repo.Commit(map[string]string{
		"skills/pdf/SKILL.md":  gitSkill("pdf", "Fill PDF forms, v2."),
		"skills/docx/SKILL.md": gitSkill("docx", "Edit Word documents."),
	})
	awaitChange(t, ctx, s, before, start, "a new commit", func(es []skillEntry) bool {
		_, ok := findEntry(es, "git:docx")
		return ok
	})
	if text, err := loadSkill(ctx, s.cs, "pdf"); err != nil || !strings.Contains(text, "v2") {
		t.Errorf("pdf after the commit = %q, %v; want v2", text, err)
	}
	r := ccski(t, m, runOpts{}, std(m, "sources")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "git-synced") || !strings.Contains(r.stdout, "serving commit "+second) {
		t.Errorf("sources does not name the commit served, %s:\n%s", second, r)
	}

	// The repository gone: the server's fetches fail, and it keeps
	// serving the last good commit.
	if err := os.Rename(repo.Bare, repo.Bare+".gone"); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(refreshBudget, func() bool { return strings.Contains(gitState(t, m), `"error"`) }) {
		t.Fatalf("no failed fetch recorded within %v: %s\nstderr:\n%s", refreshBudget, gitState(t, m), s.stderr)
	}
	for _, name := range []string{"pdf", "docx"} {
		if text, err := loadSkill(ctx, s.cs, name); err != nil || name == "pdf" && !strings.Contains(text, "v2") {
			t.Errorf("%s with the repository gone = %q, %v; want the last good commit's", name, text, err)
		}
	}
	r = ccski(t, m, runOpts{}, std(m, "sources")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "git-fetch-failed") || !strings.Contains(r.stdout, "serving its last good commit "+second) ||
		!strings.Contains(r.stdout, "not found") {
		t.Errorf("sources does not say the fetch failed and which commit is still served:\n%s", r)
	}
	// doctor shows the sources' warnings too, as sources prints them.
	r = ccski(t, m, runOpts{}, std(m, "doctor")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "Warnings of the sources") || !strings.Contains(r.stdout, "warning [git-fetch-failed] "+repo.URL) ||
		!strings.Contains(r.stdout, "serving its last good commit "+second) {
		t.Errorf("doctor does not show the git provider's warning:\n%s", r)
	}
	if first == second {
		t.Fatal("the two commits are one")
	}
	s.mustExit0(t, 5*time.Second)
}

// TestGitProviderBadRef: a ref the repository does not have serves no
// skills from it and says so, naming the ref.
func TestGitProviderBadRef(t *testing.T) {
	repo := gitfetchtest.New(t, t.TempDir())
	repo.Commit(map[string]string{"pdf/SKILL.md": gitSkill("pdf", "Body.")})
	m := gitMachine(t, "    url: "+repo.URL+"\n    ref: release-9\n")
	r := ccski(t, m, runOpts{}, std(m, "sources")...)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "git-fetch-failed") || !strings.Contains(r.stdout, `ref "release-9" not found`) ||
		!strings.Contains(r.stdout, "give an existing branch, tag or full commit hash") {
		t.Errorf("sources does not say the ref is unknown:\n%s", r)
	}
	r = ccski(t, m, runOpts{}, std(m, "list", "--json")...)
	mustOK(t, r)
	if strings.Contains(r.stdout, `"pdf"`) {
		t.Errorf("list shows a skill of a ref that does not exist:\n%s", r.stdout)
	}
}

// TestGitProviderRescansOnNewCommit: a fetch that moves the commit served
// makes the server rescan at once, not at its next periodic rescan. The
// refresh interval is an hour here: a skill added to a watched folder
// makes the server rescan, that rescan fetches the repository in the
// background (interval 0s) and finds a new commit, and the new commit's
// skills are served without waiting an hour for the next rescan.
func TestGitProviderRescansOnNewCommit(t *testing.T) {
	repo := gitfetchtest.New(t, t.TempDir())
	repo.Commit(map[string]string{"skills/pdf/SKILL.md": gitSkill("pdf", "Fill PDF forms, v1.")})
	m := gitMachine(t, "    url: "+repo.URL+"\n    path: skills\n    interval: 0s\n")
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--refresh-interval", "1h")
	entries, _ := mustListSkills(t, ctx, s.cs)
	if _, ok := findEntry(entries, "git:pdf"); !ok {
		t.Fatalf("listed %v, want git:pdf from the repository", entryIDs(entries))
	}
	second := repo.Commit(map[string]string{
		"skills/pdf/SKILL.md":  gitSkill("pdf", "Fill PDF forms, v2."),
		"skills/docx/SKILL.md": gitSkill("docx", "Edit Word documents."),
	})
	before, start := s.changes.Load(), time.Now()
	writeSkill(t, filepath.Join(m.DocsDir, "local"), "local", "A local skill that makes the server rescan.", "Local.")
	awaitChange(t, ctx, s, before, start, "the new commit after a rescan that fetched it", func(es []skillEntry) bool {
		_, docx := findEntry(es, "git:docx")
		return docx
	})
	if text, err := loadSkill(ctx, s.cs, "pdf"); err != nil || !strings.Contains(text, "v2") {
		t.Errorf("pdf after the commit = %q, %v; want v2 of %s", text, err, second)
	}
	s.mustExit0(t, 5*time.Second)
}
