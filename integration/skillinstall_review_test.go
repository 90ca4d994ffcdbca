package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// This file holds the regression tests of the review of ccski install:
// writes that leave the project, skills that replace each other, runs at
// the same time, and interrupted runs.

// startHeld starts ccski in the project with the hold variable name set
// to hold (which it creates) and waits until ccski waits there.
func (b *installBox) startHeld(t *testing.T, variable, hold string, args ...string) (*exec.Cmd, chan error, *strings.Builder) {
	t.Helper()
	os.WriteFile(hold, nil, 0o644)
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = b.proj, append(slices.Clone(b.vars), variable+"="+hold)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(hold + ".held"); err == nil {
			return cmd, done, out
		}
		select {
		case err := <-done:
			t.Fatalf("ccski ended (%v) before it reached the hold:\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("ccski never reached the hold")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestInstallSymlinkOutOfProject: a project whose .claude is a symlink
// into the user's home (as a hostile clone could ship it) gets nothing
// written through it, from a lock or from a plain install; at user scope
// a symlinked ~/.claude (a dotfiles setup) is used as before.
func TestInstallSymlinkOutOfProject(t *testing.T) {
	payload := skillText("evil", "e")
	sum := sha256.Sum256([]byte(payload))
	lock := fmt.Sprintf(`{"version": 1, "skills": [{"name": "evil", "source": {"kind": "dir", "dir": "payload"}, "path": ".",
		"targets": [{"agent": "claude", "dir": ".claude/skills"}],
		"files": [{"path": "SKILL.md", "size": %d, "digest": "sha256:%s"}]}]}`, len(payload), hex.EncodeToString(sum[:]))
	tests := []struct {
		name  string
		files map[string]string
		args  []string
	}{
		{"from the lock", map[string]string{"ccski.lock": lock, "payload/SKILL.md": skillText("evil", "e")}, []string{"install"}},
		{"plain install", map[string]string{"payload/SKILL.md": skillText("evil", "e")}, []string{"install", "payload"}},
		{"plain install, claude only", map[string]string{"payload/SKILL.md": skillText("evil", "e")},
			[]string{"install", "payload", "--agent", "claude"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInstallBox(t)
			testfs.Write(t, b.root, map[string]string{"home/.claude/skills/": ""})
			testfs.Write(t, b.proj, tt.files)
			if err := os.Symlink("../home/.claude", filepath.Join(b.proj, ".claude")); err != nil {
				t.Fatal(err)
			}
			r := b.run(t, tt.args...)
			if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "outside the project") {
				t.Errorf("want a refusal naming the symlink:\n%s", r)
			}
			if ents, _ := os.ReadDir(filepath.Join(b.home, ".claude/skills")); len(ents) != 0 {
				t.Errorf("ccski wrote into the home folder through the project's symlink: %v", ents)
			}
		})
	}
	// The user scope follows a symlinked ~/.claude.
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{"dotfiles/claude/skills/": "", "src/pdf/SKILL.md": skillText("pdf", "p")})
	if err := os.Symlink("../dotfiles/claude", filepath.Join(b.home, ".claude")); err != nil {
		t.Fatal(err)
	}
	mustOK(t, b.run(t, "install", filepath.Join(b.root, "src"), "--scope", "user", "--agent", "claude"))
	if textOf(t, filepath.Join(b.root, "dotfiles/claude/skills/pdf/SKILL.md")) != skillText("pdf", "p") {
		t.Error("the user scope did not install through the symlinked ~/.claude")
	}
}

// TestUpdateRenamedSkill: a skill whose source now names it like another
// installed skill is not installed over that one.
func TestUpdateRenamedSkill(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{"s1/one/SKILL.md": skillText("one", "from s1"), "s2/two/SKILL.md": skillText("two", "from s2")})
	mustOK(t, b.run(t, "install", filepath.Join(b.root, "s1/one")))
	mustOK(t, b.run(t, "install", filepath.Join(b.root, "s2/two")))
	testfs.Write(t, b.root, map[string]string{"s1/one/SKILL.md": skillText("two", "renamed in s1")})
	rep := b.jsonRun(t, 1, "update", "one")
	if diff := cmp.Diff([]string{"one failed"}, rep.statuses()); diff != "" || !strings.Contains(rep.Results[0].Message, "now named two") {
		t.Errorf("update of a renamed skill (-want +got):\n%s\n%+v", diff, rep.Results)
	}
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/two/SKILL.md")); got != skillText("two", "from s2") {
		t.Errorf("skill two was overwritten by s1: %q", got)
	}
	os.RemoveAll(filepath.Join(b.proj, ".agents/skills/one"))
	rep = b.jsonRun(t, 1, "install")
	if got := textOf(t, filepath.Join(b.proj, ".agents/skills/two/SKILL.md")); got != skillText("two", "from s2") {
		t.Errorf("restoring one overwrote skill two: %q (%v)", got, rep.statuses())
	}
}

