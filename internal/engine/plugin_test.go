package engine

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// This file proves the engine treats providers as plugins: a made-up
// registry of two providers, neither known to the engine, gets its options
// decoded by configs once and handed to the factories as they are, and
// what one gives the other (its folder, its precedence rule, its host)
// travels through the optional interfaces of package providers.

// ownerOptions are the options of the made-up provider "owner". Its home
// may be moved by a project config to a folder of the project (trust
// "inside"), as the cases below do; a real host's folder is the user's
// (trust "user").
type ownerOptions struct {
	Home       string                     `koanf:"home" config:"path" trust:"inside" doc:"The owner's folder."`
	Precedence providers.PrecedenceOption `koanf:"precedence" trust:"project" doc:"Which copy wins."`
}

var (
	ownerOrder = providers.HostOrder{Provider: "owner", Prefers: pipeline.LocationUser, Rule: "Owner ranks personal first"}
	ownerHome  = providers.HomeFolder{Provider: "owner", Var: "OWNER_HOME", Folder: ".owner"}
)

// owner plans .owner/skills in the workspace and skills/ in its folder,
// ranked by its rule; it is a Ranker, a HomeOwner and a HostOwner.
type owner struct{ opts ownerOptions }

var (
	_ providers.Ranker    = (*owner)(nil)
	_ providers.HomeOwner = (*owner)(nil)
	_ providers.HostOwner = (*owner)(nil)
)

func (o *owner) Name() string                  { return "owner" }
func (o *owner) Rule() *pipeline.Precedence    { return ownerOrder.Precedence(o.opts.Precedence) }
func (o *owner) Home(env providers.Env) string { return ownerHome.Resolve(env, o.opts.Home) }
func (o *owner) Host() providers.Host          { return providers.Host{Name: "owner", Title: "Owner"} }
func (o *owner) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	rule := o.Rule()
	roots := providers.WorkspaceRoots(env, filepath.Join(".owner", "skills"), pipeline.Root{Agent: "owner",
		Provider: "owner", Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Optional: true,
		Precedence: rule, Hosts: []string{"owner"}})
	roots = append(roots, pipeline.Root{Path: filepath.Join(o.Home(env), "skills"), Agent: "owner", Provider: "owner",
		Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true, Precedence: rule, Hosts: []string{"owner"}})
	return providers.Plan{Roots: roots}, nil
}

// reader plans the owner's extra/ folder with the owner's rule, as the
// commands provider plans Claude's commands: it knows the owner only
// through Env.
type reader struct{}

func (reader) Name() string { return "reader" }
func (reader) Plan(_ context.Context, env providers.Env) (providers.Plan, error) {
	return providers.Plan{Roots: []pipeline.Root{{Path: filepath.Join(ownerHome.From(env), "extra"), Agent: "owner",
		Provider: "reader", Location: pipeline.LocationUser, Kind: pipeline.KindUserAgent, Optional: true,
		Precedence: ownerOrder.From(env)}}}, nil
}

// pluginRegistry returns the made-up registry; got receives the options
// each owner factory is given.
func pluginRegistry(got *[]any) []providers.Entry {
	return []providers.Entry{
		{
			Name: "owner", Doc: "A made-up host.",
			Options: func() any { return &ownerOptions{Precedence: "user"} },
			Labels:  []providers.Label{{Name: "owner"}},
			Folders: []string{".owner"},
			Kinds:   []pipeline.Kind{pipeline.KindWorkspaceAgent, pipeline.KindUserAgent},
			New: func(options any) (providers.Provider, error) {
				*got = append(*got, options)
				return providers.Typed("owner", func() *ownerOptions { return &ownerOptions{} },
					func(o *ownerOptions) (providers.Provider, error) { return &owner{opts: *o}, nil })(options)
			},
		},
		{
			Name: "reader", Doc: "Reads the made-up host's prompts.",
			Labels: []providers.Label{{Name: "owner"}},
			Kinds:  []pipeline.Kind{pipeline.KindUserAgent},
			New:    func(any) (providers.Provider, error) { return reader{}, nil },
		},
	}
}

