package all_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
	"github.com/ccski/ccski/providers/custom"
)

// TestRegistryMatchesDefaults checks that every registered provider has a
// section in the built-in configuration (and so in ccski.yaml and the
// schema), that no section names an unregistered provider, and that every
// provider builds from the options configs decodes for it.
func TestRegistryMatchesDefaults(t *testing.T) {
	cfg := configs.Default(all.Registry())
	var registered, configured []string
	for _, e := range all.Registry() {
		registered = append(registered, e.Name)
		opts, err := cfg.ProviderOptions(e)
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		p, err := e.New(opts)
		if err != nil {
			t.Errorf("%s: New with the default options: %v", e.Name, err)
			continue
		}
		if p.Name() != e.Name {
			t.Errorf("registered as %q but Name() is %q", e.Name, p.Name())
		}
		if e.Doc == "" {
			t.Errorf("%s has no Doc", e.Name)
		}
	}
	for name := range cfg.Providers {
		configured = append(configured, name)
	}
	sort.Strings(registered)
	sort.Strings(configured)
	if d := cmp.Diff(registered, configured); d != "" {
		t.Errorf("registered providers vs configured sections (-registered +configured):\n%s", d)
	}
}

// TestFactoriesTakeTheirOwnOptions checks the typed contract between
// configs and the factories: each provider takes the options struct its
// entry declares, and refuses another provider's with an error naming it.
func TestFactoriesTakeTheirOwnOptions(t *testing.T) {
	reg := all.Registry()
	for i, e := range reg {
		if e.Options == nil {
			continue
		}
		if _, err := e.New(e.Options()); err != nil {
			t.Errorf("%s: New with its own defaults: %v", e.Name, err)
		}
		other := reg[(i+1)%len(reg)]
		if other.Options == nil || fmt.Sprintf("%T", other.Options()) == fmt.Sprintf("%T", e.Options()) {
			continue
		}
		if _, err := e.New(other.Options()); err == nil || !strings.Contains(err.Error(), "providers."+e.Name) {
			t.Errorf("%s: New with the options of %s: error %v, want one naming providers.%s", e.Name, other.Name, err, e.Name)
		}
	}
}

// TestEntriesDescribeTheirPlans checks each entry against what its
// provider plans with the default options: every root carries one of the
// entry's Labels (so that ProviderNames, which filter tokens read, names
// every provider a record can have, dynamic agents aside), has one of its
// Kinds, and lies, when it is in a hidden folder of the workspace or user
// folder, in one of its Folders (so that the agents provider leaves that
// folder alone). The Kinds are all known to the priority order.
func TestEntriesDescribeTheirPlans(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	env := providers.NewEnv(home, ws, func(string) string { return "" })
	known := pipeline.DefaultPriority()
	// Every provider plans something: the custom provider a folder of
	// --skill-dir, the project provider one of skill_dirs.
	cfg := configs.Default(all.Registry())
	cfg.SkillDirs = []string{filepath.Join(ws, "extra")}
	cfg.Providers["custom"] = configs.Provider{Enabled: true, Options: &custom.Options{Dirs: []custom.Folder{custom.Folder(filepath.Join(ws, "more"))}}}
	for _, e := range all.Registry() {
		if len(e.Labels) == 0 || len(e.Kinds) == 0 {
			t.Errorf("%s has no Labels or no Kinds", e.Name)
			continue
		}
		for _, k := range e.Kinds {
			if !slices.Contains(known, k) {
				t.Errorf("%s: kind %q is not in pipeline.DefaultPriority", e.Name, k)
			}
		}
		opts, err := cfg.ProviderOptions(e)
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.New(opts)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		plan, err := p.Plan(context.Background(), env)
		if err != nil {
			t.Fatalf("%s: Plan: %v", e.Name, err)
		}
		for _, r := range plan.Roots {
			if !slices.Contains(e.LabelNames(), r.Agent) {
				t.Errorf("%s plans root %s with agent %q, not one of its Labels %q", e.Name, r.Path, r.Agent, e.LabelNames())
			}
			if !slices.Contains(e.Kinds, r.Kind) {
				t.Errorf("%s plans root %s of kind %q, not one of its Kinds %q", e.Name, r.Path, r.Kind, e.Kinds)
			}
			for _, base := range []string{ws, home} {
				rel, err := filepath.Rel(base, r.Path)
				if err != nil || strings.HasPrefix(rel, "..") {
					continue
				}
				if top := strings.Split(filepath.ToSlash(rel), "/")[0]; strings.HasPrefix(top, ".") && !slices.Contains(e.Folders, top) {
					t.Errorf("%s plans root %s in %s, not one of its Folders %q", e.Name, r.Path, top, e.Folders)
				}
			}
		}
	}
}

