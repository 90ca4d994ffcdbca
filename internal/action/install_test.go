package action

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/testfs"
)

// statuses lists "skill status" per result of rep.
func statuses(rep *Report) []string {
	var out []string
	for _, r := range rep.Results {
		out = append(out, r.Skill+" "+string(r.Status))
	}
	return out
}

// exists reports whether path is there (a link counts, whatever it leads
// to).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// TestInstallUpdateRemove runs a skill's life through the actions alone:
// install from a folder into the project, update after the source
// changed, remove; each report counts what it did and the lock follows.
func TestInstallUpdateRemove(t *testing.T) {
	b := newBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": skillText("pdf", "v1"), "docx/SKILL.md": skillText("docx", "v1")})
	ctx := context.Background()
	c := b.config(t)
	lock := filepath.Join(b.proj, install.LockName)

	dry, err := Install(ctx, c, InstallRequest{Run: Run{Scope: "project", DryRun: true}, Source: src, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if !dry.DryRun || dry.Counts["installed"] != 2 || exists(lock) || exists(filepath.Join(b.proj, ".agents")) {
		t.Fatalf("a dry run reported %v and must write nothing (lock there: %v)", dry.Counts, exists(lock))
	}

	rep, err := Install(ctx, c, InstallRequest{Run: Run{Scope: "project"}, Source: src, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"docx installed", "pdf installed"}, statuses(rep)); diff != "" {
		t.Errorf("install (-want +got):\n%s", diff)
	}
	if rep.Scope != "project" || rep.Lock != lock || rep.Source == "" || rep.Home != b.home || rep.Failed() != 0 {
		t.Errorf("report %+v: want scope project, lock %s, the source, home %s and no failure", rep, lock, b.home)
	}
	for _, p := range []string{".agents/skills/pdf/SKILL.md", ".claude/skills/pdf"} {
		if !exists(filepath.Join(b.proj, p)) {
			t.Errorf("install did not put %s in place", p)
		}
	}
	if got := lockNames(t, lock); !cmp.Equal(got, []string{"docx", "pdf"}) {
		t.Errorf("the lock names %v, want docx and pdf", got)
	}

	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": skillText("pdf", "v2"), "pdf/new.md": "new"})
	rep, err = Update(ctx, c, UpdateRequest{Run: Run{Scope: "project"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"docx unchanged", "pdf updated"}, statuses(rep)); diff != "" {
		t.Errorf("update (-want +got):\n%s", diff)
	}
	if ch := rep.Results[1].Changes; ch == nil || !cmp.Equal(ch.Added, []string{"new.md"}) || !cmp.Equal(ch.Changed, []string{"SKILL.md"}) {
		t.Errorf("pdf changes %+v, want +new.md ~SKILL.md", ch)
	}
	if data, _ := os.ReadFile(filepath.Join(b.proj, ".agents/skills/pdf/SKILL.md")); string(data) != skillText("pdf", "v2") {
		t.Errorf("the update did not reach the installed copy: %q", data)
	}

	rep, err = Remove(ctx, c, RemoveRequest{Run: Run{Scope: "project"}, Skills: []string{"pdf"}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pdf removed"}, statuses(rep)); diff != "" || rep.Counts["removed"] != 1 {
		t.Errorf("remove %v (-want +got):\n%s", rep.Counts, diff)
	}
	for _, p := range []string{".agents/skills/pdf", ".claude/skills/pdf"} {
		if exists(filepath.Join(b.proj, p)) {
			t.Errorf("%s is still there after remove", p)
		}
	}
	if got := lockNames(t, lock); !cmp.Equal(got, []string{"docx"}) {
		t.Errorf("after remove the lock names %v, want docx", got)
	}
}

// lockNames lists the skills the lock file names.
func lockNames(t *testing.T, file string) []string {
	t.Helper()
	l, err := install.ReadLock(file, filepath.Dir(file), true)
	if err != nil {
		t.Fatal(err)
	}
	return l.Names()
}

// TestInstallUserScope installs in the home folder and records in ccski's
// user config folder, as the Process's variables name it
// (XDG_CONFIG_HOME), not the test process's.
func TestInstallUserScope(t *testing.T) {
	b := newBox(t)
	b.vars["XDG_CONFIG_HOME"] = filepath.Join(b.root, "xdg")
	testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p")})
	rep, err := Install(context.Background(), b.config(t), InstallRequest{Run: Run{Scope: "user"},
		Source: filepath.Join(b.root, "src")})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(b.root, "xdg", "ccski", install.LockName); rep.Lock != want || !exists(want) {
		t.Errorf("lock %s (there: %v), want %s", rep.Lock, exists(rep.Lock), want)
	}
	if len(rep.Results) != 1 || len(rep.Results[0].Paths) == 0 || !strings.HasPrefix(rep.Results[0].Paths[0], b.home) {
		t.Errorf("results %+v: want pdf installed under %s", rep.Results, b.home)
	}
}

// TestInstallPick: the picker sees the candidates the filters leave, and
// what it returns is installed; when it returns nothing, nothing is
// written and the report says so.
func TestInstallPick(t *testing.T) {
	b := newBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": skillText("pdf", "p"), "docx/SKILL.md": skillText("docx", "d"),
		"xlsx/SKILL.md": skillText("xlsx", "x")})
	c := b.config(t)
	var offered []string
	pick := func(names ...string) func(context.Context, string, []install.Candidate) ([]string, error) {
		return func(_ context.Context, _ string, cands []install.Candidate) ([]string, error) {
			offered = nil
			for _, c := range cands {
				offered = append(offered, c.Name)
			}
			return names, nil
		}
	}
	rep, err := Install(context.Background(), c, InstallRequest{Run: Run{Scope: "project"}, Source: src,
		Exclude: []string{"xlsx"}, Pick: pick()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.NonePicked || len(rep.Results) != 0 || exists(filepath.Join(b.proj, install.LockName)) {
		t.Errorf("nothing picked: report %+v; the lock must not be written", rep)
	}
	if !cmp.Equal(offered, []string{"docx", "pdf"}) {
		t.Errorf("the picker was offered %v, want docx and pdf (xlsx excluded)", offered)
	}
	rep, err = Install(context.Background(), c, InstallRequest{Run: Run{Scope: "project"}, Source: src, Pick: pick("docx")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"docx installed"}, statuses(rep)); diff != "" || rep.NonePicked {
		t.Errorf("picked docx (-want +got):\n%s", diff)
	}
}

// TestInstallErrors: a request the action cannot take is a UsageError
// (exit 2); one that fails on the machine is another error (exit 1). The
// text names the value and what to do.
func TestInstallErrors(t *testing.T) {
	b := newBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, src, map[string]string{"pdf/SKILL.md": skillText("pdf", "p"), "docx/SKILL.md": skillText("docx", "d")})
	c := b.config(t)
	ctx := context.Background()
	run := Run{Scope: "project"}
	tests := []struct {
		name  string
		do    func() error
		usage bool
		want  string
	}{
		{"unknown scope", func() error {
			_, err := Install(ctx, c, InstallRequest{Run: Run{Scope: "global"}, Source: src, All: true})
			return err
		}, true, `invalid --scope "global": use project or user`},
		{"no choice among several skills", func() error {
			_, err := Install(ctx, c, InstallRequest{Run: run, Source: src})
			return err
		}, true, "docx"},
		{"a source that is not there", func() error {
			_, err := Install(ctx, c, InstallRequest{Run: run, Source: filepath.Join(b.root, "nowhere")})
			return err
		}, true, "nowhere"},
		{"frozen without a lock", func() error {
			_, err := Install(ctx, c, InstallRequest{Run: run, Frozen: true})
			return err
		}, false, "no lock at " + filepath.Join(b.proj, install.LockName)},
		{"update of a skill ccski did not install", func() error {
			_, err := Update(ctx, c, UpdateRequest{Run: run, Skills: []string{"own@v1"}})
			return err
		}, false, "to turn the skill off, use `ccski disable own`"},
		{"remove of a skill ccski did not install", func() error {
			_, err := Remove(ctx, c, RemoveRequest{Run: run, Skills: []string{"own"}})
			return err
		}, false, "own was not installed by ccski"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.do()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error holding %q", err, tt.want)
			}
			if IsUsage(err) != tt.usage {
				t.Errorf("IsUsage = %v, want %v: %v", IsUsage(err), tt.usage, err)
			}
		})
	}
	if exists(filepath.Join(b.proj, install.LockName)) {
		t.Error("a refused request wrote the lock")
	}
}

// TestInstallOutsideAProject: the project scope needs a project; the
// error says how to install for oneself instead.
func TestInstallOutsideAProject(t *testing.T) {
	b := newBox(t)
	if err := os.Remove(filepath.Join(b.proj, ".git")); err != nil {
		t.Fatal(err)
	}
	_, err := Remove(context.Background(), b.config(t), RemoveRequest{Run: Run{Scope: "project"}, Skills: []string{"pdf"}})
	var ue *UsageError
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "use --scope user") {
		t.Errorf("got %v, want a failure (not a usage error) pointing at --scope user", err)
	}
}