// TestOptionalInterfaces loads ccski.yaml files for the made-up registry
// and checks each thing the engine learns through an interface.
func TestOptionalInterfaces(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		// want are the ids visible, the owner's folder in the engine's Env
		// and the rule of the reader's root.
		want   []string
		home   string
		prefer pipeline.Location
	}{
		{name: "defaults: the host's order, its folder below the user folder",
			yaml: "{}", home: "home/.owner", prefer: pipeline.LocationUser,
			want: []string{"owner@user:dup", "owner:p"}},
		{name: "precedence project: the engine ranks by the owner's rule, and so does the reader",
			yaml: "providers: {owner: {precedence: project}}", home: "home/.owner", prefer: pipeline.LocationProject,
			want: []string{"owner@project:dup", "owner:p"}},
		{name: "the home option moves the owner's folder and the reader's",
			yaml: "providers: {owner: {home: alt}}", home: "repo/alt", prefer: pipeline.LocationUser,
			want: []string{"owner:dup", "owner:alt-only", "owner:q"}},
		{name: "a disabled owner still gives the reader its folder and rule",
			yaml: "providers: {owner: {enabled: false, home: alt, precedence: project}}", home: "repo/alt",
			prefer: pipeline.LocationProject, want: []string{"owner:q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			testfs.Write(t, base, map[string]string{
				"repo/.git/":                        "",
				"repo/.owner/skills/dup/SKILL.md":   skillMD("dup", "Project copy."),
				"home/.owner/skills/dup/SKILL.md":   skillMD("dup", "User copy."),
				"home/.owner/extra/p/SKILL.md":      skillMD("p", "Read by the reader."),
				"repo/alt/skills/alt-only/SKILL.md": skillMD("alt-only", "In the moved folder."),
				"repo/alt/extra/q/SKILL.md":         skillMD("q", "Read by the reader, moved."),
				"repo/ccski.yaml":                   tt.yaml,
			})
			abs := func(rel string) string { return filepath.Join(base, filepath.FromSlash(rel)) }
			var got []any
			reg := pluginRegistry(&got)
			ld, err := configs.Load(configs.Options{Workspace: abs("repo"), Home: abs("home"), Registry: reg,
				Environ: func() []string { return nil }})
			if err != nil {
				t.Fatal(err)
			}
			cfg := ld.Config
			cfg.Agent = "owner" // a valid agent only because owner is a HostOwner
			e, err := New(cfg, providers.NewEnv(abs("home"), abs("repo"), func(string) string { return "" }))
			if err != nil {
				t.Fatal(err)
			}
			// The factory got the options configs decoded, as they are:
			// the relative home made absolute against ccski.yaml. (configs
			// builds the providers from their defaults, nil, to learn
			// their hosts; the engine builds each once from its options.)
			if len(got) == 0 || got[0] != nil && len(got) != 1 {
				t.Fatalf("the owner's factory got %v", got)
			}
			opts, ok := got[len(got)-1].(*ownerOptions)
			if !ok {
				t.Fatalf("the engine gave the owner's factory %T, want *ownerOptions", got[len(got)-1])
			}
			if want := cfg.Providers["owner"].Options.(*ownerOptions); *opts != *want {
				t.Errorf("the owner's factory got %+v, want the decoded %+v", *opts, *want)
			}
			if opts.Home != "" && opts.Home != abs("repo/alt") {
				t.Errorf("home option = %q, want it resolved against ccski.yaml's folder", opts.Home)
			}

			if d := ownerHome.From(e.Env()); d != abs(tt.home) {
				t.Errorf("the owner's folder in Env = %q, want %q", d, abs(tt.home))
			}
			snap, _ := snapshot(t, e)
			var ids []string
			for _, r := range snap.Visible {
				ids = append(ids, r.ID)
			}
			if d := cmp.Diff(tt.want, ids); d != "" {
				t.Errorf("visible (-want +got):\n%s", d)
			}
			for _, r := range snap.Roots {
				if r.Provider == "reader" && (r.Precedence == nil || r.Precedence.Prefer != tt.prefer) {
					t.Errorf("the reader's root carries %+v, want the owner's rule preferring %s", r.Precedence, tt.prefer)
				}
			}
		})
	}
}

// TestEngineNamesNoProvider is the proof that the engine treats every
// provider alike: no non-test Go file of the engine imports a provider
// package (package providers itself, which declares the
// interfaces, is allowed) or spells the name or label of a registered
// provider as a string literal. A provider that needs something of the
// engine gives it through an optional interface instead.
func TestEngineNamesNoProvider(t *testing.T) {
	names := map[string]bool{}
	for _, e := range all.Registry() {
		names[e.Name] = true
		for _, l := range e.Labels {
			names[l.Name] = true
		}
	}
	const module = "github.com/ccski/ccski/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"providers/"); ok && !strings.HasPrefix(rel, "internal/") {
				t.Errorf("%s imports the provider package %s", path, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil && names[v] {
					t.Errorf("%s names the provider %q", path, v)
				}
			}
			return true
		})
	}
}
