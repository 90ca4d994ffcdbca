package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/testfs"
)

// catalogueTree is a machine with a few hundred skills, laid out as a real
// Claude Code install: plugins of very different sizes installed from
// marketplaces into ~/.claude/plugins/cache and enabled in settings.json,
// user skills of Claude, Codex and the shared .agents folder, and a
// project with its own .claude/skills.
type catalogueTree struct {
	home, workspace string
	// state, when set, is XDG_STATE_HOME, where the count of skill loads
	// is kept: a test sets it to start a count of its own.
	state string
	// plugins maps each plugin name to its number of skills.
	plugins map[string]int
}

// cataloguePlugins are the plugins of the tree: name, marketplace, skills.
var cataloguePlugins = []struct {
	name, market string
	skills       int
}{
	{"scientific-skills", "claude-scientific-skills", 150},
	{"superpowers", "superpowers-marketplace", 20},
	{"document-skills", "anthropic-agent-skills", 16},
	{"example-skills", "anthropic-agent-skills", 12},
	{"ship-mate", "ship-market", 6},
	{"conductor", "ship-market", 3},
}

// catalogueLocal are the local skill folders of the tree (relative to the
// root) and how many skills each holds.
var catalogueLocal = []struct {
	dir, prefix string
	skills      int
}{
	{"work/repo/.claude/skills", "repo", 12},
	{"home/.claude/skills", "personal", 30},
	{"home/.agents/skills", "shared", 20},
	{"home/.codex/skills", "codex", 45},
}

