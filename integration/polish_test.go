package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/testfs"
)

// TestUnknownFilterTokens checks that a filter token naming nothing on the
// machine is a usage error with a did-you-mean when the user typed it
// (flag or variable; include or exclude), that the forms that name
// something still work, and that ccski mcp refuses such a token too. A
// token from a config file is a warning instead (see
// TestConfigFilterTokenNamingNothing).
func TestUnknownFilterTokens(t *testing.T) {
	m := newMachine(t)
	cfg := filepath.Join(t.TempDir(), "exclude.yaml")
	if err := os.WriteFile(cfg, []byte("exclude: [codx]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The workspace disables legacy-tools in .claude/settings.json.
	legacyOff := `plugin legacy-tools is disabled (enable it in ` + filepath.Join(m.Workspace, ".claude", "settings.json") +
		` enabledPlugins: "legacy-tools@demo-market": true)`
	cases := []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string // in stderr
	}{
		{"include flag", []string{"list", "--include", "codx"}, nil, 2,
			`include: invalid filter token "codx": it names no provider, plugin, skill or command; did you mean codex?`},
		{"exclude flag", []string{"list", "--exclude", "claude,codx"}, nil, 2, `exclude: invalid filter token "codx"`},
		{"include variable", []string{"sources"}, map[string]string{"CCSKI_INCLUDE": "codx"}, 2, `did you mean codex?`},
		{"exclude in config", []string{"list", "--config", cfg}, nil, 0, ""},
		{"unknown provider with location", []string{"list", "--include", "codx@user"}, nil, 2,
			`unknown provider "codx"; did you mean codex?`},
		{"unknown pair", []string{"info", "pdf", "--include", "codx:pdf"}, nil, 2, `did you mean codex:pdf?`},
		{"plugin name alone", []string{"list", "--include", "doc-tools"}, nil, 2, `use @plugins:doc-tools`},
		{"plugin skill typo", []string{"list", "--include", "doc-tools:pfd"}, nil, 2, `did you mean doc-tools:pdf?`},
		{"unknown plugin", []string{"list", "--include", "@plugins:nonexist"}, nil, 2,
			`include: invalid filter token "@plugins:nonexist": no installed plugin is named nonexist`},
		{"plugin typo", []string{"list", "--exclude", "@plugins:doc-tool"}, nil, 2, `did you mean @plugins:doc-tools?`},
		{"plugin token skill typo", []string{"list", "--include", "@doc-tools:pfd"}, nil, 2,
			`no skill or command of plugin doc-tools is named pfd; did you mean @doc-tools:pdf?`},
		{"disabled plugin", []string{"list", "--include", "@plugins:legacy-tools"}, nil, 2, legacyOff},
		{"disabled plugin skill", []string{"list", "--include", "legacy-tools:legacy-report"}, nil, 2, legacyOff},

		{"excluding a disabled plugin", []string{"list", "--exclude", "@plugins:legacy-tools"}, nil, 0, ""},
		{"plugin token", []string{"list", "--include", "@plugins:doc-tools,@lint-kit:lint-*"}, nil, 0, ""},

		{"plugin full name", []string{"list", "--include", "doc-tools:pdf"}, nil, 0, ""},
		{"scoped name", []string{"list", "--include", "docs:pdf"}, nil, 0, ""},
		{"dynamic provider", []string{"list", "--include", "cursor"}, nil, 0, ""},
		{"registered provider without skills", []string{"list", "--exclude", "openclaw"}, nil, 0, ""},
		{"skill name", []string{"list", "--exclude", "shared-notes"}, nil, 0, ""},
		{"glob", []string{"list", "--include", "lint-*"}, nil, 0, ""},
		{"id", []string{"list", "--include", "claude@user:pdf"}, nil, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ccski(t, m, runOpts{env: tc.env}, std(m, tc.args...)...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr does not say %q\n%s", tc.want, r)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		r := run(t, m, "list", "--json", "--include", "codx")
		var obj struct {
			Code        string   `json:"code"`
			Suggestions []string `json:"suggestions"`
		}
		decodeOnly(t, r, &obj)
		if r.code != 2 || obj.Code != "invalid_filter" || !slices.Equal(obj.Suggestions, []string{"codex"}) {
			t.Errorf("exit %d, code %q, suggestions %q; want 2, invalid_filter, [codex]\n%s", r.code, obj.Code, obj.Suggestions, r)
		}
	})

	t.Run("mcp", func(t *testing.T) {
		r := runServerToExit(t, m, std(m, "mcp", "--include", "codx"))
		if r.code != 2 || !strings.Contains(r.stderr, `did you mean codex?`) {
			t.Errorf("ccski mcp with an unknown provider: exit %d, want 2 with a did-you-mean\n%s", r.code, r)
		}
	})
}

// runServerToExit runs a command that serves on stdio with a stdin that
// stays open, so that only the command itself can end the run, and waits
// for it to exit (at most a minute, then it is killed and the test fails).
func runServerToExit(t *testing.T, m *machine.Machine, args []string) result {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = m.Workspace
	cmd.Env = env(m, nil)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("ccski %v did not exit\nstderr:\n%s", args, stderr.String())
	}
	return result{args: args, stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
}

// TestConfigRedactsSecrets checks that the auth token, from a variable, a
// flag or the user config, never appears in ccski config's output, text or
// JSON, and that the output says it is set and where; nor does the token
// of a project config, which may not change it and is listed as ignored.
func TestConfigRedactsSecrets(t *testing.T) {
	m := newMachine(t)
	const secret, projectSecret = "tok-3f9c2a7e-do-not-print", "tok-77b1e0c4-nor-this"
	userFile := userConfig(m)
	appendFile(t, userFile, "mcp:\n  auth_token: "+secret+"\n")
	cfgFile := filepath.Join(t.TempDir(), "secret.yaml")
	if err := os.WriteFile(cfgFile, []byte("mcp:\n  auth_token: "+projectSecret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		env    map[string]string
		source string
	}{
		{"variable", []string{"config"}, map[string]string{"CCSKI_AUTH_TOKEN": secret}, "env CCSKI_AUTH_TOKEN"},
		{"flag", []string{"config", "--auth-token", secret}, nil, "flag --auth-token"},
		{"user config", []string{"config"}, nil, "user config " + userFile},
		{"ignored project config", []string{"config", "--config", cfgFile}, nil, "user config " + userFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ccski(t, m, runOpts{env: tc.env}, tc.args...)
			mustOK(t, r)
			if strings.Contains(r.stdout+r.stderr, secret) || strings.Contains(r.stdout+r.stderr, projectSecret) {
				t.Fatalf("the token is printed\n%s", r)
			}
			line := regexp.MustCompile(`(?m)^mcp\.auth_token +(.*)$`).FindStringSubmatch(r.stdout)
			if line == nil || !strings.HasPrefix(line[1], "<redacted>  ("+tc.source+")") {
				t.Errorf("mcp.auth_token line %q, want <redacted> and its source %q\n%s", line, tc.source, r)
			}

			rj := ccski(t, m, runOpts{env: tc.env}, append(tc.args, "--json")...)
			mustOK(t, rj)
			if strings.Contains(rj.stdout+rj.stderr, secret) || strings.Contains(rj.stdout+rj.stderr, projectSecret) {
				t.Fatalf("the token is printed in JSON\n%s", rj)
			}
			var out struct {
				Config struct {
					MCP struct {
						AuthToken string `json:"auth_token"`
					} `json:"mcp"`
				} `json:"config"`
				Sources  map[string]string `json:"sources"`
				Redacted []string          `json:"redacted"`
			}
			decodeOnly(t, rj, &out)
			if out.Config.MCP.AuthToken != "<redacted>" || !slices.Equal(out.Redacted, []string{"mcp.auth_token"}) ||
				out.Sources["mcp.auth_token"] != tc.source {
				t.Errorf("JSON auth_token %q, redacted %q, source %q; want <redacted>, [mcp.auth_token], %q",
					out.Config.MCP.AuthToken, out.Redacted, out.Sources["mcp.auth_token"], tc.source)
			}
		})
	}
}

// TestWorkspaceMustExist checks that a workspace that is not a folder is
// a usage error naming the path and where it was set, for every command
// that discovers, ccski mcp included.
func TestWorkspaceMustExist(t *testing.T) {
	m := newMachine(t)
	missing := filepath.Join(m.Root, "no-such-project")
	file := filepath.Join(m.Workspace, "ccski.yaml")
	cases := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"list", []string{"list", "--workspace", missing}, nil, "workspace " + missing + " does not exist (set by flag --workspace)"},
		{"info", []string{"info", "pdf", "--workspace", missing}, nil, "workspace " + missing + " does not exist"},
		{"sources json", []string{"sources", "--json", "--workspace", missing}, nil, "does not exist"},
		{"validate", []string{"validate", "--workspace", missing}, nil, "does not exist"},
		{"variable", []string{"list"}, map[string]string{"CCSKI_WORKSPACE": missing}, "(set by env CCSKI_WORKSPACE)"},
		{"a file", []string{"search", "pdf", "--workspace", file}, nil, "workspace " + file + " is not a folder"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ccski(t, m, runOpts{env: tc.env}, std(m, tc.args...)...)
			if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, want 2 with %q\n%s", r.code, tc.want, r)
			}
		})
	}
	t.Run("mcp", func(t *testing.T) {
		r := runServerToExit(t, m, std(m, "mcp", "--workspace", missing))
		if r.code != 2 || !strings.Contains(r.stderr, missing+" does not exist") {
			t.Errorf("exit %d, want 2 naming the path\n%s", r.code, r)
		}
	})
	t.Run("existing", func(t *testing.T) {
		mustOK(t, ccski(t, m, runOpts{dir: m.Root}, std(m, "list", "--workspace", m.Workspace)...))
	})
}

