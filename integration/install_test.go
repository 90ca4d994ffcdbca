package integration

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/internal/testfs"
)

// repoFile reads a file of the repository, relative to its root.
func repoFile(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// codeBlock is one fenced code block of a Markdown file.
type codeBlock struct {
	lang  string
	lines []string
}

// codeBlocks returns the fenced code blocks of a Markdown text, in order.
func codeBlocks(md string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &codeBlock{lang: strings.TrimPrefix(trimmed, "```")}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// TestReadmeInstallStory checks the README's promises about installing:
// the first command installs from a clone, the test command is the one CI
// runs, the Go version is go.mod's, GOPATH/bin on PATH is explained, and
// no install line anywhere in the README or the docs uses a module path
// with a version (nothing is published there).
func TestReadmeInstallStory(t *testing.T) {
	readme := repoFile(t, "README.md")
	first, commands, testCmd := readmeFirstBlock(t)
	if len(commands) != 2 || !strings.HasPrefix(commands[0], "go install ./cmd/ccski && ") {
		t.Errorf("the README's first block must hold the install-from-a-clone command and the test command; got %q", commands)
	}
	if testCmd == "" {
		t.Fatalf("no command under a \"Run the tests\" comment in the first block: %q", first.lines)
	}
	ci := strings.Split(repoFile(t, ".ci/run"), "\n")
	if !slices.Contains(ci, testCmd) {
		t.Errorf(".ci/run does not run the README's test command %q on a line of its own", testCmd)
	}

	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(repoFile(t, "go.mod"))
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	for _, want := range []string{"Go " + goVersion[1] + " or later", "$(go env GOPATH)/bin", "PATH"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README does not say %q", want)
		}
	}

	versioned := regexp.MustCompile(`go (install|get) +[^ ]*@`)
	docs, _ := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	for _, file := range append([]string{filepath.Join("..", "README.md")}, docs...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range codeBlocks(string(data)) {
			for _, line := range b.lines {
				if versioned.MatchString(line) {
					t.Errorf("%s: %q installs a published module version, which does not resolve; install from a clone",
						filepath.Base(file), strings.TrimSpace(line))
				}
			}
		}
	}
}

// readmeFirstBlock returns the README's first code block, its commands
// (the lines that are neither blank nor comments) and the command under
// its "Run the tests" comment.
func readmeFirstBlock(t *testing.T) (first codeBlock, commands []string, testCmd string) {
	t.Helper()
	blocks := codeBlocks(repoFile(t, "README.md"))
	if len(blocks) == 0 {
		t.Fatal("README has no code block")
	}
	first = blocks[0]
	for i, line := range first.lines {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		commands = append(commands, line)
		if i > 0 && strings.Contains(strings.ToLower(first.lines[i-1]), "run the tests") {
			testCmd = line
		}
	}
	return first, commands, testCmd
}

// TestReadmeFirstCommandRuns runs the README's first command in this
// clone as a new user would, with GOBIN unset and set: it must install
// ccski and run the binary it installed, wherever go install put it, and
// list the bundled examples. A fresh GOPATH and HOME stand for the user's;
// the build and module caches are this machine's, and GOPROXY=off keeps
// it off the network.
func TestReadmeFirstCommandRuns(t *testing.T) {
	registerSourcesOnce(t) // go install reads them in another process
	_, commands, _ := readmeFirstBlock(t)
	if len(commands) == 0 {
		t.Fatal("the README's first block has no command")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	caches := map[string]string{"GOCACHE": goEnv("GOCACHE"), "GOMODCACHE": goEnv("GOMODCACHE")}
	for _, withGOBIN := range []bool{false, true} {
		t.Run(fmt.Sprintf("GOBIN set %v", withGOBIN), func(t *testing.T) {
			base := testfs.TempDir(t)
			vars := map[string]string{"HOME": filepath.Join(base, "home"), "GOPATH": filepath.Join(base, "gopath"),
				"GOENV": "off", "GOPROXY": "off", "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false",
				"COLUMNS": "80", "GOBIN": ""}
			maps.Copy(vars, caches)
			want := filepath.Join(base, "gopath", "bin", "ccski")
			if withGOBIN {
				vars["GOBIN"] = filepath.Join(base, "gobin")
				want = filepath.Join(base, "gobin", "ccski")
			}
			cmd := exec.Command("sh", "-c", commands[0])
			cmd.Dir = root
			for _, kv := range os.Environ() {
				if k, _, _ := strings.Cut(kv, "="); !hasKey(vars, k) {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			for k, v := range vars {
				if v != "" {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s (GOBIN %q): %v\n%s", commands[0], vars["GOBIN"], err, out)
			}
			if _, err := os.Stat(want); err != nil {
				t.Errorf("go install did not put ccski at %s: %v", want, err)
			}
			for _, skill := range []string{"custom:commit-message", "custom:pdf-tools", "custom:release-notes"} {
				if !strings.Contains(string(out), skill) {
					t.Errorf("the first command does not list the example %s:\n%s", skill, out)
				}
			}
		})
	}
}

// hasKey reports whether m has the key k.
func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// TestLicenseChangelogRelease checks that the license the README names is
// the one in LICENSE, that CHANGELOG.md has an Unreleased section, and
// that .goreleaser.yaml builds the real command and ships files that
// exist (goreleaser check itself runs in .ci/run).
func TestLicenseChangelogRelease(t *testing.T) {
	readme := repoFile(t, "README.md")
	license := repoFile(t, "LICENSE")
	switch {
	case strings.HasPrefix(license, "MIT License"):
		if !strings.Contains(readme, "MIT License") {
			t.Error("LICENSE is MIT but the README does not say so")
		}
	case strings.Contains(license, "Apache License") && strings.Contains(license, "Version 2.0"):
		if !strings.Contains(readme, "Apache-2.0") && !strings.Contains(readme, "Apache License") {
			t.Error("LICENSE is Apache-2.0 but the README does not say so")
		}
	default:
		t.Errorf("LICENSE is neither MIT nor Apache-2.0:\n%.200s", license)
	}
	if !regexp.MustCompile(`(?m)^## \[Unreleased\]$`).MatchString(repoFile(t, "CHANGELOG.md")) {
		t.Error("CHANGELOG.md has no \"## [Unreleased]\" section")
	}

	var cfg struct {
		Version int `yaml:"version"`
		Builds  []struct {
			Main   string `yaml:"main"`
			Binary string `yaml:"binary"`
		} `yaml:"builds"`
		Archives []struct {
			Files []string `yaml:"files"`
		} `yaml:"archives"`
	}
	if err := yaml.Unmarshal([]byte(repoFile(t, ".goreleaser.yaml")), &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 || cfg.Builds[0].Main != "./cmd/ccski" || cfg.Builds[0].Binary != "ccski" {
		t.Errorf(".goreleaser.yaml: version %d, builds %+v; want version 2 and one build of ./cmd/ccski named ccski",
			cfg.Version, cfg.Builds)
	}
	for _, a := range cfg.Archives {
		for _, f := range a.Files {
			if _, err := os.Stat(filepath.Join("..", f)); err != nil {
				t.Errorf(".goreleaser.yaml ships %s: %v", f, err)
			}
		}
	}
	if !strings.Contains(repoFile(t, ".ci/run"), "goreleaser\" check") {
		t.Error(".ci/run does not run goreleaser check")
	}
}

// TestRegistrationSnippets checks the README's registration snippets:
// Claude Code registers for the user, the JSON parses with the mcpServers
// shape, the Codex TOML names the server, and the flags every snippet
// passes to ccski mcp are accepted on a real-shaped machine (so an
// --exclude there names real providers).
func TestRegistrationSnippets(t *testing.T) {
	m := newMachine(t)
	readme := repoFile(t, "README.md")
	var mcpArgs [][]string
	sawClaude, sawCodex, sawJSON, sawTOML := false, false, false, false
	for _, b := range codeBlocks(readme) {
		text := strings.Join(b.lines, "\n")
		switch b.lang {
		case "json":
			var cfg struct {
				MCPServers map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(text), &cfg); err != nil {
				t.Errorf("JSON snippet does not parse: %v\n%s", err, text)
				continue
			}
			if s, ok := cfg.MCPServers["skills"]; ok && s.Command == "ccski" {
				sawJSON = true
				mcpArgs = append(mcpArgs, s.Args)
			}
		case "toml":
			if strings.Contains(text, "[mcp_servers.skills]") && strings.Contains(text, `command = "ccski"`) {
				sawTOML = true
				if a := regexp.MustCompile(`(?m)^args = (\[.*\])$`).FindStringSubmatch(text); a != nil {
					var args []string
					if err := json.Unmarshal([]byte(a[1]), &args); err != nil {
						t.Errorf("TOML args %s: %v", a[1], err)
					}
					mcpArgs = append(mcpArgs, args)
				}
			}
		case "sh":
			for _, line := range b.lines {
				before, after, ok := strings.Cut(line, " -- ccski ")
				if !ok {
					continue
				}
				after, _, _ = strings.Cut(after, " #") // a trailing comment
				sawClaude = sawClaude || strings.HasPrefix(before, "claude mcp add -s user ")
				sawCodex = sawCodex || strings.HasPrefix(before, "codex mcp add ")
				mcpArgs = append(mcpArgs, strings.Fields(after))
			}
		}
	}
	if !sawClaude || !sawCodex || !sawJSON || !sawTOML {
		t.Errorf("README snippets: claude -s user %v, codex %v, JSON mcpServers %v, Codex TOML %v; want all",
			sawClaude, sawCodex, sawJSON, sawTOML)
	}
	for _, args := range mcpArgs {
		if len(args) == 0 || args[0] != "mcp" {
			t.Errorf("snippet runs ccski %q, not ccski mcp", args)
			continue
		}
		// list takes the discovery flags mcp takes: the filters must be
		// valid here.
		r := run(t, m, append([]string{"list"}, args[1:]...)...)
		if r.code != 0 {
			t.Errorf("the flags of ccski %s fail:\n%s", strings.Join(args, " "), r)
		}
	}
}