// TestProviderNames checks the order of the registered agent labels: the
// order of the CLI's groups and of the last tie-break, as it was when it
// was a hand-kept list (shared labels first, then the agents
// alphabetically).
func TestProviderNames(t *testing.T) {
	want := []string{"custom", "project", "agents", "remote", "git", "claude", "codex", "copilot", "cursor", "gemini", "openclaw"}
	if d := cmp.Diff(want, all.ProviderNames()); d != "" {
		t.Errorf("ProviderNames (-want +got):\n%s", d)
	}
}

// TestClaimed checks the folders the dynamic agents leave alone: every
// registered provider's folders, names and labels, as the agents
// provider's hand-kept list held them, plus .commands, which that list
// had missed.
func TestClaimed(t *testing.T) {
	want := []string{".agent", ".agent_plugins", ".agents", ".claude", ".codex", ".codex_plugins", ".commands",
		".copilot", ".copilot_plugins", ".cursor", ".cursor_plugins", ".custom", ".gemini", ".gemini_extensions", ".git", ".github", ".marketplace", ".openclaw", ".project", ".remote"}
	if d := cmp.Diff(want, all.Claimed()); d != "" {
		t.Errorf("Claimed (-want +got):\n%s", d)
	}
}

// agentLiteralsAllowed are the files outside providers/ that may spell a
// registered agent's name as a string literal, and why. A provider for a
// new host (Cursor, Copilot, ...) adds no file here: everything else that
// depends on the set of providers is derived from the registry. (The
// engine is not among them: what the claude and codex providers give the
// others, it passes on through the optional interfaces of package
// providers.)
var agentLiteralsAllowed = map[string]string{
	// The filter grammar's plugin tokens (claude:@plugin): only Claude has
	// plugins.
	"filters/token.go": "claude:@<plugin> tokens",
	// validate checks SKILL.md files against a host's rules.
	"internal/validate/profile.go": "the validate profiles",
	// The security scan's hidden-text rule reads the names of AIs as words
	// of prose ("Claude must ..."), beside assistant, gpt and the like.
	"internal/security/hidden.go": "names of AIs as words of prose, not providers",
	"internal/security/hijack.go": "names of AIs in the phrases of role-play hijacking (\"you are not claude\"), not providers",
	// doctor --ask-host runs each host's own command, named after the
	// host's program, not ccski's label: claude, codex, gemini, copilot.
	"internal/hostask/hostask.go": "the hosts' commands (claude plugin list, codex debug prompt-input)",
	"internal/hostask/listers.go": "the hosts' commands (gemini skills list, copilot skill list)",
	// The real hosts the integration tests install from npm.
	"integration/realhost/realhost.go": "the commands of the npm packages installed for the tests",
}

// TestAgentNamesStayInProviders is the proof that adding a provider is a
// new package and one line in this package: outside providers/, no
// non-test Go file but the ones agentLiteralsAllowed lists spells the
// name of a registered agent (a label that names an agent, not a shared
// label such as custom or project, which are also location names) as a
// string literal.
func TestAgentNamesStayInProviders(t *testing.T) {
	agents := map[string]bool{}
	for _, e := range all.Registry() {
		for _, l := range e.Labels {
			if !l.Shared {
				agents[l.Name] = true
			}
		}
	}
	root := filepath.Join("..", "..")
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "providers" || d.Name() == "testdata" || (rel != "." && strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && agents[v] {
					found[rel] = append(found[rel], v)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for file, names := range found {
		if _, ok := agentLiteralsAllowed[file]; !ok {
			t.Errorf("%s spells the agent names %q; derive them from the registry (package providers/all) instead", file, names)
		}
	}
}