// TestListDisabledCountsCommands checks that the footer of list --disabled
// counts the commands it filters out apart from the skills: adding
// commands to the machine adds "and N commands", and leaves the skill
// count alone.
func TestListDisabledCountsCommands(t *testing.T) {
	footer := regexp.MustCompile(`(?m)^(\d+) skills(?: and (\d+) commands?)? filtered out`)
	m := newMachine(t)
	before := footer.FindStringSubmatch(run(t, m, "list", "--disabled").stdout)
	if before == nil || before[2] != "" {
		t.Fatalf("footer without commands: %q", before)
	}
	testfs.Write(t, m.Root, map[string]string{
		"work/repo/.claude/commands/deploy.md":          "---\ndescription: Deploy.\n---\nDeploy $1.\n",
		"work/repo/.claude/commands/frontend/review.md": "Review $ARGUMENTS.\n",
		"home/.codex/prompts/sp.specify.md":             "---\ndescription: Specify.\n---\nSpecify.\n",
	})
	var cmds []record
	decodeOnly(t, run(t, m, "list", "--all", "--kind", "command", "--json"), &cmds)
	r := run(t, m, "list", "--disabled")
	mustOK(t, r)
	after := footer.FindStringSubmatch(r.stdout)
	if after == nil || after[1] != before[1] || after[2] != fmt.Sprint(len(cmds)) {
		t.Errorf("footer %q; want %s skills and %d commands filtered out\n%s", after, before[1], len(cmds), r)
	}
}

