package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/providers"
)

// fixture is a project with a source folder of skills.
type fixture struct {
	base, src string
	layout    Layout
}

func newFixture(t testing.TB, files map[string]string) fixture {
	t.Helper()
	base := testfs.TempDir(t)
	all := map[string]string{"proj/.git/": "", "home/": ""}
	for k, v := range files {
		all["src/"+k] = v
	}
	testfs.Write(t, base, all)
	proj := filepath.Join(base, "proj")
	env := providers.Env{UserDir: filepath.Join(base, "home")}
	layout := Layout{Scope: ScopeProject, Base: proj, Env: env, LockFile: filepath.Join(proj, LockName)}
	journal, err := JournalFile(filepath.Join(base, "home/.local/state/ccski"), layout.LockFile)
	if err != nil {
		t.Fatal(err)
	}
	layout.Journal = journal
	return fixture{base: base, src: filepath.Join(base, "src"), layout: layout}
}

// installer is an Installer for the fixture's project.
func (f fixture) installer() *Installer {
	return &Installer{Ctx: context.Background(), Layout: f.layout, Lock: &Lock{}}
}

// offer materialises src with x and discovers what it offers, failing t
// on an error.
func offer(t *testing.T, x *Installer, src Source) (root, commit string, o *Offer) {
	t.Helper()
	root, commit, err := x.Materialize(src, "")
	if err != nil {
		t.Fatal(err)
	}
	if o, err = Discover(context.Background(), root, ""); err != nil {
		t.Fatal(err)
	}
	return root, commit, o
}

// install installs the named skills of the source with the default
// targets.
func (f fixture) install(t *testing.T, x *Installer, names ...string) []Result {
	t.Helper()
	src := Source{Kind: KindDir, Dir: f.src}
	root, commit, o := offer(t, x, src)
	cands, err := Select("src", o, Selection{Names: names})
	if err != nil {
		t.Fatal(err)
	}
	agents, _ := ParseAgents(nil)
	return x.Install(src, root, commit, cands, Want{Agents: agents})
}

// statuses lists "skill status" per result.
func statuses(rs []Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Skill+" "+string(r.Status))
	}
	return out
}

// TestInstallGuards refuses, before writing anything, a folder ccski did
// not install and a skill that fails the spec profile; --force overrides
// both.
func TestInstallGuards(t *testing.T) {
	f := newFixture(t, map[string]string{
		"pdf/SKILL.md":  skill("pdf"),
		"bad/SKILL.md":  "---\nname: ../evil\ndescription: x\n---\n",
		"mine/SKILL.md": skill("mine"),
	})
	testfs.Write(t, f.layout.Base, map[string]string{".claude/skills/mine/SKILL.md": "hand-made"})
	x := f.installer()
	got := f.install(t, x, "mine", "../evil")
	if diff := cmp.Diff([]string{"mine failed", "../evil failed"}, statuses(got)); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	if !strings.Contains(got[0].Message, "was not installed by ccski") || !strings.Contains(got[1].Message, "cannot be a folder name") {
		t.Errorf("messages: %q, %q", got[0].Message, got[1].Message)
	}
	if data, _ := os.ReadFile(filepath.Join(f.layout.Base, ".claude/skills/mine/SKILL.md")); string(data) != "hand-made" {
		t.Error("the hand-made skill was touched")
	}
	if exists(filepath.Join(f.layout.Base, ".agents/skills/mine")) || x.Changed {
		t.Error("a refused skill was written")
	}
	x.Force = true
	if got := f.install(t, x, "mine"); got[0].Status != StatusInstalled {
		t.Errorf("--force: %+v", got[0])
	}
}

