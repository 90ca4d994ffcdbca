package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runValidateCmd runs "ccski validate args..." in-process and returns
// stdout, stderr, the exit code run() would give and the app.
func runValidateCmd(t *testing.T, args ...string) (string, string, int, *app) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	cmd := newValidate(a)
	cmd.SetArgs(args)
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	code := exitOK
	if err != nil {
		code = exitUsage
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		a.printError(err) // what run() does
	}
	return out.String(), errb.String(), code, a
}

func writeSkill(t *testing.T, dir, content string) string {
	t.Helper()
	p := filepath.Join(dir, "SKILL.md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// validateTree writes a good skill, one with an error and one with only a
// warning under a temporary folder, makes it the current folder and
// returns it.
func validateTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	writeSkill(t, filepath.Join(dir, "skills", "good"), "---\nname: good\ndescription: Does good things.\n---\nbody\n")
	writeSkill(t, filepath.Join(dir, "skills", "bad"), "---\nname: Bad\ndescription: Does bad things.\n---\nbody\n")
	writeSkill(t, filepath.Join(dir, "warn", "crlf"), "---\r\nname: crlf\r\ndescription: Has CRLF.\r\n---\r\nbody\r\n")
	return dir
}

func TestValidateCommandExitCodes(t *testing.T) {
	validateTree(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring
		stderr string // a substring
	}{
		{"clean", []string{"skills/good"}, exitOK, "✓ 0 errors, 0 warnings in 0 files (1 skill checked)", ""},
		{"error", []string{"skills"}, exitFail, "skills/bad/SKILL.md\n  2:7", "validation failed: 2 errors"},
		{"warnings without limit", []string{"warn"}, exitOK, "0 errors, 1 warning in 1 file", ""},
		{"warnings within the limit", []string{"--max-warnings", "1", "warn"}, exitOK, "1 warning", ""},
		{"warnings over the limit", []string{"--max-warnings=0", "warn"}, exitFail, "1 warning",
			"1 warning, more than --max-warnings 0"},
		{"profile changes severity", []string{"--profile", "claude", "skills"}, exitOK, "0 errors, 2 warnings", ""},
		{"unknown profile", []string{"--profile", "claude-code", "skills"}, exitUsage, "",
			`unknown profile "claude-code": use spec, claude, codex, strict (did you mean "claude"?)`},
		{"unknown format", []string{"--format", "xml", "skills"}, exitUsage, "", `unknown format "xml"`},
		{"dry run without fix", []string{"--dry-run", "skills"}, exitUsage, "", "--dry-run works only with --fix"},
		{"missing path", []string{"nowhere"}, exitUsage, "", "nowhere does not exist"},
		{"bad max-warnings", []string{"--max-warnings", "-2", "skills"}, exitUsage, "", "--max-warnings must be"},
		{"json and format disagree", []string{"--json", "--format", "sarif", "skills"}, exitUsage, "", "disagree"},
		{"discovery flag with a path", []string{"--include", "codex", "skills"}, exitUsage, "",
			"--include applies only when no PATH is given"},
		{"unknown kind", []string{"--kind", "commands", "skills"}, exitUsage, "",
			`unknown kind "commands": use skill, command, all (did you mean "command"?)`},
		{"no command in a skills folder", []string{"--kind", "command", "skills"}, exitFail, "no-command-found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code, _ := runValidateCmd(t, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
			if !strings.Contains(out, tt.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.stdout, out)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, errOut)
			}
			if tt.code == exitUsage && out != "" && !strings.Contains(strings.Join(tt.args, " "), "json") {
				t.Errorf("a usage error printed on stdout: %s", out)
			}
		})
	}
}

