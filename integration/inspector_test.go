package integration

// The MCP Inspector's SEP-2640 verification (`--method skills/list
// --verify`), installed from npm by package realhost (skipped with a
// message when npm or its registry is unreachable): over every transport
// in both protocol eras on the fixture tree, and the README's verify
// command, word for word, on a machine beyond the Inspector's default
// budgets.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/integration/realhost"
)

// skillReport is the Inspector's verdict on one skill (one line of
// --verify's output).
type skillReport struct {
	URI     string `json:"uri"`
	Name    string `json:"name"`
	OK      bool   `json:"ok"`
	Outcome string `json:"outcome"` // verified, failed, incomplete, unverifiable
	Files   []struct {
		URI    string `json:"uri"`
		Status string `json:"status"`
	} `json:"files"`
	Conformance []json.RawMessage `json:"conformance"`
	Frontmatter []json.RawMessage `json:"frontmatter"`
}

// runInspector runs the Inspector's CLI with args in dir, with the
// environment env, and returns its reports and what it printed.
func runInspector(t *testing.T, tools *realhost.MCPTools, dir string, env []string, args ...string) ([]skillReport, result) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := tools.Command(tools.Inspector, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	r := runCmd(t, cmd, argv)
	var reports []skillReport
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	for {
		var rep skillReport
		if err := dec.Decode(&rep); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				t.Fatalf("the Inspector's output is not JSON lines: %v\n%s", err, r)
			}
			break
		}
		reports = append(reports, rep)
	}
	return reports, r
}

// verified checks that the reports are exactly the skills want, each
// verified with nothing to say, and that files files were read and
// matched their digests in all. It names at most ten bad reports.
func verified(t *testing.T, reports []skillReport, r result, want []string, files int) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("the Inspector exited %d; stderr:\n%s", r.code, shorten(r.stderr, 4000))
	}
	var names, bad []string
	read := 0
	for _, rep := range reports {
		names = append(names, rep.Name)
		if !rep.OK || rep.Outcome != "verified" || len(rep.Conformance)+len(rep.Frontmatter) > 0 {
			bad = append(bad, fmt.Sprintf("%s: %s (ok %v), conformance %s, frontmatter %s",
				rep.URI, rep.Outcome, rep.OK, rep.Conformance, rep.Frontmatter))
		}
		for _, f := range rep.Files {
			read++
			if f.Status != "verified" {
				bad = append(bad, f.URI+": "+f.Status)
			}
		}
	}
	if len(bad) > 10 {
		bad = append(bad[:10], fmt.Sprintf("and %d more", len(bad)-10))
	}
	if len(bad) > 0 {
		t.Errorf("the Inspector did not verify:\n%s", strings.Join(bad, "\n"))
	}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("the Inspector checked %d skills %s, want %d %s", len(names), shorten(fmt.Sprint(names), 300), len(want), shorten(fmt.Sprint(want), 300))
	}
	if read != files {
		t.Errorf("the Inspector verified %d files, want %d", read, files)
	}
}

