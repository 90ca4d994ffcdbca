package codexplugins

// This file reads Codex marketplaces, the catalogs plugins are installed
// from, to say how to install a plugin that config.toml enables but the
// cache lacks. They are read only then, and each at most once per plan.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/internal/hostfile"
)

// marketplaceManifests are the marketplace files Codex looks for below a
// marketplace root, in order.
var marketplaceManifests = []string{".agents/plugins/marketplace.json", ".claude-plugin/marketplace.json"}

// Folders below the Codex folder where Codex keeps the marketplaces it
// added (`codex plugin marketplace add`) and its curated one.
const (
	addedMarketplacesFolder = ".tmp/marketplaces"
	curatedMarketplaceRoot  = ".tmp/plugins"
)

// marketplace is one readable marketplace file.
type marketplace struct {
	file    string
	name    string
	plugins []string
}

// marketplaces are the marketplaces Codex knows of.
type marketplaces struct {
	list []marketplace
	// looked lists the marketplace roots looked in, for the hint when
	// none matches.
	looked []string
}

// roots returns the marketplace roots Codex reads, in its order: the user
// folder, the workspace and its repository root, the marketplaces added
// with `codex plugin marketplace add`, and the curated one.
func (p *planner) marketplaceRoots() []string {
	roots := []string{p.env.UserDir}
	if p.env.Workspace != "" {
		roots = append(roots, p.env.Workspace)
	}
	if n := len(p.env.WorkspaceDirs); n > 0 {
		roots = append(roots, p.env.WorkspaceDirs[n-1])
	}
	added := filepath.Join(codex.Dir(p.env), filepath.FromSlash(addedMarketplacesFolder))
	if ents, err := os.ReadDir(added); err == nil {
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".") {
				roots = append(roots, filepath.Join(added, e.Name()))
			}
		}
	}
	roots = append(roots, filepath.Join(codex.Dir(p.env), filepath.FromSlash(curatedMarketplaceRoot)))
	var out []string
	for _, r := range roots {
		if r != "" && !slices.Contains(out, filepath.Clean(r)) {
			out = append(out, filepath.Clean(r))
		}
	}
	return out
}

// loadMarketplaces reads every known marketplace once; a malformed one is
// reported and skipped.
func (p *planner) loadMarketplaces() *marketplaces {
	if p.markets != nil {
		return p.markets
	}
	p.markets = &marketplaces{}
	for _, root := range p.marketplaceRoots() {
		p.markets.looked = append(p.markets.looked, root)
		for _, rel := range marketplaceManifests {
			file := filepath.Join(root, filepath.FromSlash(rel))
			p.read(file)
			data, found, err := hostfile.Read(file)
			if !found {
				continue
			}
			if err != nil {
				p.report(pipeline.SeverityWarning, "marketplace-unreadable", file, "cannot read %s: %v",
					filepath.Base(file), err)
				break
			}
			if m, ok := p.decodeMarketplace(file, data); ok {
				p.markets.list = append(p.markets.list, m)
			}
			break // the first manifest found is the root's
		}
	}
	return p.markets
}

// decodeMarketplace decodes a marketplace file: a name and plugins, each
// with a name.
func (p *planner) decodeMarketplace(file string, data []byte) (marketplace, bool) {
	var raw struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name string `json:"name"`
		} `json:"plugins"`
	}
	if err := hostfile.DecodeJSON(data, &raw); err != nil {
		d := pipeline.Diagnostic{Severity: pipeline.SeverityWarning, Code: "marketplace-malformed",
			Provider: Label, Path: file,
			Message: fmt.Sprintf("%s is not a valid marketplace (%v); Codex skips it", filepath.Base(file), err)}
		if se, ok := err.(*hostfile.SyntaxError); ok {
			d.Line = se.Line
		}
		p.diags = append(p.diags, d)
		return marketplace{}, false
	}
	m := marketplace{file: file, name: raw.Name}
	for _, pl := range raw.Plugins {
		if pl.Name != "" {
			m.plugins = append(m.plugins, pl.Name)
		}
	}
	return m, true
}

// installHint says how to install a plugin that is not in the cache.
func (p *planner) installHint(e configEntry) string {
	ms := p.loadMarketplaces()
	var named []marketplace
	for _, m := range ms.list {
		if m.name == e.market {
			named = append(named, m)
		}
	}
	for _, m := range named {
		if slices.Contains(m.plugins, e.plugin) {
			return fmt.Sprintf("install it from marketplace %s (%s) with Codex's /plugins, or `codex plugin add %s`",
				e.market, m.file, e.key)
		}
	}
	if len(named) > 0 {
		return fmt.Sprintf("marketplace %s (%s) does not list a plugin named %s: correct the key or remove the table",
			e.market, named[0].file, e.plugin)
	}
	return fmt.Sprintf("no marketplace named %s was found (looked for %s in %s); add it with `codex plugin marketplace add`",
		e.market, marketplaceManifests[0], strings.Join(ms.looked, ", "))
}