func newCatalogueTree(t *testing.T) *catalogueTree {
	t.Helper()
	registerSourcesOnce(t)
	root := t.TempDir()
	tr := &catalogueTree{home: filepath.Join(root, "home"), workspace: filepath.Join(root, "work", "repo"),
		plugins: map[string]int{}}
	files := map[string]string{"work/repo/.git/": ""}
	skill := func(dir, name string, i int) {
		desc := fmt.Sprintf("Use when the user asks about %s. A realistic description of what the skill does, "+
			"which inputs it expects and which steps it follows, number %d.", strings.ReplaceAll(name, "-", " "), i)
		files[dir+"/"+name+"/SKILL.md"] = fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n# %s\n\nSteps.\n", name, desc, name)
	}
	for _, l := range catalogueLocal {
		for i := range l.skills {
			skill(l.dir, fmt.Sprintf("%s-skill-%03d", l.prefix, i), i)
		}
	}
	installed := map[string]any{}
	enabled := map[string]bool{}
	known := map[string]any{}
	markets := map[string][]map[string]string{}
	for _, p := range cataloguePlugins {
		key := p.name + "@" + p.market
		dir := fmt.Sprintf("home/.claude/plugins/cache/%s/%s/1.0.0", p.market, p.name)
		files[dir+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q, "version": "1.0.0"}`, p.name)
		for i := range p.skills {
			skill(dir+"/skills", fmt.Sprintf("%s-skill-%03d", strings.Split(p.name, "-")[0], i), i)
		}
		installed[key] = []any{map[string]any{"scope": "user", "installPath": filepath.Join(root, filepath.FromSlash(dir)),
			"version": "1.0.0", "installedAt": "2025-01-01T00:00:00.000Z", "lastUpdated": "2025-01-01T00:00:00.000Z"}}
		enabled[key] = true
		known[p.market] = map[string]any{"source": map[string]string{"source": "github", "repo": "example/" + p.market},
			"installLocation": filepath.Join(tr.home, ".claude", "plugins", "marketplaces", p.market),
			"lastUpdated":     "2025-01-01T00:00:00.000Z"}
		markets[p.market] = append(markets[p.market], map[string]string{"name": p.name, "source": "./plugins/" + p.name})
		tr.plugins[p.name] = p.skills
	}
	for m, plugins := range markets {
		files["home/.claude/plugins/marketplaces/"+m+"/.claude-plugin/marketplace.json"] =
			mustJSON(t, map[string]any{"name": m, "owner": map[string]string{"name": m}, "plugins": plugins})
	}
	files["home/.claude/plugins/installed_plugins.json"] = mustJSON(t, map[string]any{"version": 2, "plugins": installed})
	files["home/.claude/plugins/known_marketplaces.json"] = mustJSON(t, known)
	files["home/.claude/settings.json"] = mustJSON(t, map[string]any{"enabledPlugins": enabled})
	testfs.Write(t, root, files)
	return tr
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// env is the environment ccski runs in on the tree: HOME is its home.
func (tr *catalogueTree) env() []string {
	vars := []string{"HOME=" + tr.home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	if tr.state != "" {
		vars = append(vars, "XDG_STATE_HOME="+tr.state)
	}
	return vars
}

// serve starts `ccski mcp` on the tree over stdio, with extra arguments,
// and connects a client with protocol setting pv.
func (tr *catalogueTree) serve(t *testing.T, ctx context.Context, pv string, args ...string) (*sdk.ClientSession, *lockedBuffer) {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, append([]string{"mcp", "--user-dir", tr.home, "--refresh-interval", "1h"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stderr = tr.workspace, tr.env(), stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "catalogue-test", Version: "0"}, nil).Connect(ctx,
		&sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, &sdk.ClientSessionOptions{ProtocolVersion: pv})
	if err != nil {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		t.Fatalf("connect (protocol %q): %v\nstderr:\n%s", pv, err, stderr)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}

var nameElem = regexp.MustCompile(`<name>([^<]*)</name>`)

// catalogueNames returns the skill names a skill tool description lists:
// those of its <skill> entries and of its <skill_names> lines.
func catalogueNames(desc string) []string {
	_, block, _ := strings.Cut(desc, "<available_skills>")
	block, _, _ = strings.Cut(block, "</available_skills>")
	unescape := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&")
	var out []string
	for _, m := range nameElem.FindAllStringSubmatch(block, -1) {
		out = append(out, unescape.Replace(m[1]))
	}
	if _, lines, ok := strings.Cut(block, "<skill_names>\n"); ok {
		lines, _, _ = strings.Cut(lines, "</skill_names>")
		for line := range strings.SplitSeq(strings.TrimSuffix(lines, "\n"), "\n") {
			name, _, _ := strings.Cut(line, " — ")
			out = append(out, unescape.Replace(name))
		}
	}
	return out
}

// TestCatalogueNamesEveryPlugin is issue 9's regression: at the default
// budget, the skill tool's description of a machine with a few hundred
// skills names skills of every plugin and every provider, and far more
// skills than fit as full entries; each name it lists loads.
func TestCatalogueNamesEveryPlugin(t *testing.T) {
	tr := newCatalogueTree(t)
	list := runBinary(t, tr.workspace, tr.env(), "list", "--json", "--kind", "skill", "--user-dir", tr.home)
	if list.code != 0 {
		t.Fatalf("list: %s", list)
	}
	var visible []record
	if err := json.Unmarshal([]byte(list.stdout), &visible); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, p := range cataloguePlugins {
		total += p.skills
	}
	for _, l := range catalogueLocal {
		total += l.skills
	}
	if len(visible) != total {
		srcs := runBinary(t, tr.workspace, tr.env(), "sources", "--user-dir", tr.home)
		t.Fatalf("ccski list shows %d skills, the tree has %d:\n%s\n%s", len(visible), total, list.stderr, srcs.stdout)
	}
	// The default budget, under both protocol eras, and a tight one that
	// cannot name every skill.
	cases := []struct {
		name, pv string
		budget   int
		atLeast  int
	}{
		{"default/" + protocols[0].name, protocols[0].version, 16000, 150},
		{"default/" + protocols[1].name, protocols[1].version, 16000, 150},
		{"tight", "", 6000, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr.state = t.TempDir() // no loads counted: the order of the groups alone
			ctx := mcpContext(t)
			var args []string
			if c.budget != 16000 {
				args = []string{"--catalog", fmt.Sprint(c.budget)}
			}
			cs, stderr := tr.serve(t, ctx, c.pv, args...)
			tools := toolsByName(t, ctx, cs)
			if tools["skill"] == nil || tools["skills_search"] == nil {
				t.Fatalf("tools %v, want skill and the automatic skills_search\nstderr:\n%s", keys(tools), stderr)
			}
			desc := tools["skill"].Description
			if n := utf8.RuneCountInString(desc); n > c.budget {
				t.Errorf("description is %d characters, over the budget of %d", n, c.budget)
			}
			names := catalogueNames(desc)
			t.Logf("%d of %d skills named in %d characters", len(names), len(visible), utf8.RuneCountInString(desc))
			byID := map[string]record{}
			for _, r := range visible {
				byID[r.ID] = r
			}
			// Each name loads, and the names load distinct visible skills.
			loaded := loadedIDs(t, ctx, cs, names)
			seen := map[string]string{}
			perGroup := map[string]int{}
			for _, n := range names {
				r, ok := byID[loaded[n]]
				if !ok {
					t.Fatalf("the description lists %q, which loads %s, no visible skill", n, loaded[n])
				}
				if other, dup := seen[r.ID]; dup {
					t.Fatalf("the description lists %q and %q, which load the same skill %s", other, n, r.ID)
				}
				seen[r.ID] = n
				if r.PluginInfo != nil {
					perGroup["plugin "+r.PluginInfo.PluginName]++
				} else {
					perGroup["provider "+r.Provider+" "+r.Location]++
				}
			}
			// Before issue 9, about 50 full entries fitted at the default
			// budget, all of them local skills: no plugin was named.
			if len(names) < c.atLeast {
				t.Errorf("%d of %d skills named; want at least %d", len(names), len(visible), c.atLeast)
			}
			for _, pl := range cataloguePlugins {
				if perGroup["plugin "+pl.name] == 0 {
					t.Errorf("no skill of plugin %s (%d skills) is named; named per group: %v", pl.name, pl.skills, perGroup)
				}
			}
			for _, g := range []string{"provider claude project", "provider claude user", "provider agents user", "provider codex user"} {
				if perGroup[g] == 0 {
					t.Errorf("no skill of %s is named; named per group: %v", g, perGroup)
				}
			}
			if left := len(visible) - len(names); left > 0 &&
				!strings.Contains(desc, fmt.Sprintf("%d more skills are installed but not listed above", left)) {
				t.Errorf("%d skills left out, but the note does not say so", left)
			}

		})
	}
}

// loadedIDs loads every name and returns the id of the skill each loads
// (the "Loading:" line of the tool's result), failing t for a name that
// does not load.
func loadedIDs(t *testing.T, ctx context.Context, cs *sdk.ClientSession, names []string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(names))
	for _, n := range names {
		text, err := loadSkill(ctx, cs, n)
		if err != nil {
			t.Fatalf("the description lists %q, which does not load: %v", n, err)
		}
		line, _, _ := strings.Cut(text, "\n")
		id, ok := strings.CutPrefix(line, "Loading: ")
		if !ok {
			t.Fatalf("loading %q gave %.60q", n, text)
		}
		out[n] = id
	}
	return out
}
