package integration

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// This file drives ccski install, update and remove against local
// fixtures: bare git repositories reached with file:// URLs, folders,
// both marketplace formats and a marketplace Claude Code has cloned.
// Nothing goes to the network.

// skillText is a valid SKILL.md for name, with a body.
func skillText(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\n" + body + "\n"
}

// installBox is a home folder, a project (a git work tree) and the
// variables ccski runs with: nothing of the developer's leaks in.
type installBox struct {
	root, home, proj string
	vars             []string
}

func newInstallBox(t *testing.T) *installBox {
	t.Helper()
	registerSourcesOnce(t)
	root := testfs.TempDir(t)
	b := &installBox{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	testfs.Write(t, root, map[string]string{"home/": "", "proj/.git/": ""})
	b.vars = []string{"HOME=" + b.home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "NO_COLOR=1",
		"TMPDIR=" + os.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	return b
}

// run runs ccski in the project.
func (b *installBox) run(t *testing.T, args ...string) result {
	t.Helper()
	return runBinary(t, b.proj, b.vars, args...)
}

// jsonRun runs ccski with --json and decodes its report.
func (b *installBox) jsonRun(t *testing.T, wantCode int, args ...string) installJSON {
	t.Helper()
	r := b.run(t, append(args, "--json")...)
	if r.code != wantCode {
		t.Fatalf("want exit %d\n%s", wantCode, r)
	}
	var rep installJSON
	decodeOnly(t, r, &rep)
	return rep
}

// installJSON is the --json report of install, update and remove.
type installJSON struct {
	Scope   string `json:"scope"`
	Lock    string `json:"lock"`
	DryRun  bool   `json:"dryRun"`
	Results []struct {
		Skill   string   `json:"skill"`
		Status  string   `json:"status"`
		Source  string   `json:"source"`
		Commit  string   `json:"commit"`
		From    string   `json:"from"`
		Paths   []string `json:"paths"`
		Message string   `json:"message"`
		Changes *struct {
			Added, Changed, Removed []string
		} `json:"changes"`
	} `json:"results"`
	Counts map[string]int `json:"counts"`
}

// statuses lists "skill status" per result.
func (rep installJSON) statuses() []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Skill+" "+r.Status)
	}
	return out
}

// gitRun runs git in dir with a fixed identity.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitSource is a bare repository and the work tree that feeds it.
type gitSource struct {
	work, bare, url string
}

// newGitSource makes a repository with one commit per file set, pushed
// to a bare repository; it returns it and the commits.
func newGitSource(t *testing.T, dir string, commits ...map[string]string) (*gitSource, []string) {
	t.Helper()
	g := &gitSource{work: filepath.Join(dir, "work"), bare: filepath.Join(dir, "repo.git")}
	g.url = "file://" + g.bare
	os.MkdirAll(g.work, 0o755)
	gitRun(t, g.work, "init", "-q")
	gitRun(t, dir, "init", "-q", "--bare", g.bare)
	gitRun(t, g.work, "remote", "add", "origin", g.bare)
	var shas []string
	for _, files := range commits {
		shas = append(shas, g.commit(t, files))
	}
	return g, shas
}

// commit writes files, commits and pushes them; it returns the commit.
func (g *gitSource) commit(t *testing.T, files map[string]string) string {
	t.Helper()
	testfs.Write(t, g.work, files)
	gitRun(t, g.work, "add", "-A")
	gitRun(t, g.work, "commit", "-q", "-m", "change")
	gitRun(t, g.work, "push", "-q", "origin", "HEAD:main")
	return gitRun(t, g.work, "rev-parse", "HEAD")
}

// treeSnapshot lists every file, folder and link under dir, with contents.
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + filepath.ToSlash(target)
		case d.IsDir():
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			st, _ := d.Info()
			out[rel] = string(data) + "|" + st.Mode().Perm().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// textOf reads a file or fails the test.
func textOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestInstallSourceKinds installs from each kind of source and records
// it in the project's lock: a git repository (its default branch, and an
// older commit by @ref), a folder of skills with no marketplace file, a
// SKILL.md, a Claude marketplace.json, a Codex marketplace.json, and a
// marketplace Claude Code has cloned, by name, offline.
func TestInstallSourceKinds(t *testing.T) {
	tests := []struct {
		name  string
		args  func(b *installBox, shas []string) []string
		want  []string // "skill status"
		kind  string   // the lock's source kind
		check func(t *testing.T, b *installBox, shas []string)
	}{
		{name: "git default branch", args: func(b *installBox, _ []string) []string {
			return []string{"file://" + filepath.Join(b.root, "git", "repo.git"), "pdf"}
		}, want: []string{"pdf installed"}, kind: "git", check: func(t *testing.T, b *installBox, shas []string) {
			if got := textOf(t, filepath.Join(b.proj, ".agents/skills/pdf/SKILL.md")); got != skillText("pdf", "v2") {
				t.Errorf("SKILL.md = %q, want the second commit's", got)
			}
		}},
		{name: "git older commit by @ref", args: func(b *installBox, shas []string) []string {
			return []string{"file://" + filepath.Join(b.root, "git", "repo.git") + "@" + shas[0] + "#skills", "--all"}
		}, want: []string{"docx installed", "pdf installed"}, kind: "git", check: func(t *testing.T, b *installBox, shas []string) {
			if got := textOf(t, filepath.Join(b.proj, ".agents/skills/pdf/SKILL.md")); got != skillText("pdf", "v1") {
				t.Errorf("SKILL.md = %q, want the first commit's", got)
			}
			if lock := textOf(t, filepath.Join(b.proj, "ccski.lock")); !strings.Contains(lock, shas[0]) {
				t.Errorf("the lock does not name commit %s:\n%s", shas[0], lock)
			}
		}},
		{name: "folder of skills", args: func(b *installBox, _ []string) []string {
			return []string{filepath.Join(b.root, "folder"), "--all"}
		}, want: []string{"alpha installed", "beta installed"}, kind: "dir"},
		{name: "folder with --include", args: func(b *installBox, _ []string) []string {
			return []string{filepath.Join(b.root, "folder"), "--include", "all:b*"}
		}, want: []string{"beta installed"}, kind: "dir"},
		{name: "SKILL.md", args: func(b *installBox, _ []string) []string {
			return []string{filepath.Join(b.root, "folder", "nested", "alpha", "SKILL.md")}
		}, want: []string{"alpha installed"}, kind: "dir"},
		{name: "Claude marketplace.json", args: func(b *installBox, _ []string) []string {
			return []string{filepath.Join(b.root, "claude-mkt", ".claude-plugin", "marketplace.json"), "--all"}
		}, want: []string{"cm-one installed", "cm-two installed"}, kind: "dir"},
		{name: "Codex marketplace.json", args: func(b *installBox, _ []string) []string {
			return []string{filepath.Join(b.root, "codex-mkt", ".agents", "plugins", "marketplace.json"), "notes:jot"}
		}, want: []string{"jot installed"}, kind: "dir"},
		{name: "known marketplace, offline", args: func(b *installBox, _ []string) []string {
			return []string{"team-tools", "km-skill"}
		}, want: []string{"km-skill installed"}, kind: "marketplace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInstallBox(t)
			_, shas := newGitSource(t, filepath.Join(b.root, "git"),
				map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1"), "skills/docx/SKILL.md": skillText("docx", "v1")},
				map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v2")})
			testfs.Write(t, b.root, map[string]string{
				"folder/nested/alpha/SKILL.md": skillText("alpha", "a"),
				"folder/beta/SKILL.md":         skillText("beta", "b"),
				"claude-mkt/.claude-plugin/marketplace.json": `{"name": "cm", "owner": {"name": "o"}, "plugins": [
					{"name": "p", "source": "./plugins/p"}]}`,
				"claude-mkt/plugins/p/skills/cm-one/SKILL.md": skillText("cm-one", "1"),
				"claude-mkt/plugins/p/skills/cm-two/SKILL.md": skillText("cm-two", "2"),
				"codex-mkt/.agents/plugins/marketplace.json": `{"name": "cx", "plugins": [
					{"name": "notes", "source": {"source": "local", "path": "./plugins/notes"}}]}`,
				"codex-mkt/plugins/notes/.codex-plugin/plugin.json": `{"name": "notes"}`,
				"codex-mkt/plugins/notes/skills/jot/SKILL.md":       skillText("jot", "j"),
				"codex-mkt/plugins/notes/skills/read/SKILL.md":      skillText("read", "r"),
				"home/.claude/plugins/known_marketplaces.json": `{"team-tools": {"source": {"source": "github", "repo": "o/t"},
					"installLocation": "` + filepath.ToSlash(filepath.Join(b.root, "clone")) + `"}}`,
				"clone/.claude-plugin/marketplace.json": `{"name": "team-tools", "owner": {"name": "o"}, "plugins": [
					{"name": "kit", "source": "./kit"}]}`,
				"clone/kit/skills/km-skill/SKILL.md": skillText("km-skill", "k"),
				"clone/kit/skills/km-other/SKILL.md": skillText("km-other", "o"),
			})
			rep := b.jsonRun(t, 0, append([]string{"install"}, tt.args(b, shas)...)...)
			if diff := cmp.Diff(tt.want, rep.statuses()); diff != "" {
				t.Fatalf("results (-want +got):\n%s", diff)
			}
			var lock struct {
				Skills []struct {
					Name   string
					Source struct{ Kind string }
					Files  []struct{ Path, Digest string }
				}
			}
			if err := json.Unmarshal([]byte(textOf(t, filepath.Join(b.proj, "ccski.lock"))), &lock); err != nil {
				t.Fatal(err)
			}
			for _, e := range lock.Skills {
				if e.Source.Kind != tt.kind || len(e.Files) == 0 || !strings.HasPrefix(e.Files[0].Digest, "sha256:") {
					t.Errorf("lock entry %+v, want kind %s and digests", e, tt.kind)
				}
			}
			for _, r := range rep.Results {
				st, err := os.Lstat(filepath.Join(b.proj, ".claude", "skills", r.Skill))
				if err != nil || st.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("%s: no link in .claude/skills (%v)", r.Skill, err)
				}
			}
			if tt.check != nil {
				tt.check(t, b, shas)
			}
		})
	}
}