// longPluginTree is a Claude Code install with a plugin whose name and
// marketplace are long, as real ones are, beside a user and a project
// skill.
func longPluginTree(t *testing.T) (home, ws string) {
	t.Helper()
	root := t.TempDir()
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "work", "repo")
	const plugin, market = "enterprise-document-automation-toolkit", "acme-internal-marketplace"
	mdir := filepath.Join(home, ".claude", "plugins", "marketplaces", market)
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\nBody.\n"
	}
	testfs.Write(t, root, map[string]string{
		"work/repo/.git/": "",
		"work/repo/.claude/skills/repo-notes/SKILL.md": skill("repo-notes"),
		"home/.claude/skills/pdf/SKILL.md":             skill("pdf"),
		"home/.claude/settings.json":                   `{"enabledPlugins": {"` + plugin + "@" + market + `": true}}`,
		"home/.claude/plugins/known_marketplaces.json": `{"` + market + `": {"source": {"source": "github", "repo": "acme/` +
			market + `"}, "installLocation": ` + jsonString(mdir) + `, "lastUpdated": "2025-01-01T00:00:00.000Z"}}`,
		"home/.claude/plugins/installed_plugins.json": `{"version": 2, "plugins": {"` + plugin + "@" + market +
			`": [{"scope": "user", "installPath": ` + jsonString(mdir) + `, "version": "1.0.0",` +
			` "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}]}}`,
		"home/.claude/plugins/marketplaces/" + market + "/.claude-plugin/marketplace.json": `{"name": "` + market +
			`", "owner": {"name": "Acme"}, "plugins": [{"name": "` + plugin + `", "source": "./", "strict": false,` +
			` "skills": ["./skills/contract-review", "./skills/docx"]}]}`,
		"home/.claude/plugins/marketplaces/" + market + "/skills/contract-review/SKILL.md": skill("contract-review"),
		"home/.claude/plugins/marketplaces/" + market + "/skills/docx/SKILL.md":            skill("docx"),
	})
	return home, ws
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestSourcesAlignsLongPluginNames checks that every line of the roots
// table of ccski sources starts its count and its path at the same
// column, on a tree with a plugin whose label is far wider than the
// others.
func TestSourcesAlignsLongPluginNames(t *testing.T) {
	registerSourcesOnce(t)
	home, ws := longPluginTree(t)
	vars := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "COLUMNS=80",
		"TMPDIR=" + os.TempDir()}
	r := runBinary(t, ws, vars, "sources")
	mustOK(t, r)
	_, table, ok := strings.Cut(r.stdout, "\n\n")
	table, _, _ = strings.Cut(table, "\n\n")
	if !ok || !strings.Contains(table, "enterprise-document-automation-toolkit@acme-internal-marketplace") {
		t.Fatalf("no roots table with the plugin\n%s", r)
	}
	rootLine := regexp.MustCompile(`^  [✓-] (.+?  )(\d+ skills?  |missing  )\s*(/.*)$`)
	countCol, pathCol := -1, -1
	for _, line := range strings.Split(table, "\n") {
		sm := rootLine.FindStringSubmatchIndex(line)
		if sm == nil {
			t.Fatalf("root line %q does not read mark, label, count, path\n%s", line, r)
		}
		count, path := utf8.RuneCountInString(line[:sm[4]]), utf8.RuneCountInString(line[:sm[6]])
		if countCol < 0 {
			countCol, pathCol = count, path
		}
		if count != countCol || path != pathCol {
			t.Errorf("line %q: count at column %d and path at %d, want %d and %d", line, count, path, countCol, pathCol)
		}
	}
}

