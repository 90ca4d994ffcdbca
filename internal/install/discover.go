package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/codexplugins"
	"github.com/ccski/ccski/providers/marketplace"
)

// The marketplace files a source folder may hold, Claude's first.
const (
	claudeMarketplace = ".claude-plugin/marketplace.json"
	codexMarketplace  = ".agents/plugins/marketplace.json"
)

// sourceAgent labels the records of a source, so that filter tokens can
// name it (source:pdf).
const sourceAgent = "source"

// Candidate is one skill a source offers.
type Candidate struct {
	// Name is the skill's name: its frontmatter name, else its folder's;
	// the folder it is installed as.
	Name string `json:"name"`
	// Plugin is the plugin that declares it, for a marketplace source.
	Plugin      string `json:"plugin,omitempty"`
	Description string `json:"description,omitempty"`
	// Rel is the skill folder's '/'-separated path in the source ("."
	// for its root).
	Rel string `json:"path"`
	// Dir is the skill folder in the materialised source.
	Dir    string `json:"-"`
	record *pipeline.Record
}

// Offer is what a source offers.
type Offer struct {
	// What says what the source was read as: "skill", "folder of
	// skills", "marketplace NAME" or "Codex marketplace NAME".
	What       string
	Candidates []Candidate
	// Warnings are problems found on the way: unreadable SKILL.md files,
	// plugins whose files are elsewhere, manifest problems.
	Warnings []string
	// Extras are, for a Claude marketplace, its plugins that hold more
	// than skills (hooks, agents, commands, MCP servers), which ccski
	// does not install; Install is left for the caller, who knows the
	// source, to fill.
	Extras []PluginExtras
}

// ExtrasOf returns the extras of the plugins cands come from.
func (o *Offer) ExtrasOf(cands []Candidate) []PluginExtras {
	var out []PluginExtras
	for _, e := range o.Extras {
		if slices.ContainsFunc(cands, func(c Candidate) bool { return c.Plugin == e.Plugin }) {
			out = append(out, e)
		}
	}
	return out
}

// Discover lists the skills of a materialised source whose root is root,
// narrowed to sub (a '/'-separated path inside it: a folder, a SKILL.md or
// a marketplace.json; "" for the root). A folder is read as the
// marketplace it holds (.claude-plugin/marketplace.json, else
// .agents/plugins/marketplace.json), else as one skill when it holds a
// SKILL.md, else as the Agent Plugins package it is (a plugin.json of
// that format, in it or in its one folder: the skills of its skills/,
// see agentplugin.go), else as a folder of skills, searched as discovery searches a
// repository. Each skill is offered once, by its name; a name two skill
// folders share is offered from the first and the other is a warning.
func Discover(ctx context.Context, root, sub string) (*Offer, error) {
	base := root
	if sub != "" {
		base = filepath.Join(root, filepath.FromSlash(sub))
		st, err := os.Stat(base)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("path %s does not exist in the source", sub)
		case err != nil:
			return nil, fmt.Errorf("path %s: %w", sub, err)
		case !st.IsDir():
			switch name := filepath.Base(base); {
			case strings.EqualFold(name, pipeline.SkillFile):
				return scanSkills(ctx, root, "skill", []pipeline.Root{skillRoot(filepath.Dir(base), []string{filepath.Dir(base)}, nil)}, nil)
			case strings.EqualFold(name, "marketplace.json"):
				return readMarketplace(ctx, root, base)
			}
			return nil, fmt.Errorf("path %s in the source is a file but no SKILL.md or marketplace.json", sub)
		}
	}
	var warnings []string
	for _, m := range []string{claudeMarketplace, codexMarketplace} {
		f := filepath.Join(base, filepath.FromSlash(m))
		if !isRegular(f) {
			continue
		}
		mk, err := marketplaceRoots(root, f)
		if err != nil {
			return nil, err
		}
		// A marketplace that offers nothing because its plugin sources
		// are not there is a stale file in what is a folder of skills:
		// walk the folder, and say why.
		if len(mk.roots) > 0 || len(mk.missing) == 0 {
			return mk.offer(ctx, root)
		}
		warnings = append(warnings, fmt.Sprintf("%s %s; read the folder as a folder of skills instead",
			relTo(root, f), mk.missingText()))
		break
	}
	if isRegular(filepath.Join(base, pipeline.SkillFile)) {
		return scanSkills(ctx, root, "skill", []pipeline.Root{skillRoot(base, []string{base}, nil)}, warnings)
	}
	if p, ok, err := agentPluginAt(root, base); err != nil {
		return nil, err
	} else if ok {
		o, err := discoverAgentPlugin(ctx, root, p)
		if o != nil {
			o.Warnings = append(warnings, o.Warnings...)
		}
		return o, err
	}
	r := pipeline.Root{Path: base, Agent: sourceAgent, Provider: sourceAgent, Location: pipeline.LocationCustom,
		Kind: pipeline.KindCustom}
	return scanSkills(ctx, root, "folder of skills", []pipeline.Root{r}, warnings)
}