// TestInstallChoiceNeeded refuses a source with several skills and no
// choice (exit 2, listing them), -i without a terminal, and a name the
// source lacks (with a suggestion).
func TestInstallChoiceNeeded(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{
		"src/pdf/SKILL.md":  skillText("pdf", "p"),
		"src/docx/SKILL.md": skillText("docx", "d"),
	})
	src := filepath.Join(b.root, "src")
	tests := []struct {
		args []string
		has  []string
	}{
		{[]string{src}, []string{"offers 2 skills", "docx", "pdf", "--all"}},
		{[]string{src, "-i"}, []string{"-i needs a terminal"}},
		{[]string{src, "pfd"}, []string{`no skill named "pfd"`, "did you mean pdf"}},
		{[]string{src, "--agent", "clade"}, []string{`did you mean "claude"`}},
	}
	for _, tt := range tests {
		r := b.run(t, append([]string{"install"}, tt.args...)...)
		if r.code != 2 {
			t.Errorf("want exit 2\n%s", r)
		}
		for _, s := range tt.has {
			if !strings.Contains(r.stderr, s) {
				t.Errorf("stderr lacks %q\n%s", s, r)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(b.proj, ".agents")); err == nil {
		t.Error("a refused install wrote")
	}
}

// TestInstallTargets installs for every --agent value and both scopes,
// and into --dir: the copy where the agents read it, links where they do
// not; --copy makes copies of the links.
func TestInstallTargets(t *testing.T) {
	type want map[string]string // path below the box -> "dir" or "link"
	tests := []struct {
		name string
		args []string
		want want
		lock string
	}{
		{"default, project", nil, want{"proj/.agents/skills/pdf": "dir", "proj/.claude/skills/pdf": "link"}, "proj/ccski.lock"},
		{"default, user", []string{"--scope", "user"}, want{"home/.agents/skills/pdf": "dir", "home/.claude/skills/pdf": "link"}, "home/.config/ccski/ccski.lock"},
		{"agents", []string{"--agent", "agents"}, want{"proj/.agents/skills/pdf": "dir"}, "proj/ccski.lock"},
		{"claude, project", []string{"--agent", "claude"}, want{"proj/.claude/skills/pdf": "dir"}, "proj/ccski.lock"},
		{"claude, user", []string{"--agent", "claude", "--scope", "user"}, want{"home/.claude/skills/pdf": "dir"}, "home/.config/ccski/ccski.lock"},
		{"codex, user", []string{"--agent", "codex", "--scope", "user"}, want{"home/.agents/skills/pdf": "dir"}, "home/.config/ccski/ccski.lock"},
		{"gemini", []string{"--agent", "gemini"}, want{"proj/.gemini/skills/pdf": "dir"}, "proj/ccski.lock"},
		{"cursor, user", []string{"--agent", "cursor", "--scope", "user"}, want{"home/.cursor/skills/pdf": "dir"}, "home/.config/ccski/ccski.lock"},
		{"copilot, project", []string{"--agent", "copilot"}, want{"proj/.github/skills/pdf": "dir"}, "proj/ccski.lock"},
		{"copilot, user", []string{"--agent", "copilot", "--scope", "user"}, want{"home/.copilot/skills/pdf": "dir"}, "home/.config/ccski/ccski.lock"},
		{"all", []string{"--agent", "all"}, want{"proj/.agents/skills/pdf": "dir", "proj/.claude/skills/pdf": "link",
			"proj/.cursor/skills/pdf": "link"}, "proj/ccski.lock"},
		{"all, copies", []string{"--agent", "all", "--copy"}, want{"proj/.agents/skills/pdf": "dir", "proj/.claude/skills/pdf": "dir",
			"proj/.cursor/skills/pdf": "dir"}, "proj/ccski.lock"},
		{"dir", []string{"--dir", "vendor/skills"}, want{"proj/vendor/skills/pdf": "dir"}, "proj/ccski.lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInstallBox(t)
			testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p")})
			rep := b.jsonRun(t, 0, append([]string{"install", filepath.Join(b.root, "src")}, tt.args...)...)
			if diff := cmp.Diff([]string{"pdf installed"}, rep.statuses()); diff != "" {
				t.Fatalf("results (-want +got):\n%s", diff)
			}
			got := want{}
			for _, p := range rep.Results[0].Paths {
				rel, _ := filepath.Rel(b.root, p)
				st, err := os.Lstat(p)
				switch {
				case err != nil:
					got[filepath.ToSlash(rel)] = "missing"
				case st.Mode()&fs.ModeSymlink != 0:
					got[filepath.ToSlash(rel)] = "link"
					if textOf(t, filepath.Join(p, "SKILL.md")) != skillText("pdf", "p") {
						t.Errorf("link %s does not lead to the skill", rel)
					}
				default:
					got[filepath.ToSlash(rel)] = "dir"
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(b.root, tt.lock)); err != nil {
				t.Errorf("lock: %v", err)
			}
		})
	}
}

// TestInstallLockRoundTrip installs from a git repository and a folder,
// wipes the installed skills, and restores byte-identical files from the
// lock alone, offline (the repository is gone; the commits are in the
// cache); a second run changes nothing.
func TestInstallLockRoundTrip(t *testing.T) {
	b := newInstallBox(t)
	g, _ := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{
		"skills/pdf/SKILL.md":       skillText("pdf", "p"),
		"skills/pdf/scripts/run.sh": "#!/bin/sh\necho run\n",
		"skills/pdf/refs/guide.md":  "guide",
		"skills/docx/SKILL.md":      skillText("docx", "d"),
		"skills/docx/shared.md":     "-> ../../shared/common.md",
		"shared/common.md":          "common text",
		"skills/docx/escape.md":     "-> ../../../../outside.md",
	})
	os.Chmod(filepath.Join(g.work, "skills/pdf/scripts/run.sh"), 0o755)
	gitRun(t, g.work, "add", "-A")
	gitRun(t, g.work, "commit", "-q", "-m", "exec bit")
	gitRun(t, g.work, "push", "-q", "origin", "HEAD:main")
	testfs.Write(t, b.root, map[string]string{"local/xlsx/SKILL.md": skillText("xlsx", "x")})
	mustOK(t, b.run(t, "install", g.url, "--all"))
	mustOK(t, b.run(t, "install", filepath.Join(b.root, "local"), "--agent", "all"))
	before := map[string]map[string]string{}
	for _, d := range []string{".agents", ".claude", ".cursor"} {
		before[d] = treeSnapshot(t, filepath.Join(b.proj, d))
	}
	if _, ok := before[".agents"]["skills/docx/shared.md"]; !ok {
		t.Errorf("a symlink inside the source was not installed as its file: %v", before[".agents"])
	}
	if _, ok := before[".agents"]["skills/docx/escape.md"]; ok {
		t.Error("a symlink out of the source was followed")
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	for _, d := range []string{".agents", ".claude", ".cursor"} {
		os.RemoveAll(filepath.Join(b.proj, d))
	}
	os.RemoveAll(g.bare)
	rep := b.jsonRun(t, 0, "install")
	if diff := cmp.Diff([]string{"docx installed", "pdf installed", "xlsx installed"}, rep.statuses()); diff != "" {
		t.Fatalf("restore results (-want +got):\n%s", diff)
	}
	for _, d := range []string{".agents", ".claude", ".cursor"} {
		if diff := cmp.Diff(before[d], treeSnapshot(t, filepath.Join(b.proj, d))); diff != "" {
			t.Errorf("%s differs after the restore (-before +after):\n%s", d, diff)
		}
	}
	if got := textOf(t, filepath.Join(b.proj, "ccski.lock")); got != lock {
		t.Errorf("the restore changed the lock:\n%s\nwas:\n%s", got, lock)
	}
	rep = b.jsonRun(t, 0, "install")
	if diff := cmp.Diff([]string{"docx unchanged", "pdf unchanged", "xlsx unchanged"}, rep.statuses()); diff != "" {
		t.Errorf("second restore (-want +got):\n%s", diff)
	}
}

// TestInstallFrozen passes when the lock, the sources (a folder inside
// the project) and the files on disk agree, installs what is missing, and fails (exit 1, writing
// nothing) on a file changed on disk or a source that no longer matches.
func TestInstallFrozen(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.proj, map[string]string{"vendor/pdf/SKILL.md": skillText("pdf", "p"), "vendor/docx/SKILL.md": skillText("docx", "d")})
	if r := b.run(t, "install", "--frozen"); r.code != 1 || !strings.Contains(r.stderr, "no lock at") {
		t.Errorf("--frozen without a lock:\n%s", r)
	}
	mustOK(t, b.run(t, "install", "vendor", "--all"))
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	rep := b.jsonRun(t, 0, "install", "--frozen")
	if diff := cmp.Diff([]string{"docx unchanged", "pdf unchanged"}, rep.statuses()); diff != "" {
		t.Errorf("frozen on a clean tree (-want +got):\n%s", diff)
	}
	os.RemoveAll(filepath.Join(b.proj, ".agents/skills/docx"))
	rep = b.jsonRun(t, 0, "install", "--frozen")
	if diff := cmp.Diff([]string{"docx installed", "pdf unchanged"}, rep.statuses()); diff != "" {
		t.Errorf("frozen with a skill missing (-want +got):\n%s", diff)
	}
	edited := filepath.Join(b.proj, ".agents/skills/pdf/SKILL.md")
	os.WriteFile(edited, []byte("edited"), 0o644)
	rep = b.jsonRun(t, 1, "install", "--frozen")
	if diff := cmp.Diff([]string{"docx unchanged", "pdf failed"}, rep.statuses()); diff != "" {
		t.Errorf("frozen with a changed file (-want +got):\n%s", diff)
	}
	if !strings.Contains(rep.Results[1].Message, "differ from the lock (~SKILL.md)") {
		t.Errorf("message %q does not name the changed file", rep.Results[1].Message)
	}
	if textOf(t, edited) != "edited" {
		t.Error("--frozen overwrote the changed file")
	}
	// Without --frozen the edit is kept, and said so.
	rep = b.jsonRun(t, 0, "install")
	if diff := cmp.Diff([]string{"docx unchanged", "pdf skipped"}, rep.statuses()); diff != "" {
		t.Errorf("restore with a changed file (-want +got):\n%s", diff)
	}
	mustOK(t, b.run(t, "install", "--force"))
	if textOf(t, edited) != skillText("pdf", "p") {
		t.Error("--force did not restore the locked file")
	}
	// The source changed: the lock no longer matches it.
	os.WriteFile(filepath.Join(b.proj, "vendor/docx/SKILL.md"), []byte(skillText("docx", "changed upstream")), 0o644)
	rep = b.jsonRun(t, 1, "install", "--frozen")
	if diff := cmp.Diff([]string{"docx failed", "pdf unchanged"}, rep.statuses()); diff != "" {
		t.Errorf("frozen with a changed source (-want +got):\n%s", diff)
	}
	if !strings.Contains(rep.Results[0].Message, "no longer matches the lock") {
		t.Errorf("message %q", rep.Results[0].Message)
	}
	if got := textOf(t, filepath.Join(b.proj, "ccski.lock")); got != lock {
		t.Error("--frozen wrote the lock")
	}
}