func TestValidateCommandJSON(t *testing.T) {
	validateTree(t)
	for _, flag := range []string{"--json", "--format=json"} {
		// A failing run prints exactly one JSON document: the report.
		out, _, code, a := runValidateCmd(t, flag, "skills")
		if code != exitFail || a.json {
			t.Errorf("%s: exit %d, json error object pending %v", flag, code, a.json)
		}
		var rep struct {
			Version  int
			Profile  string
			Summary  struct{ Files, Skills, Errors, Warnings int }
			Findings []struct{ Code, Severity, File string }
		}
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("%s: %v\n%s", flag, err, out)
		}
		if dec.More() {
			t.Errorf("%s: more than one JSON document on stdout:\n%s", flag, out)
		}
		if rep.Version != 1 || rep.Profile != "spec" || rep.Summary.Skills != 2 || rep.Summary.Errors != 2 ||
			len(rep.Findings) != 2 || rep.Findings[0].File != filepath.Join("skills", "bad", "SKILL.md") {
			t.Errorf("%s: report = %+v", flag, rep)
		}

		// A usage error prints a JSON error object.
		out, _, code, _ = runValidateCmd(t, flag, "nowhere")
		var je jsonError
		if err := json.Unmarshal([]byte(out), &je); err != nil || code != exitUsage || je.Code != "usage" ||
			!strings.Contains(je.Error, "nowhere does not exist") {
			t.Errorf("%s: usage error = %d %q (%v)", flag, code, out, err)
		}
	}
}