// TestInstallConcurrent: a second install while the first one is staged
// waits for it, and the lock names the skills of both.
func TestInstallConcurrent(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{"a/pdf/SKILL.md": skillText("pdf", "p"), "b/docx/SKILL.md": skillText("docx", "d")})
	hold := filepath.Join(b.root, "hold")
	first, firstDone, firstOut := b.startHeld(t, "CCSKITEST_INSTALL_HOLD", hold, "install", filepath.Join(b.root, "a"))
	defer first.Process.Kill()
	second := exec.Command(binary, "install", filepath.Join(b.root, "b"))
	second.Dir, second.Env = b.proj, b.vars
	var secondOut lockedBuffer
	second.Stdout, second.Stderr = &secondOut, &secondOut
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	secondDone := make(chan error, 1)
	go func() { secondDone <- second.Wait() }()
	// Either the second run says it waits, or (without the run lock) it
	// ends while the first is held.
	var secondErr error
	ended := false
	for deadline := time.Now().Add(time.Minute); !ended && !strings.Contains(secondOut.String(), "waiting for another ccski run"); {
		select {
		case secondErr = <-secondDone:
			ended = true
		default:
		}
		if time.Now().After(deadline) {
			second.Process.Kill()
			t.Fatal("the second install neither waited nor ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.Remove(hold)
	if err := <-firstDone; err != nil {
		t.Errorf("first install: %v\n%s", err, firstOut.String())
	}
	if !ended {
		secondErr = <-secondDone
	}
	if secondErr != nil {
		t.Errorf("second install: %v\n%s", secondErr, secondOut.String())
	}
	lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
	for _, name := range []string{`"pdf"`, `"docx"`} {
		if !strings.Contains(lock, name) {
			t.Errorf("the lock lost %s:\n%s", name, lock)
		}
	}
	for _, p := range []string{".agents/skills/pdf/SKILL.md", ".agents/skills/docx/SKILL.md"} {
		if _, err := os.Stat(filepath.Join(b.proj, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestInterruptedInstallAfterSwap kills ccski after the first of two
// skills is in place: the lock already names it, and the next run
// finishes its change (its link is made), takes it as ccski's own and
// installs the other.
func TestInterruptedInstallAfterSwap(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{"src/a/SKILL.md": skillText("a", "a"), "src/b/SKILL.md": skillText("b", "b")})
	hold := filepath.Join(b.root, "hold")
	cmd, done, _ := b.startHeld(t, "CCSKITEST_INSTALL_HOLD_SWAPPED", hold, "install", filepath.Join(b.root, "src"), "--all")
	cmd.Process.Kill()
	<-done
	if lock, err := os.ReadFile(filepath.Join(b.proj, "ccski.lock")); err != nil || !strings.Contains(string(lock), `"name": "a"`) {
		t.Fatalf("after the kill the lock does not name the installed skill a (%v):\n%s", err, lock)
	}
	os.Remove(hold)
	rep := b.jsonRun(t, 0, "install", filepath.Join(b.root, "src"), "--all")
	if diff := cmp.Diff([]string{"a unchanged", "b installed"}, rep.statuses()); diff != "" {
		t.Errorf("install after the kill (-want +got):\n%s", diff)
	}
	if textOf(t, filepath.Join(b.proj, ".claude/skills/a/SKILL.md")) != skillText("a", "a") {
		t.Error("the link of a was not made")
	}
}

// TestInstallRefusals: inputs ccski install must refuse before writing:
// --dir outside the project, a lock whose git URL would run a command, a
// URL with a password, --force with --frozen, a git entry without its
// commit under --frozen, and the project scope outside any project.
func TestInstallRefusals(t *testing.T) {
	gitLock := func(url, commit string) string {
		return `{"version": 1, "skills": [{"name": "x", "source": {"kind": "git", "url": "` + url + `"},` + commit +
			` "path": ".", "targets": [{"dir": ".agents/skills"}], "files": []}]}`
	}
	tests := []struct {
		name     string
		files    map[string]string // in the project
		dir      string            // where ccski runs, below the box ("" for the project)
		args     []string
		code     int
		want     string
		notInOut string
	}{
		{"dir outside the project", nil, "", []string{"install", "../src", "--dir", "../elsewhere"}, 2, "outside the project", ""},
		{"ext URL in the lock", map[string]string{"ccski.lock": gitLock("ext::sh -c touch% ../pwned", "")}, "", []string{"install"}, 1,
			"is not one ccski fetches", ""},
		{"password in the URL", nil, "", []string{"install", "https://user:s3cret@example.invalid/r.git"}, 2,
			"credential helper", "s3cret"},
		{"frozen and force", nil, "", []string{"install", "--frozen", "--force"}, 2, "give one", ""},
		{"frozen git entry without commit", map[string]string{"ccski.lock": gitLock("https://example.invalid/r.git", "")}, "",
			[]string{"install", "--frozen"}, 1, "records no commit", ""},
		{"no project", nil, "loose", []string{"install", "../src"}, 1, "--scope user", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInstallBox(t)
			testfs.Write(t, b.root, map[string]string{"src/pdf/SKILL.md": skillText("pdf", "p"), "loose/": ""})
			testfs.Write(t, b.proj, tt.files)
			vars := append(slices.Clone(b.vars), "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=always")
			dir := b.proj
			if tt.dir != "" {
				dir = filepath.Join(b.root, tt.dir)
			}
			r := runBinary(t, dir, vars, tt.args...)
			if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.want) {
				t.Errorf("want exit %d and %q:\n%s", tt.code, tt.want, r)
			}
			if tt.notInOut != "" && strings.Contains(r.stdout+r.stderr, tt.notInOut) {
				t.Errorf("the output shows %q:\n%s", tt.notInOut, r)
			}
			for _, p := range []string{"pwned", "proj/pwned", "elsewhere", "loose/.agents", "loose/ccski.lock"} {
				if _, err := os.Lstat(filepath.Join(b.root, p)); err == nil {
					t.Errorf("%s was written", p)
				}
			}
		})
	}
}