// TestUpdate moves a skill to its source's newest commit, showing the
// files that change; a skill edited on disk is skipped (its edits kept)
// unless --force; @ref moves to another ref.
func TestUpdate(t *testing.T) {
	b := newInstallBox(t)
	g, shas := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{
		"skills/pdf/SKILL.md": skillText("pdf", "v1"), "skills/pdf/old.md": "old",
		"skills/docx/SKILL.md": skillText("docx", "v1")})
	gitRun(t, g.work, "tag", "v1")
	gitRun(t, g.work, "push", "-q", "origin", "v1")
	mustOK(t, b.run(t, "install", g.url, "--all"))
	rep := b.jsonRun(t, 0, "update")
	if diff := cmp.Diff([]string{"docx unchanged", "pdf unchanged"}, rep.statuses()); diff != "" {
		t.Errorf("update with nothing new (-want +got):\n%s", diff)
	}
	second := g.commit(t, map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v2"), "skills/pdf/new.md": "new",
		"skills/docx/SKILL.md": skillText("docx", "v2")})
	os.Remove(filepath.Join(g.work, "skills/pdf/old.md"))
	gitRun(t, g.work, "add", "-A")
	gitRun(t, g.work, "commit", "-q", "-m", "drop old")
	gitRun(t, g.work, "push", "-q", "origin", "HEAD:main")
	third := gitRun(t, g.work, "rev-parse", "HEAD")
	_ = second
	// An edit on disk: docx is skipped and keeps it.
	docx := filepath.Join(b.proj, ".agents/skills/docx/SKILL.md")
	os.WriteFile(docx, []byte("my edit"), 0o644)
	dry := b.jsonRun(t, 0, "update", "--dry-run")
	if !dry.DryRun || textOf(t, filepath.Join(b.proj, ".agents/skills/pdf/SKILL.md")) != skillText("pdf", "v1") {
		t.Error("--dry-run wrote")
	}
	rep = b.jsonRun(t, 0, "update")
	if diff := cmp.Diff([]string{"docx skipped", "pdf updated"}, rep.statuses()); diff != "" {
		t.Fatalf("update (-want +got):\n%s", diff)
	}
	pdf := rep.Results[1]
	if pdf.From != shas[0] || pdf.Commit != third || pdf.Changes == nil ||
		!cmp.Equal(pdf.Changes.Added, []string{"new.md"}) || !cmp.Equal(pdf.Changes.Changed, []string{"SKILL.md"}) ||
		!cmp.Equal(pdf.Changes.Removed, []string{"old.md"}) {
		t.Errorf("pdf result %+v, want %s..%s with +new.md ~SKILL.md -old.md", pdf, shas[0], third)
	}
	if !strings.Contains(rep.Results[0].Message, "modified on disk") || textOf(t, docx) != "my edit" {
		t.Errorf("docx: %q; the edit must be kept", rep.Results[0].Message)
	}
	if _, err := os.Stat(filepath.Join(b.proj, ".agents/skills/pdf/old.md")); err == nil {
		t.Error("a file the new commit dropped is still installed")
	}
	rep = b.jsonRun(t, 0, "update", "docx", "--force")
	if diff := cmp.Diff([]string{"docx updated"}, rep.statuses()); diff != "" {
		t.Errorf("update --force (-want +got):\n%s", diff)
	}
	if textOf(t, docx) != skillText("docx", "v2") {
		t.Error("--force did not overwrite the edit")
	}
	// Back to the tag: the lock follows the ref.
	rep = b.jsonRun(t, 0, "update", "pdf@v1")
	if rep.Results[0].Status != "updated" || rep.Results[0].Commit != shas[0] {
		t.Errorf("update pdf@v1: %+v", rep.Results[0])
	}
	if !strings.Contains(textOf(t, filepath.Join(b.proj, "ccski.lock")), `"ref": "v1"`) {
		t.Error("the lock does not record ref v1")
	}
	if r := b.run(t, "update", "nosuch"); r.code != 1 || !strings.Contains(r.stderr, "not installed by ccski") {
		t.Errorf("update of a skill ccski did not install:\n%s", r)
	}
}