// skillRoot is a root that reads exactly the skill folders dirs. A
// plugin's skills are named plugin:skill, as the plugin's installed
// skills are, so that a name means the same skill in a source as on the
// machine.
func skillRoot(path string, dirs []string, plugin *pipeline.PluginInfo) pipeline.Root {
	r := pipeline.Root{Path: path, Agent: sourceAgent, Provider: sourceAgent, Location: pipeline.LocationCustom,
		Kind: pipeline.KindCustom, Skills: dirs, Plugin: plugin}
	if plugin != nil {
		r.Prefix = plugin.Plugin
	}
	return r
}

// readMarketplace offers the skills a marketplace file declares: a Codex
// one when it lies in .agents/plugins, else a Claude one.
func readMarketplace(ctx context.Context, root, file string) (*Offer, error) {
	mk, err := marketplaceRoots(root, file)
	if err != nil {
		return nil, err
	}
	return mk.offer(ctx, root)
}

// offer scans the skills the marketplace declares.
func (m marketplaceRead) offer(ctx context.Context, root string) (*Offer, error) {
	o, err := scanSkills(ctx, root, m.what, m.roots, m.warnings)
	if err != nil {
		return nil, err
	}
	o.Extras = m.extras
	return o, nil
}

// marketplaceRead is what a marketplace file declares in a source.
type marketplaceRead struct {
	// what is "marketplace NAME" or "Codex marketplace NAME".
	what string
	// roots read the skill folders of its plugins, one per plugin that
	// has any.
	roots []pipeline.Root
	// missing are the plugins whose source folder does not exist.
	missing  []string
	warnings []string
	// extras are its plugins' parts besides skills (Claude plugins).
	extras []PluginExtras
}

// missingText says which plugin sources do not exist, naming the first
// few.
func (m marketplaceRead) missingText() string {
	names := m.missing
	more := ""
	if len(names) > 5 {
		names, more = names[:5], fmt.Sprintf(", … %d more", len(m.missing)-5)
	}
	noun := "plugin sources that do not exist"
	if len(m.missing) == 1 {
		noun = "plugin source that does not exist"
	}
	return fmt.Sprintf("lists %d %s (%s%s)", len(m.missing), noun, strings.Join(names, ", "), more)
}