// TestInstallValidates judges each skill by the rules of the agents it is
// for: a skill every agent accepts goes everywhere; one Codex rejects (a
// name over 64 characters) goes to Claude Code alone, and the result says
// why not to the shared folder; one no agent accepts (a SKILL.md over
// Claude Code's 1,000,000 bytes, indented with a tab Codex refuses)
// fails, unless NoValidate, which installs it and still names who rejects
// it. A skill whose profile errors its hosts load it with all the same (a
// link to a missing file) is installed, with those errors as a warning.
// Force does not skip validation.
func TestInstallValidates(t *testing.T) {
	long := strings.Repeat("n", 65)
	f := newFixture(t, map[string]string{
		"pdf/SKILL.md":     "---\nname: Pdf\ndescription: Upper case.\nversion: 1.0.0\n---\n",
		long + "/SKILL.md": "---\nname: " + long + "\ndescription: Long name.\n---\n",
		"broken/SKILL.md":  "---\nname: broken\ndescription: Big.\nmetadata:\n\tk: v\n---\n" + strings.Repeat("A line of the body.\n", 50_001),
		"links/SKILL.md":   "---\nname: links\ndescription: Links a missing file.\n---\nSee [the guide](guide.md).\n",
	})
	x := f.installer()
	x.Force = true
	got := f.install(t, x, "Pdf", long, "broken", "links")
	if diff := cmp.Diff([]string{"Pdf installed", long + " installed", "broken failed", "links installed"}, statuses(got)); diff != "" {
		t.Fatalf("statuses (-want +got):\n%s", diff)
	}
	if len(got[0].Rejected) != 0 || len(got[0].Paths) != 2 {
		t.Errorf("a skill both agents load: %+v", got[0])
	}
	claudeOnly := []string{filepath.Join(f.layout.Base, ".claude/skills", long)}
	if diff := cmp.Diff(claudeOnly, got[1].Paths); diff != "" {
		t.Errorf("paths of a skill Codex rejects (-want +got):\n%s", diff)
	}
	if r := got[1].Rejected; len(r) != 1 || r[0].Agent != "agents" || r[0].Host != "codex" || r[0].Installed ||
		!strings.Contains(strings.Join(r[0].Reasons, " "), "name-too-long") {
		t.Errorf("rejections: %+v", r)
	}
	if exists(filepath.Join(f.layout.Base, ".agents/skills", long)) {
		t.Error("the skill Codex rejects was put in .agents/skills")
	}
	if !strings.Contains(got[2].Message, "Claude Code would reject it") || !strings.Contains(got[2].Message, "too-large") ||
		!strings.Contains(got[2].Message, "--no-validate") {
		t.Errorf("message: %q", got[2].Message)
	}
	if r := got[3]; len(r.Rejected) != 0 || len(r.Paths) != 2 || len(r.Flawed) == 0 || !r.Flawed[0].Loads ||
		!strings.Contains(r.Flawed[0].String(), "loads it, but") {
		t.Errorf("a skill its hosts load with a broken link: %+v", r)
	}
	if exists(filepath.Join(f.layout.Base, ".agents/skills/broken")) || exists(filepath.Join(f.layout.Base, ".claude/skills/broken")) {
		t.Error("the invalid skill was installed")
	}
	x.Force, x.NoValidate = false, true
	got = f.install(t, x, "broken")
	if got[0].Status != StatusInstalled || len(got[0].Rejected) != 2 || !got[0].Rejected[0].Installed {
		t.Errorf("NoValidate: %+v", got[0])
	}
}

// TestInstallLinkFallback copies a skill into Claude's folder where a
// symlink cannot be made, and records a copy.
func TestInstallLinkFallback(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	old := symlink
	symlink = func(string, string) error { return errors.New("no symlinks here") }
	defer func() { symlink = old }()
	x := f.installer()
	if got := f.install(t, x, "pdf"); got[0].Status != StatusInstalled {
		t.Fatalf("%+v", got[0])
	}
	claude := filepath.Join(f.layout.Base, ".claude/skills/pdf")
	st, err := os.Lstat(claude)
	if err != nil || !st.IsDir() {
		t.Fatalf("%s: %v %v, want a folder", claude, st, err)
	}
	if data, _ := os.ReadFile(filepath.Join(claude, "SKILL.md")); string(data) != skill("pdf") {
		t.Errorf("copy holds %q", data)
	}
	e := x.Lock.Find("pdf")
	if e == nil || len(e.Targets) != 2 || e.Targets[1].Link {
		t.Errorf("lock entry %+v, want a copy in the second target", e)
	}
	if d := diskState(*e); !d.ok() {
		t.Errorf("the copy does not match the lock: %+v", d)
	}
}

// TestDryRunWritesNothing stages outside the targets and writes nothing.
func TestDryRunWritesNothing(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	x := f.installer()
	x.DryRun = true
	if got := f.install(t, x, "pdf"); got[0].Status != StatusInstalled {
		t.Fatalf("%+v", got[0])
	}
	if exists(filepath.Join(f.layout.Base, ".agents")) || exists(filepath.Join(f.layout.Base, ".claude")) || x.Changed {
		t.Error("a dry run wrote")
	}
}

// TestSweep deletes abandoned staging folders and keeps the one a running
// install holds; of the copies an older ccski moved aside, it puts back,
// at user scope, only one that the lock records and whose skill is
// missing, and deletes the others: one whose skill is in place, one the
// lock does not name, and one whose files differ from the lock's. At
// project scope, whose lock comes with a clone, it deletes them all.
func TestSweep(t *testing.T) {
	for _, scope := range []Scope{ScopeUser, ScopeProject} {
		t.Run(string(scope), func(t *testing.T) { testSweep(t, scope) })
	}
}