// TestRemove deletes an installed skill with its links and its lock
// entry; a skill ccski did not install is refused, pointing at disable.
func TestRemove(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p"), "src/docx/SKILL.md": skillText("docx", "d")})
	testfs.Write(t, b.proj, map[string]string{".claude/skills/own/SKILL.md": skillText("own", "mine")})
	mustOK(t, b.run(t, "install", filepath.Join(b.root, "src"), "--all"))
	r := b.run(t, "remove", "own")
	if r.code != 1 || !strings.Contains(r.stderr, "ccski disable own") {
		t.Errorf("remove of a skill ccski did not install:\n%s", r)
	}
	if _, err := os.Stat(filepath.Join(b.proj, ".claude/skills/own/SKILL.md")); err != nil {
		t.Error("remove touched a skill it did not install")
	}
	rep := b.jsonRun(t, 0, "remove", "pdf")
	if diff := cmp.Diff([]string{"pdf removed"}, rep.statuses()); diff != "" {
		t.Errorf("remove (-want +got):\n%s", diff)
	}
	for _, p := range []string{".agents/skills/pdf", ".claude/skills/pdf"} {
		if _, err := os.Lstat(filepath.Join(b.proj, p)); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	if strings.Contains(lock, `"pdf"`) || !strings.Contains(lock, `"docx"`) {
		t.Errorf("lock after remove:\n%s", lock)
	}
}

// TestInterruptedInstall kills ccski after it staged an update and before
// it moved anything: the installed skill, its link and the lock are as
// they were, and the next run cleans up and finishes.
func TestInterruptedInstall(t *testing.T) {
	b := newInstallBox(t)
	g, _ := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")})
	mustOK(t, b.run(t, "install", g.url))
	g.commit(t, map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v2")})
	before := treeSnapshot(t, b.proj)
	hold := filepath.Join(b.root, "hold")
	cmd, done, _ := b.startHeld(t, "CCSKITEST_INSTALL_HOLD", hold, "update")
	cmd.Process.Kill() // SIGKILL: no cleanup runs
	<-done
	after := treeSnapshot(t, b.proj)
	var stages []string
	for p := range after {
		if strings.Contains(p, ".ccski-stage-") {
			stages = append(stages, p)
			delete(after, p)
		}
	}
	if len(stages) == 0 {
		t.Error("no staging folder: the kill did not happen mid-install")
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the interrupted update changed the installed state (-before +after):\n%s", diff)
	}
	os.Remove(hold)
	rep := b.jsonRun(t, 0, "update")
	if diff := cmp.Diff([]string{"pdf updated"}, rep.statuses()); diff != "" {
		t.Errorf("update after the interruption (-want +got):\n%s", diff)
	}
	for p := range treeSnapshot(t, b.proj) {
		if strings.Contains(p, ".ccski-") {
			t.Errorf("%s was left behind", p)
		}
	}
	if textOf(t, filepath.Join(b.proj, ".claude/skills/pdf/SKILL.md")) != skillText("pdf", "v2") {
		t.Error("the link does not show the update")
	}
}

// TestListShowsInstalledSource: ccski list --json names the source and
// commit of a skill ccski installed, and nothing for others.
func TestListShowsInstalledSource(t *testing.T) {
	b := newInstallBox(t)
	g, shas := newGitSource(t, filepath.Join(b.root, "git"), map[string]string{"pdf/SKILL.md": skillText("pdf", "p")})
	testfs.Write(t, b.proj, map[string]string{".claude/skills/own/SKILL.md": skillText("own", "mine")})
	mustOK(t, b.run(t, "install", g.url, "--agent", "claude"))
	r := b.run(t, "list", "--json")
	mustOK(t, r)
	var recs []struct {
		Name      string
		Installed *struct{ Source, Commit, Scope string }
	}
	decodeOnly(t, r, &recs)
	got := map[string]string{}
	for _, rec := range recs {
		if rec.Installed != nil {
			got[rec.Name] = rec.Installed.Source + " " + rec.Installed.Commit + " " + rec.Installed.Scope
		} else {
			got[rec.Name] = ""
		}
	}
	want := map[string]string{"pdf": g.url + " " + shas[0] + " project", "own": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}