// marketplaceRoots reads the marketplace file file of the source at root:
// a Codex one when it lies in .agents/plugins, else a Claude one.
func marketplaceRoots(root, file string) (marketplaceRead, error) {
	var (
		c   providers.Catalog
		err error
		m   marketplaceRead
	)
	codex := filepath.Base(filepath.Dir(file)) == "plugins" && filepath.Base(filepath.Dir(filepath.Dir(file))) == ".agents"
	if codex {
		c, err = codexplugins.ReadCatalog(file)
		m.what = "Codex marketplace "
	} else {
		c, err = marketplace.ReadCatalog(file)
		m.what = "marketplace "
	}
	if err != nil {
		return m, err
	}
	m.what += c.Name
	for _, d := range c.Diagnostics {
		m.warnings = append(m.warnings, d.Message)
	}
	var remote []string
	for _, p := range c.Plugins {
		if p.Remote {
			remote = append(remote, p.Name)
			continue
		}
		if st, err := os.Stat(p.Dir); err != nil || !st.IsDir() {
			m.missing = append(m.missing, p.Name)
			continue
		}
		if !codex && safefile.Within(root, p.Dir) {
			if e := readExtras(p.Dir); !e.Empty() {
				e.Plugin, e.Marketplace = p.Name, c.Name
				m.extras = append(m.extras, e)
			}
		}
		var dirs []string
		for _, d := range p.Skills {
			if safefile.Within(root, d) {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) > 0 {
			m.roots = append(m.roots, skillRoot(p.Dir, dirs, &pipeline.PluginInfo{Plugin: p.Name}))
		}
	}
	if len(remote) > 0 {
		m.warnings = append(m.warnings, fmt.Sprintf("%s lists plugins whose files are elsewhere (%s): install them from their own repositories",
			m.what, strings.Join(remote, ", ")))
	}
	if len(m.missing) > 0 {
		m.warnings = append(m.warnings, fmt.Sprintf("%s %s", relTo(root, file), m.missingText()))
	}
	return m, nil
}

// scanSkills reads the frontmatter of the skills of roots and offers them.
func scanSkills(ctx context.Context, root, what string, roots []pipeline.Root, warnings []string) (*Offer, error) {
	opt := scan.DefaultOptions()
	opt.Hidden, opt.NoCache = true, true
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", root, err)
	}
	if realRoot, err = filepath.Abs(realRoot); err != nil {
		return nil, fmt.Errorf("source %s: %w", root, err)
	}
	opt.Within = realRoot
	res := scan.Scan(ctx, roots, opt)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := &Offer{What: what, Warnings: warnings}
	for _, d := range res.Diagnostics {
		if d.Severity != pipeline.SeverityInfo && d.Code != "root-missing" {
			o.Warnings = append(o.Warnings, relTo(root, d.Path)+": "+d.Message)
		}
	}
	seen := map[string]string{}
	for _, r := range res.Records {
		if r.IsCommand() || r.Disabled {
			continue
		}
		if real, err := filepath.EvalSymlinks(r.Dir); err != nil || !safefile.Within(realRoot, real) {
			o.Warnings = append(o.Warnings, relTo(root, r.Dir)+": leads outside the source through a symlink; left out")
			continue
		}
		rel := "."
		if p, err := filepath.Rel(root, r.Dir); err == nil && p != "." {
			rel = filepath.ToSlash(p)
		}
		c := Candidate{Name: r.ShortName(), Description: r.Description, Dir: r.Dir, Rel: rel, record: r}
		if r.Plugin != nil {
			c.Plugin = r.Plugin.Plugin
		}
		if first, dup := seen[c.Name]; dup {
			if first != rel {
				o.Warnings = append(o.Warnings, fmt.Sprintf("skill %s is in %s and in %s; %s is offered (pick the other with --path)",
					c.Name, first, rel, first))
			}
			continue
		}
		seen[c.Name] = rel
		o.Candidates = append(o.Candidates, c)
	}
	slices.SortStableFunc(o.Candidates, func(a, b Candidate) int { return strings.Compare(a.Name, b.Name) })
	if len(o.Candidates) == 0 {
		msg := "no skill found in the source (" + what + ")"
		if len(o.Warnings) > 0 {
			msg += ": " + strings.Join(o.Warnings, "; ")
		}
		return nil, errors.New(msg)
	}
	return o, nil
}

// relTo writes path relative to root when it lies below it.
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// isRegular reports whether path is a regular file (following symlinks).
func isRegular(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