// completions runs ccski __complete with args and returns the completions
// (without descriptions) and the directive line.
func completions(t *testing.T, m *machine.Machine, o runOpts, args ...string) ([]string, string) {
	t.Helper()
	r := ccski(t, m, o, append([]string{"__complete"}, args...)...)
	mustOK(t, r)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], ":") {
		t.Fatalf("stdout does not end with the directive line\n%s", r)
	}
	var out []string
	for _, l := range lines[:len(lines)-1] {
		v, _, _ := strings.Cut(l, "\t")
		out = append(out, v)
	}
	return out, lines[len(lines)-1]
}

// TestCompletion drives the shell completion as the shell scripts do,
// through the hidden __complete command of the binary.
func TestCompletion(t *testing.T) {
	m := newMachine(t)
	flags := []string{"--user-dir", m.Home, "--skill-dir", m.SkillDirFlag()}

	t.Run("info ids and names", func(t *testing.T) {
		var recs []record
		decodeOnly(t, run(t, m, "list", "--json"), &recs)
		got, dir := completions(t, m, runOpts{}, append(append([]string{"info"}, flags...), "")...)
		if d := cmp.Diff(ids(recs), sorted(got[:min(len(recs), len(got))])); d != "" {
			t.Errorf("info completes first (-visible ids +got):\n%s", d)
		}
		if dir != ":4" {
			t.Errorf("directive %s, want :4 (no file completion)", dir)
		}
		// Then names and short names, each once and each one that info
		// resolves to one record.
		seen := map[string]bool{}
		for _, v := range got {
			if seen[strings.ToLower(v)] {
				t.Errorf("info completes %q twice", v)
			}
			seen[strings.ToLower(v)] = true
		}
		names := got[min(len(recs), len(got)):]
		for _, want := range []string{"lint-fix", "lint-kit:lint-fix", "commit-helper", "pdf"} {
			if !slices.Contains(names, want) {
				t.Errorf("info completes the names %q, missing %q", names, want)
			}
		}
		for _, name := range names {
			if r := run(t, m, "info", name, "--json"); r.code != 0 {
				t.Errorf("info completes %q, which info does not resolve:\n%s", name, r)
			}
		}
		// A short name completes from its start, ignoring case, as
		// `info brainstorming` works for claude:@superpowers:brainstorming.
		if got, _ := completions(t, m, runOpts{}, append(append([]string{"info"}, flags...), "LINT-R")...); !cmp.Equal(got, []string{"lint-rules"}) {
			t.Errorf("info LINT-R completes %q, want [lint-rules]", got)
		}
		got, _ = completions(t, m, runOpts{}, append(append([]string{"info"}, flags...), "CLAUDE:@doc")...)
		if d := cmp.Diff([]string{"claude:@doc-tools:pdf-forms", "claude:@doc-tools:xlsx"}, got); d != "" {
			t.Errorf("info CLAUDE:@doc completes (-want +got):\n%s", d)
		}
		if got, _ := completions(t, m, runOpts{}, append(append([]string{"info"}, flags...), "pdf", "")...); len(got) != 0 {
			t.Errorf("a second argument completes %q, want nothing", got)
		}
	})

	tokens := func(t *testing.T, o runOpts, flag, value string) []string {
		t.Helper()
		got, dir := completions(t, m, o, append(append([]string{"list"}, flags...), flag, value)...)
		if dir != ":6" {
			t.Errorf("%s %q: directive %s, want :6 (no space, no files)", flag, value, dir)
		}
		return got
	}
	t.Run("filter tokens", func(t *testing.T) {
		got := tokens(t, runOpts{}, "--include", "")
		for _, want := range []string{"auto", "all", "@plugins", "claude", "codex", "cursor", "@plugins:doc-tools",
			"claude:@doc-tools:pdf-forms", "codex:pdf", "agents:old-helper"} {
			if !slices.Contains(got, want) {
				t.Errorf("--include completes %q, missing %q", got, want)
			}
		}
		// Names and short names are tokens too: a bare name selects every
		// copy of it.
		if got := tokens(t, runOpts{}, "--include", "codex,LINT-F"); !cmp.Equal(got, []string{"codex,lint-fix"}) {
			t.Errorf("--include codex,LINT-F completes %q, want [codex,lint-fix]", got)
		}
		got = tokens(t, runOpts{}, "--exclude", "codex,cl")
		if !slices.Contains(got, "codex,claude") {
			t.Errorf("--exclude codex,cl completes %q, missing codex,claude", got)
		}
		for _, v := range got {
			if !strings.HasPrefix(v, "codex,cl") {
				t.Errorf("--exclude codex,cl completes %q, which does not extend it", v)
			}
		}
		if got := tokens(t, runOpts{}, "--include", "codex,cod"); slices.Contains(got, "codex,codex") {
			t.Errorf("a token already given is offered again: %q", got)
		}
		// A half-typed or wrong filter in the configuration must not
		// empty the list.
		got = tokens(t, runOpts{env: map[string]string{"CCSKI_INCLUDE": "codx"}}, "--include", "co")
		if !slices.Contains(got, "codex") {
			t.Errorf("with a bad CCSKI_INCLUDE, --include co completes %q, missing codex", got)
		}
	})

	t.Run("enum flags", func(t *testing.T) {
		cases := []struct {
			args []string
			want []string
		}{
			{[]string{"list", "--kind", ""}, []string{"skill", "command"}},
			{[]string{"sources", "--kind", "c"}, []string{"command"}},
			{[]string{"validate", "--format", ""}, []string{"text", "json", "github", "sarif"}},
			{[]string{"validate", "--profile", ""}, []string{"spec", "claude", "codex", "strict"}},
			{[]string{"mcp", "--transport", ""}, []string{"stdio", "http", "sse"}},
			{[]string{"mcp", "--log-level", "w"}, []string{"warn"}},
			{[]string{"mcp", "--log-format", ""}, []string{"text", "json"}},
			{[]string{"mcp", "--tools", "ask,skills_"}, []string{"ask,skills_list", "ask,skills_search"}},
		}
		for _, tc := range cases {
			got, _ := completions(t, m, runOpts{}, tc.args...)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%v completes (-want +got):\n%s", tc.args, d)
			}
		}
	})
}
