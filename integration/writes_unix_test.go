//go:build unix

package integration

// Writes that fail, and writes that a link would lead out of the folder
// they belong to: a failed write is a failed result, in text and in JSON;
// a settings or instructions file, or a skill folder to rename, that is a
// symlink leading out of its project (or out of the home folder, for a
// user file) is refused, naming the link and where it leads, and its
// target keeps every byte.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runLimited runs ccski as tr.run does, with files it writes capped at
// 8 KiB (RLIMIT_FSIZE, which binds root too): a larger write fails with
// "file too large".
func (tr switchTree) runLimited(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `ulimit -f 16 && exec "$0" "$@"`, binary}, args...)...)
	cmd.Dir, cmd.Env = tr.ws, tr.env()
	return runCmd(t, cmd, args)
}

// TestSwitchFailedWriteIsFailed: a settings file that cannot be written
// is a failed switch, printed and counted as failed with the file and the
// reason, and the command exits 1; the file is as it was.
func TestSwitchFailedWriteIsFailed(t *testing.T) {
	tr := newSwitchTree(t)
	settings := filepath.Join(tr.home, ".claude", "settings.json")
	// 64 KiB of other settings: more than the limit lets ccski write.
	big := `{"padding": "` + strings.Repeat("x", 64<<10) + `"}` + "\n"
	putFile(t, settings, []byte(big))

	r := tr.runLimited(t, "disable", "notes", "--json")
	if r.code != 1 {
		t.Fatalf("want exit 1\n%s", r)
	}
	var out toggleOut
	decodeOnly(t, r, &out)
	if out.Changed != 0 || out.Failed != 1 || len(out.Results) != 1 || out.Results[0].Status != "failed" ||
		!strings.Contains(out.Results[0].Error, settings) || !strings.Contains(out.Results[0].Error, "file too large") {
		t.Errorf("want one failed result naming %s and the reason\n%s", settings, r)
	}

	r = tr.runLimited(t, "disable", "notes")
	if r.code != 1 || strings.Contains(r.stdout, "✓") || !strings.Contains(r.stdout, "✗ claude:notes: ") ||
		!strings.Contains(r.stdout, "0 changed, 0 already so, 0 skipped, 1 failed") || !strings.Contains(r.stdout, settings) {
		t.Errorf("want the switch printed as failed, naming %s\n%s", settings, r)
	}
	if got := readFile(t, settings); string(got) != big {
		t.Error("settings.json changed")
	}
}