func testSweep(t *testing.T, scope Scope) {
	dir := testfs.TempDir(t)
	testfs.Write(t, dir, map[string]string{
		".ccski-stage-123/pdf/SKILL.md":              "staged",
		".ccski-stage-124/.held":                     "",
		".ccski-old-0123456789abcdef-docx/SKILL.md":  "old docx",
		".ccski-old-fedcba9876543210-xlsx/SKILL.md":  "older xlsx",
		".ccski-old-0000000000000000-ghost/SKILL.md": "never installed",
		".ccski-old-1111111111111111-pptx/SKILL.md":  "not what the lock says",
		"xlsx/SKILL.md":                              "new xlsx",
		"other/SKILL.md":                             "untouched",
	})
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(filepath.Join(dir, ".ccski-stage-123"), old, old)
	held, done, err := newStage(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer done(false)
	testfs.Write(t, held, map[string]string{"pdf/SKILL.md": "in flight"})
	entry := func(name, content string) Entry {
		return Entry{Name: name, Targets: []Target{{Dir: dir}}, Files: []manifest.File{fileOf("SKILL.md", content)}}
	}
	x := &Installer{Layout: Layout{Scope: scope, Base: dir},
		Lock: &Lock{Skills: []Entry{entry("docx", "old docx"), entry("xlsx", "new xlsx"), entry("pptx", "locked pptx")}}}
	x.sweep([]string{dir, filepath.Join(dir, "missing")})
	heldName := filepath.Base(held)
	want := map[string]string{
		"xlsx": "<dir>", "xlsx/SKILL.md": "new xlsx",
		"other": "<dir>", "other/SKILL.md": "untouched",
		heldName: "<dir>", heldName + "/.held": "", heldName + "/pdf": "<dir>", heldName + "/pdf/SKILL.md": "in flight",
	}
	if scope == ScopeUser {
		want["docx"], want["docx/SKILL.md"] = "<dir>", "old docx"
	}
	if diff := cmp.Diff(want, listTree(t, dir)); diff != "" {
		t.Errorf("after sweep (-want +got):\n%s", diff)
	}
}

// fileOf is the lock's record of the file path holding content.
func fileOf(path, content string) manifest.File {
	sum := sha256.Sum256([]byte(content))
	return manifest.File{Path: path, Size: int64(len(content)), Digest: "sha256:" + hex.EncodeToString(sum[:])}
}

// TestRemoveOnlyWhatItInstalled refuses a skill the lock does not name,
// pointing at disable, and deletes an installed one with its link.
func TestRemoveOnlyWhatItInstalled(t *testing.T) {
	f := newFixture(t, map[string]string{"pdf/SKILL.md": skill("pdf")})
	x := f.installer()
	f.install(t, x, "pdf")
	testfs.Write(t, f.layout.Base, map[string]string{".agents/skills/own/SKILL.md": skill("own")})
	r := x.Remove("own")
	if r.Status != StatusFailed || !strings.Contains(r.Message, "ccski disable own") {
		t.Errorf("Remove(own) = %+v", r)
	}
	if !exists(filepath.Join(f.layout.Base, ".agents/skills/own/SKILL.md")) {
		t.Error("a skill ccski did not install was removed")
	}
	if r := x.Remove("pdf"); r.Status != StatusRemoved {
		t.Fatalf("Remove(pdf) = %+v", r)
	}
	for _, p := range []string{".agents/skills/pdf", ".claude/skills/pdf"} {
		if exists(filepath.Join(f.layout.Base, p)) {
			t.Errorf("%s is still there", p)
		}
	}
	if x.Lock.Find("pdf") != nil {
		t.Error("pdf is still in the lock")
	}
}

// TestJudgedAgents checks that the agents reading the shared folder are
// judged as that folder when the copy goes there, and by their own
// rules when they have a folder of their own.
func TestJudgedAgents(t *testing.T) {
	f := newFixture(t, nil)
	for _, tt := range []struct {
		agents, want []string
	}{
		{[]string{"codex"}, []string{"agents"}},
		{[]string{"claude", "gemini"}, []string{"claude", "agents"}},
		{[]string{"agents", "codex", "gemini", "claude"}, []string{"agents", "claude"}},
		{[]string{"gemini"}, []string{"gemini"}},
		{[]string{"claude"}, []string{"claude"}},
	} {
		if got := judgedAgents(tt.agents, f.layout.Targets(tt.agents, "")); !cmp.Equal(tt.want, got) {
			t.Errorf("%v: judged %v, want %v", tt.agents, got, tt.want)
		}
	}
}

// TestInstallAgainRejected fails a reinstall whose new files an agent the
// skill is already installed for rejects: the old copy there would stay.
func TestInstallAgainRejected(t *testing.T) {
	long := strings.Repeat("n", 65)
	f := newFixture(t, map[string]string{long + "/SKILL.md": "---\nname: " + long + "\ndescription: Long name.\n---\n"})
	x := f.installer()
	x.NoValidate = true
	if got := f.install(t, x, long); got[0].Status != StatusInstalled || len(got[0].Paths) != 2 {
		t.Fatalf("--no-validate: %+v", got[0])
	}
	x.NoValidate = false
	testfs.Write(t, f.src, map[string]string{long + "/SKILL.md": "---\nname: " + long + "\ndescription: Changed.\n---\n"})
	got := f.install(t, x, long)
	if got[0].Status != StatusFailed || !strings.Contains(got[0].Message, "Codex would reject it") {
		t.Errorf("reinstall: %+v", got[0])
	}
}