// treeSkills returns the names of the skills under the folders roots
// (each folder holding SKILL.md) and how many files they hold.
func treeSkills(t *testing.T, roots ...string) (names []string, files int) {
	t.Helper()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() {
				files++
				if d.Name() == "SKILL.md" {
					names = append(names, filepath.Base(filepath.Dir(p)))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(names)
	return names, files
}

// TestInspectorVerify: the Inspector's --verify --require-digests passes
// over stdio and streamable HTTP in both protocol eras, and over SSE in
// the legacy era and with the era left to negotiation (auto), on the
// fixture tree and the bundled examples: every skill conforms, and every
// file (the binary and the empty one too) matches the listing's size and
// digest. Protocol 2026-07-28 defines no SSE binding, so an Inspector that
// insists on it over SSE (modern) is told the version is unsupported, with
// the versions SSE serves, and nothing else happens.
func TestInspectorVerify(t *testing.T) {
	t.Parallel()
	tools := realhost.InstallMCPTools(t)
	m := conformanceTree(t)
	examples, err := filepath.Abs(filepath.Join("..", "examples", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	want, files := treeSkills(t, filepath.Join(m.Home, ".claude", "skills"), m.DocsDir, examples)
	httpSrv := startHTTP(t, m, nil, "--transport", "http", "--skill-dir", examples)
	sseSrv := startHTTP(t, m, nil, "--transport", "sse", "--skill-dir", examples)
	targets := []struct {
		name string
		eras []string
		args []string
	}{
		{"stdio", []string{"legacy", "modern"}, append([]string{"-e", "HOME=" + m.Home, "--cwd", m.Workspace, binary}, mcpArgs(m, "--skill-dir", examples)...)},
		{"http", []string{"legacy", "modern"}, []string{"--transport", "http", "--server-url", httpSrv.base + "/mcp"}},
		{"sse", []string{"legacy", "auto"}, []string{"--transport", "sse", "--server-url", sseSrv.base + "/mcp"}},
	}
	for _, target := range targets {
		for _, era := range target.eras {
			t.Run(target.name+"/"+era, func(t *testing.T) {
				t.Parallel()
				args := append([]string{"--cli", "--method", "skills/list", "--verify", "--require-digests", "-q",
					"--protocol-era", era}, target.args...)
				reports, r := runInspector(t, tools, m.Workspace, toolEnv(t.TempDir()), args...)
				verified(t, reports, r, want, files)
			})
		}
	}
	t.Run("sse/modern", func(t *testing.T) {
		t.Parallel()
		reports, r := runInspector(t, tools, m.Workspace, toolEnv(t.TempDir()), "--cli", "--method", "skills/list",
			"--verify", "-q", "--protocol-era", "modern", "--transport", "sse", "--server-url", sseSrv.base+"/mcp")
		if r.code == 0 || len(reports) != 0 || !strings.Contains(r.stderr+r.stdout, "Unsupported protocol version: 2026-07-28") {
			t.Errorf("an Inspector insisting on 2026-07-28 over SSE: exit %d, %d reports, want a refusal "+
				"(\"Unsupported protocol version: 2026-07-28\"):\n%s", r.code, len(reports), r)
		}
	})
}

// readmeVerifyCommand returns the README's Inspector --verify command,
// split into words: there must be exactly one.
func readmeVerifyCommand(t *testing.T) []string {
	t.Helper()
	spans := regexp.MustCompile("`[^`]*inspector[^`]*--verify[^`]*`").FindAllString(repoFile(t, "README.md"), -1)
	if len(spans) != 1 {
		t.Fatalf("README gives %d Inspector --verify commands, want 1: %q", len(spans), spans)
	}
	return strings.Fields(strings.Trim(spans[0], "`"))
}

// budgetMachine writes a machine beyond the Inspector's default budgets
// into root/home: 300 skills (the Inspector reads 256 by default), ten
// of them with a 7,000,000-byte reference, 70 MB in all (it reads 64
// MiB by default). It returns the skills' names and their file count.
func budgetMachine(t *testing.T, root string) (names []string, files int) {
	t.Helper()
	big := []byte(strings.Repeat(strings.Repeat("x", 99)+"\n", 70_000))
	for i := 1; i <= 300; i++ {
		name := fmt.Sprintf("budget-%03d", i)
		dir := filepath.Join(root, "home", ".claude", "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: Skill %d of a machine beyond the Inspector's default budgets.\n---\n# %s\n", name, i, name)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		names, files = append(names, name), files+1
		if i <= 10 {
			if err := os.MkdirAll(filepath.Join(dir, "references"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "references", "big.md"), big, 0o644); err != nil {
				t.Fatal(err)
			}
			files++
		}
	}
	return names, files
}

// TestInspectorReadmeCommand runs the README's verify command, word for
// word (npx's package is the pinned Inspector, `ccski` the built
// binary), on a machine with more skills and more bytes than the
// Inspector reads by default: it passes, every skill verified.
func TestInspectorReadmeCommand(t *testing.T) {
	words := readmeVerifyCommand(t)
	if len(words) < 3 || words[0] != "npx" || words[1] != realhost.InspectorPackage {
		t.Fatalf("README's verify command %q does not start `npx %s`", strings.Join(words, " "), realhost.InspectorPackage)
	}
	t.Parallel()
	tools := realhost.InstallMCPTools(t)
	registerSourcesOnce(t)
	root := t.TempDir()
	names, files := budgetMachine(t, root)
	work := filepath.Join(root, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	args := slices.Clone(words[2:])
	i := slices.Index(args, "ccski")
	if i < 0 {
		t.Fatalf("README's verify command %q runs no `ccski`", strings.Join(words, " "))
	}
	args[i] = binary
	// ccski mcp inherits HOME from the Inspector, which passes it on.
	reports, r := runInspector(t, tools, work, toolEnv(filepath.Join(root, "home")), args...)
	verified(t, reports, r, names, files)
}
