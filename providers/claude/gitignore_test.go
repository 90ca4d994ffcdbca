package claude

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/providers"
)

// TestIgnoreLocalSettings: a settings.local.json ccski made is ignored
// through the global git ignore file, as Claude Code does: the rule is
// added once, after what the file holds, and not at all when git ignores
// the file already.
func TestIgnoreLocalSettings(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	xdg := filepath.Join(home, "xdg")
	t.Setenv("XDG_CONFIG_HOME", xdg)
	env := providers.Env{UserDir: home, Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	}}
	repo := filepath.Join(home, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	local := filepath.Join(repo, ".claude", "settings.local.json")
	ignore := filepath.Join(xdg, "git", "ignore")

	if msg, err := ignoreLocalSettings(env, filepath.Join(repo, ".claude", "settings.json")); msg != "" || err != nil {
		t.Errorf("settings.json: %q %v, want it left alone", msg, err)
	}
	if _, err := os.Stat(ignore); !os.IsNotExist(err) {
		t.Fatalf("an ignore file for settings.json: %v", err)
	}

	if err := os.MkdirAll(filepath.Dir(ignore), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ignore, []byte("*.swp"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg, err := ignoreLocalSettings(env, local)
	if err != nil || msg == "" {
		t.Fatalf("ignore: %q %v", msg, err)
	}
	if got, _ := os.ReadFile(ignore); string(got) != "*.swp\n"+IgnoreRule+"\n" {
		t.Errorf("ignore file: %q", got)
	}
	cmd := exec.Command("git", "check-ignore", "-q", ".claude/settings.local.json")
	cmd.Dir = repo
	if err := cmd.Run(); err != nil {
		t.Errorf("git does not ignore it: %v", err)
	}
	// Once is enough.
	if msg, err := ignoreLocalSettings(env, local); msg != "" || err != nil {
		t.Errorf("again: %q %v", msg, err)
	}
	if got, _ := os.ReadFile(ignore); string(got) != "*.swp\n"+IgnoreRule+"\n" {
		t.Errorf("ignore file after a second run: %q", got)
	}

	// core.excludesFile names another file, with ~/.
	if out, err := exec.Command("git", "config", "--global", "core.excludesFile", "~/my-ignore").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := GlobalIgnoreFile(env, repo); got != filepath.Join(home, "my-ignore") {
		t.Errorf("GlobalIgnoreFile = %s", got)
	}
}

// gitRepo makes a git repository at dir, with git's configuration read
// from home only.
func gitRepo(t *testing.T, home, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cmd := exec.Command("git", "init", "-q", dir)
	cmd.Env = []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
}

// fakeHome is an Env whose user folder is a fresh home, with no
// environment variables, while this process's HOME is another folder
// whose git configuration names another ignore file: git must read the
// fake home's configuration, never the process's.
func fakeHome(t *testing.T) (env providers.Env, home, processHome string) {
	root := t.TempDir()
	home, processHome = filepath.Join(root, "home"), filepath.Join(root, "process-home")
	for _, d := range []string{home, processHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(processHome, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/process-ignore\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", processHome)
	for _, k := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"} {
		t.Setenv(k, "") // restored when t ends
		os.Unsetenv(k)
	}
	return providers.Env{UserDir: home, Getenv: func(string) string { return "" }}, home, processHome
}

// TestGlobalIgnoreFileReadsEnvHome: the ignore file is the one the git
// configuration of env's home names, not the one of the process's home
// (a test with a fake home never touches the developer's file).
func TestGlobalIgnoreFileReadsEnvHome(t *testing.T) {
	env, home, _ := fakeHome(t)
	gitRepo(t, home, filepath.Join(home, "repo"))
	if got, want := GlobalIgnoreFile(env, filepath.Join(home, "repo")), filepath.Join(home, ".config", "git", "ignore"); got != want {
		t.Errorf("no configuration in the home: GlobalIgnoreFile = %s, want %s", got, want)
	}
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := GlobalIgnoreFile(env, filepath.Join(home, "repo")), filepath.Join(home, "mine"); got != want {
		t.Errorf("GlobalIgnoreFile = %s, want %s", got, want)
	}
}

// TestIgnoreLocalSettingsLinks: an ignore file that is a link into the
// home folder (a dotfiles repository) is written through, the link kept;
// one leading out of the home folder is left alone with a note.
func TestIgnoreLocalSettingsLinks(t *testing.T) {
	env, home, processHome := fakeHome(t)
	repo := filepath.Join(home, "repo")
	gitRepo(t, home, repo)
	local := filepath.Join(repo, ".claude", "settings.local.json")
	ignore := filepath.Join(home, ".config", "git", "ignore")
	if err := os.MkdirAll(filepath.Dir(ignore), 0o755); err != nil {
		t.Fatal(err)
	}

	outside := filepath.Join(t.TempDir(), "ignore")
	if err := os.WriteFile(outside, []byte("*.o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, ignore); err != nil {
		t.Fatal(err)
	}
	msg, err := ignoreLocalSettings(env, local)
	if err != nil || !strings.Contains(msg, "not git-ignored") || !strings.Contains(msg, outside) {
		t.Errorf("link out of home: %q %v, want a note naming %s", msg, err, outside)
	}
	if got, _ := os.ReadFile(outside); string(got) != "*.o\n" {
		t.Errorf("the file outside home was changed: %q", got)
	}

	dotfile := filepath.Join(home, "dotfiles", "gitignore")
	if err := os.MkdirAll(filepath.Dir(dotfile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dotfile, []byte("*.o\r\n# no newline at the end"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ignore); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfile, ignore); err != nil {
		t.Fatal(err)
	}
	if msg, err := ignoreLocalSettings(env, local); err != nil || !strings.Contains(msg, "git-ignored with") {
		t.Fatalf("link inside home: %q %v", msg, err)
	}
	if got, _ := os.ReadFile(dotfile); string(got) != "*.o\r\n# no newline at the end\n"+IgnoreRule+"\n" {
		t.Errorf("dotfile: %q", got)
	}
	if st, err := os.Lstat(ignore); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st, err)
	}
	if st, err := os.Stat(dotfile); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("dotfile mode: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(processHome, "process-ignore")); !os.IsNotExist(err) {
		t.Errorf("the process's home was touched: %v", err)
	}
}

// TestIgnoreLocalSettingsUntrustedRepo: asking git whether the project
// ignores the file runs none of the project's commands, though git
// check-ignore reads the index and so would run core.fsmonitor.
func TestIgnoreLocalSettingsUntrustedRepo(t *testing.T) {
	env, home, _ := fakeHome(t)
	repo := filepath.Join(home, "repo")
	gitRepo(t, home, repo)
	marker := filepath.Join(t.TempDir(), "ran")
	if err := os.WriteFile(filepath.Join(repo, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "a"}, {"config", "core.fsmonitor", "touch " + marker + "; false"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := ignoreLocalSettings(env, filepath.Join(repo, ".claude", "settings.local.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the repository's core.fsmonitor command ran: %v", err)
	}
}
