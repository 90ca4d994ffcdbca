package all_test

import (
	"context"
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
)

// defaultOptions returns a copy of the options configs.Default gives the
// provider name.
func defaultOptions(name string) map[string]any {
	opts := map[string]any{}
	for k, v := range configs.Default().Providers[name].Options {
		opts[k] = v
	}
	return opts
}

// TestRegistryMatchesDefaults checks that every registered provider has a
// section in the built-in configuration (and so in ccski.yaml and the
// schema), that no section names an unregistered provider, and that every
// provider builds from its default options.
func TestRegistryMatchesDefaults(t *testing.T) {
	defaults := configs.Default().Providers
	var registered, configured []string
	for _, e := range all.Registry() {
		registered = append(registered, e.Name)
		p, err := e.New(defaultOptions(e.Name))
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
	for name := range defaults {
		configured = append(configured, name)
	}
	sort.Strings(registered)
	sort.Strings(configured)
	if d := cmp.Diff(registered, configured); d != "" {
		t.Errorf("registered providers vs configured sections (-registered +configured):\n%s", d)
	}
}

// TestRegistryRejectsUnknownOptions checks that each provider decodes its
// options strictly.
func TestRegistryRejectsUnknownOptions(t *testing.T) {
	for _, e := range all.Registry() {
		if _, err := e.New(map[string]any{"no_such_option": true}); err == nil {
			t.Errorf("%s accepted an unknown option", e.Name)
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
		opts := defaultOptions(e.Name)
		if e.Name == "custom" || e.Name == "project" {
			opts["dirs"] = []any{filepath.Join(ws, "extra")}
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
	want := []string{"custom", "project", "agents", "claude", "codex", "copilot", "cursor", "gemini", "openclaw"}
	if d := cmp.Diff(want, all.ProviderNames()); d != "" {
		t.Errorf("ProviderNames (-want +got):\n%s", d)
	}
}

// TestClaimed checks the folders the dynamic agents leave alone: every
// registered provider's folders, names and labels, as the agents
// provider's hand-kept list held them, plus .commands, which that list
// had missed.
func TestClaimed(t *testing.T) {
	want := []string{".agent", ".agents", ".claude", ".codex", ".codex_plugins", ".commands", ".copilot",
		".cursor", ".custom", ".gemini", ".gemini_extensions", ".github", ".marketplace", ".openclaw", ".project"}
	if d := cmp.Diff(want, all.Claimed()); d != "" {
		t.Errorf("Claimed (-want +got):\n%s", d)
	}
}

// agentLiteralsAllowed are the files outside providers/ that may spell a
// registered agent's name as a string literal, and why. A provider for a
// new host (Cursor, Copilot, ...) adds no file here: everything else that
// depends on the set of providers is derived from the registry.
var agentLiteralsAllowed = map[string]string{
	// engine.New reads providers.claude.home, providers.codex.home and
	// their precedence options once for every provider that reads those
	// hosts' folders (claude, codex, commands, marketplace).
	"internal/engine/engine.go": "the Claude and Codex folders and precedence, shared by several providers",
	// The filter grammar's plugin tokens (claude:@plugin): only Claude has
	// plugins.
	"filters/token.go": "claude:@<plugin> tokens",
	// validate checks SKILL.md files against a host's rules.
	"internal/validate/profile.go": "the validate profiles",
	// The security scan's hidden-text rule reads the names of AIs as words
	// of prose ("Claude must ..."), beside assistant, gpt and the like.
	"internal/security/hidden.go": "names of AIs as words of prose, not providers",
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