// TestSwitchRefusesLinkOutOfFolder: disable does not write a settings
// file that is a symlink leading out of the folder the switch belongs to
// (the project, for a project switch; the user's home folder, for a user
// one); it names the link and where it leads, and the target keeps every
// byte. A link that stays inside the folder is written through: a user's
// settings file kept in a dotfiles repository in the home folder (as GNU
// Stow links it) is the user's own.
func TestSwitchRefusesLinkOutOfFolder(t *testing.T) {
	tests := []struct {
		name, skill, link string // link: "ws:" + relative to the repository, else to home
		// to is where the link leads: "" out of the project and the home
		// folder, "ws" inside the project, "home" into ~/dotfiles.
		to      string
		setting string // what a followed link's target holds afterwards
	}{
		{name: "project settings.local.json linked out of the project", skill: "release", link: "ws:.claude/settings.local.json"},
		{name: "project settings.json linked out of the project", skill: "release --scope project", link: "ws:.claude/settings.json"},
		{name: "project settings.local.json linked into the home folder", skill: "release", link: "ws:.claude/settings.local.json", to: "home"},
		{name: "user settings.json linked out of the home folder", skill: "notes", link: ".claude/settings.json"},
		{name: "Codex config.toml linked out of the home folder", skill: "sheets", link: ".codex/config.toml"},
		{name: "a link inside the project is followed", skill: "release", link: "ws:.claude/settings.local.json", to: "ws",
			setting: `"release": "off"`},
		{name: "user settings.json linked into ~/dotfiles is followed", skill: "notes", link: ".claude/settings.json", to: "home",
			setting: `"notes": "off"`},
		{name: "Codex config.toml linked into ~/dotfiles is followed", skill: "sheets", link: ".codex/config.toml", to: "home",
			setting: `name = "sheets"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newSwitchTree(t)
			link := filepath.Join(tr.home, tt.link)
			if rel, ok := strings.CutPrefix(tt.link, "ws:"); ok {
				link = filepath.Join(tr.ws, rel)
			}
			target := map[string]string{
				"":     filepath.Join(filepath.Dir(tr.ws), "elsewhere", filepath.Base(link)),
				"ws":   filepath.Join(tr.ws, "shared", filepath.Base(link)),
				"home": filepath.Join(tr.home, "dotfiles", filepath.Base(filepath.Dir(link)), filepath.Base(link)),
			}[tt.to]
			content := "{\n  \"theirs\" :  true\n}\n"
			if strings.HasSuffix(link, ".toml") {
				content = "# theirs\nmodel = \"o3\"\n"
			}
			putFile(t, target, []byte(content))
			os.Remove(link)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			r := tr.run(t, append(strings.Fields("disable "+tt.skill), "--json")...)
			var out toggleOut
			decodeOnly(t, r, &out)
			if tt.setting != "" {
				got := string(readFile(t, target))
				if r.code != 0 || out.Changed != 1 || !strings.Contains(got, tt.setting) || !strings.Contains(got, "theirs") {
					t.Errorf("want the link's target written\n%s\n%s", r, got)
				}
				if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link is no longer a link: %v", err)
				}
				return
			}
			if r.code != 1 || out.Changed != 0 || out.Failed != 1 {
				t.Fatalf("want exit 1 and one failed switch\n%s", r)
			}
			msg := out.Results[0].Error
			if !strings.Contains(msg, link) || !strings.Contains(msg, target) || !strings.Contains(msg, "symbolic link") {
				t.Errorf("the error does not name the link %s and its target %s: %s", link, target, msg)
			}
			if got := readFile(t, target); string(got) != content {
				t.Errorf("the link's target changed:\n%s", got)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link is no longer a link: %v", err)
			}
			// A dry run says so too.
			dry := tr.run(t, append(strings.Fields("disable "+tt.skill), "--dry-run")...)
			if dry.code != 1 || !strings.Contains(dry.stdout, link) {
				t.Errorf("dry run: want exit 1 naming %s\n%s", link, dry)
			}
		})
	}
}

// TestInstallWorkflowRefusesLinkOutOfFolder: install-workflow does not
// write its block into an instructions file that is a symlink leading
// out of the folder it belongs to, such as a project's CLAUDE.md linked
// to the user's shell rc file, or the user's CLAUDE.md linked out of the
// home folder: the target keeps every byte, and the error names the link
// and where it leads. The user's CLAUDE.md linked into ~/dotfiles gets
// the block, and stays a link.
func TestInstallWorkflowRefusesLinkOutOfFolder(t *testing.T) {
	tests := []struct {
		name, scope, link string
		// target is where the link leads, relative to the home folder
		// ("../" leads out of it).
		target  string
		written bool
	}{
		{"project CLAUDE.md linked to ~/.bashrc", "project", "ws:CLAUDE.md", ".bashrc", false},
		{"user CLAUDE.md linked out of the home folder", "user", ".claude/CLAUDE.md", "../elsewhere/rules.md", false},
		{"user CLAUDE.md linked into ~/dotfiles", "user", ".claude/CLAUDE.md", "dotfiles/claude/CLAUDE.md", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := newSwitchTree(t)
			target := filepath.Join(tr.home, filepath.FromSlash(tt.target))
			content := "# my shell\nexport PATH=\"$HOME/bin:$PATH\"\nalias ll='ls -l'\n"
			putFile(t, target, []byte(content))
			link := filepath.Join(tr.home, tt.link)
			if rel, ok := strings.CutPrefix(tt.link, "ws:"); ok {
				link = filepath.Join(tr.ws, rel)
			}
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			r := tr.run(t, "install-workflow", "--scope", tt.scope, "--agent", "claude", "--json")
			var out struct {
				Results []struct{ Agent, Path, Status, Error string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("%v\n%s", err, r)
			}
			got := string(readFile(t, target))
			if tt.written {
				if r.code != 0 || len(out.Results) != 1 || out.Results[0].Status != "installed" ||
					!strings.HasPrefix(got, content) || !strings.Contains(got, `<workflow name="ccski">`) {
					t.Errorf("want the block added to %s\n%s\n%s", target, r, got)
				}
				if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link is no longer a link: %v", err)
				}
				return
			}
			if r.code != 1 || len(out.Results) != 1 || out.Results[0].Status != "failed" ||
				!strings.Contains(out.Results[0].Error, link) || !strings.Contains(out.Results[0].Error, target) {
				t.Errorf("want exit 1 and one failed result naming %s and %s\n%s", link, target, r)
			}
			if got != content {
				t.Errorf("the link's target changed:\n%s", got)
			}
		})
	}
}

// TestRenameRefusesLinkOutOfProject: disable of a skill no agent with a
// switch reads falls back to renaming its SKILL.md, but not through a
// project's skill folder that is a link leading out of the project: the
// skill it leads to keeps its SKILL.md (for every project and agent that
// reads it), and the failure, in a dry run too, names the link.
func TestRenameRefusesLinkOutOfProject(t *testing.T) {
	tr := newSwitchTree(t)
	target := filepath.Join(filepath.Dir(tr.ws), "elsewhere", "borrowed")
	putFile(t, filepath.Join(target, "SKILL.md"), []byte(switchSkill("borrowed")))
	link := filepath.Join(tr.ws, ".cursor", "skills", "borrowed")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, dry := range []bool{true, false} {
		args := []string{"disable", "borrowed", "--json"}
		if dry {
			args = append(args, "--dry-run")
		}
		r := tr.run(t, args...)
		var out toggleOut
		decodeOnly(t, r, &out)
		if r.code != 1 || out.Failed != 1 || out.Changed != 0 || len(out.Results) != 1 ||
			!strings.Contains(out.Results[0].Error, link) || !strings.Contains(out.Results[0].Error, target) {
			t.Errorf("dry run %v: want exit 1 and one failed switch naming %s and %s\n%s", dry, link, target, r)
		}
	}
	if _, err := os.Stat(filepath.Join(target, "SKILL.md")); err != nil {
		t.Errorf("the linked skill's SKILL.md was renamed: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(target, ".SKILL.md")); err == nil {
		t.Error("the linked skill has a .SKILL.md")
	}
}