func TestValidateCommandFix(t *testing.T) {
	dir := validateTree(t)
	crlf := filepath.Join(dir, "warn", "crlf", "SKILL.md")
	before, _ := os.ReadFile(crlf)

	out, _, code, _ := runValidateCmd(t, "--fix", "--dry-run", "warn")
	if code != exitOK || !strings.Contains(out, "would fix warn/crlf/SKILL.md: converted") ||
		!strings.Contains(out, "--- a/warn/crlf/SKILL.md\n+++ b/warn/crlf/SKILL.md\n") ||
		!strings.Contains(out, "0 errors, 0 warnings in 0 files (1 skill checked)") {
		t.Errorf("dry run: exit %d\n%s", code, out)
	}
	if after, _ := os.ReadFile(crlf); !bytes.Equal(before, after) {
		t.Fatal("--dry-run wrote the file")
	}

	// With a machine format the fix report goes to stderr.
	out, errOut, code, _ := runValidateCmd(t, "--fix", "--format", "github", "warn")
	if code != exitOK || !strings.Contains(errOut, "fixed warn/crlf/SKILL.md") || strings.Contains(out, "fixed") {
		t.Errorf("fix: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	after, _ := os.ReadFile(crlf)
	if want := "---\nname: crlf\ndescription: Has CRLF.\n---\nbody\r\n"; string(after) != want {
		t.Errorf("fixed file = %q, want %q", after, want)
	}
}

func TestValidateCommandDiscovered(t *testing.T) {
	dir := validateTree(t)
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o755)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	// A broken skill has no record but must still be validated.
	writeSkill(t, filepath.Join(dir, "skills", "broken"), "---\nname: broken\ndescription: [unclosed\n---\n")

	out, _, code, _ := runValidateCmd(t, "--json", "--user-dir", home, "--no-plugins",
		"--skill-dir", filepath.Join(dir, "skills"))
	var rep struct {
		Summary  struct{ Skills int }
		Findings []struct{ Code, File string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	codes := map[string]string{}
	for _, f := range rep.Findings {
		codes[f.Code] = f.File
	}
	if code != exitFail || rep.Summary.Skills != 3 || codes["name-uppercase"] != filepath.Join("skills", "bad", "SKILL.md") ||
		codes["yaml-syntax"] != filepath.Join("skills", "broken", "SKILL.md") {
		t.Errorf("exit %d, %d skills, findings %v", code, rep.Summary.Skills, codes)
	}
}

// fakeHome makes a home folder below dir the user's home for discovery,
// with no Claude or Codex variables set, and returns it.
func fakeHome(t *testing.T, dir string) string {
	t.Helper()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	return home
}

// TestValidateCommandKinds checks that, with no PATH, slash commands are
// left out by default (they once gave name and description errors and a
// duplicate-name "commands" listing every command) and checked against
// their own rules with --kind command or all, including a command
// discovery skipped.
func TestValidateCommandKinds(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	home := fakeHome(t, dir)
	writeSkill(t, filepath.Join(home, ".claude", "skills", "notes"), "---\nname: notes\ndescription: Take notes.\n---\nbody\n")
	for name, content := range map[string]string{
		"deploy.md":          "---\ndescription: Deploy.\nargument-hint: [env]\n---\nDeploy $1.\n",
		"review.md":          "# Review the diff\n",
		"frontend/review.md": "Review the frontend.\n",
		"broken.md":          "---\ndescription: [never closed\n---\nBody\n",
	} {
		p := filepath.Join(home, ".claude", "commands", filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		kind             string
		code             int
		skills, commands int
		findings         []string
	}{
		{"", exitOK, 1, 0, nil},
		{"skill", exitOK, 1, 0, nil},
		{"command", exitFail, 0, 4, []string{"command-yaml-syntax"}},
		{"all", exitFail, 1, 4, []string{"command-yaml-syntax"}},
	} {
		args := []string{"--json", "--user-dir", home, "--no-plugins"}
		if tt.kind != "" {
			args = append(args, "--kind", tt.kind)
		}
		out, errOut, code, _ := runValidateCmd(t, args...)
		var rep struct {
			Summary  struct{ Skills, Commands int }
			Findings []struct{ Code, File string }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("--kind %q: %v\n%s\n%s", tt.kind, err, out, errOut)
		}
		var codes []string
		for _, f := range rep.Findings {
			codes = append(codes, f.Code)
			if f.Code == "command-yaml-syntax" && filepath.Base(f.File) != "broken.md" {
				t.Errorf("--kind %q: %+v", tt.kind, f)
			}
		}
		if code != tt.code || rep.Summary.Skills != tt.skills || rep.Summary.Commands != tt.commands ||
			strings.Join(codes, " ") != strings.Join(tt.findings, " ") {
			t.Errorf("--kind %q: exit %d, %+v, findings %v\n%s", tt.kind, code, rep.Summary, codes, errOut)
		}
	}
}

// TestValidateCommandFixManaged checks --fix on a PATH that reaches the
// Claude plugin cache through a symlink, with the Claude home moved by
// CLAUDE_CONFIG_DIR: the cached file stays byte for byte as it was, the
// fix report and a managed-tree info say why, the user's own skill is
// fixed, and the exit status comes from the remaining findings only.
func TestValidateCommandFixManaged(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	fakeHome(t, dir)
	claude := filepath.Join(dir, "claude-config")
	t.Setenv("CLAUDE_CONFIG_DIR", claude)
	cached := writeSkill(t, filepath.Join(claude, "plugins", "cache", "m", "p", "1.0", "skills", "lint"),
		"---\r\nname: lint\r\ndescription: Lint.\r\n---\r\nbody\r\n")
	own := writeSkill(t, filepath.Join(dir, "skills", "own"), "---\r\nname: own\r\ndescription: Own.\r\n---\r\nbody\r\n")
	if err := os.Symlink(filepath.Dir(cached), filepath.Join(dir, "skills", "lint")); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(cached)

	out, errOut, code, _ := runValidateCmd(t, "--fix", "skills")
	if after, _ := os.ReadFile(cached); !bytes.Equal(before, after) {
		t.Errorf("--fix wrote into the plugin cache: %q", after)
	}
	if fixed, _ := os.ReadFile(own); bytes.Contains(fixed[:20], []byte("\r")) {
		t.Errorf("the user's own skill was not fixed: %q", fixed)
	}
	for _, want := range []string{
		"left alone " + filepath.Join("skills", "lint", "SKILL.md") + ": it lies in the Claude Code plugin cache; it would have converted",
		"fixed " + filepath.Join("skills", "own", "SKILL.md"),
		"managed-tree",
		"crlf-line-endings",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if code != exitOK { // CRLF is a warning, managed-tree an info
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}
