package claude

import (
	"os"
	"os/exec"
	"path/filepath"
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
