package integration

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/integration/machine"
)

// recordKeys are the documented keys of a skill record; plugin skills also
// have pluginInfo, and only they.
var recordKeys = []string{"description", "disabled", "file", "hasAssets", "hasReferences", "hasScripts",
	"id", "location", "name", "path", "provider", "signature", "type", "uri"}

var pluginInfoKeys = []string{"marketplace", "pluginName", "version"}

// Ids of the default list: one copy of each enabled skill, per fully
// qualified name (the plugin's doc-tools:pdf and the scoped docs:pdf are
// not copies of pdf).
var defaultIDs = []string{
	"agents:bom-skill",
	"agents:changelog",
	"agents:linked-skill",
	"agents@project:shared-notes",
	"agents@project:team-notes",
	"claude:@design-tools:canvas",
	"claude:@doc-tools:pdf-forms",
	"claude:@doc-tools:xlsx",
	"claude:@lint-kit:lint-fix",
	"claude:@lint-kit:lint-rules",
	"claude:commit-helper",
	"claude:repo-guide",
	"claude:use-when",
	"claude:xlsx",
	"claude@user:pdf",
	"codex:codex-bundled",
	"codex:crlf-notes",
	"codex:format-code",
	"codex:sys-audit",
	"cursor:cursor-rules",
	"custom:docs:pdf",
	"custom:docs:style-guide",
	"gemini:review",
	"project:deploy",
}

// Ids that only --all adds: the other copies and the disabled skill. The
// second path to team-notes stays hidden (same folder).
var allOnlyIDs = []string{
	"agents:old-helper",
	"agents@project:team-notes#2", // the same folder as agents@project:team-notes, through a link
	"agents@user:shared-notes",
	"claude@project:pdf",
	"codex:pdf",
	"codex:review",
	"gemini:format-code",
}

// Names that must never appear in any output: the marketplace skill no
// plugin declares and the broken skills. (Codex's bundled .system skill is
// listed, as a Codex system skill: see TestCodexSystemSkills.)
var neverListed = []string{"unused-skill", "bad-yaml", "no-description", "utf8-bad"}

// neverServed adds to neverListed the skill of the plugin the workspace
// disables: list --all, --disabled and search show it as off, with the
// command that turns it on, but no server serves it.
var neverServed = append(slices.Clone(neverListed), "legacy-report")

type record struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Alias       string `json:"alias"`
	Provider    string `json:"provider"`
	Location    string `json:"location"`
	Path        string `json:"path"`
	File        string `json:"file"`
	Disabled    bool   `json:"disabled"`
	Description string `json:"description"`
	URI         string `json:"uri"`
	Unlisted    string `json:"unlisted"`
	LinkedTo    string `json:"linkedTo"`
	PluginInfo  *struct {
		PluginName  string `json:"pluginName"`
		Marketplace string `json:"marketplace"`
		Version     string `json:"version"`
	} `json:"pluginInfo"`
}

func listRecords(t *testing.T, m *machine.Machine, args ...string) []record {
	t.Helper()
	r := run(t, m, append([]string{"list", "--json"}, args...)...)
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	return recs
}

func ids(recs []record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	sort.Strings(out)
	return out
}

func sorted(lists ...[]string) []string {
	out := slices.Concat(lists...)
	sort.Strings(out)
	return out
}

func TestListJSONShape(t *testing.T) {
	m := newMachine(t)
	r := run(t, m, "list", "--json")
	mustOK(t, r)
	if r.stderr != "" {
		t.Errorf("list --json wrote to stderr although it succeeded:\n%s", r.stderr)
	}
	var raw []map[string]json.RawMessage
	decodeOnly(t, r, &raw)
	plugins := 0
	for _, rec := range raw {
		keys := slices.Sorted(maps.Keys(rec))
		var provider, location, typ string
		_ = json.Unmarshal(rec["provider"], &provider)
		_ = json.Unmarshal(rec["location"], &location)
		_ = json.Unmarshal(rec["type"], &typ)
		if typ != "skill" {
			t.Errorf("%s has type %q; the machine holds skills only", rec["id"], typ)
		}
		want := recordKeys
		if location == "plugin" {
			plugins++
			want = sorted(recordKeys, []string{"pluginInfo"})
			var info map[string]json.RawMessage
			if err := json.Unmarshal(rec["pluginInfo"], &info); err != nil {
				t.Errorf("pluginInfo of %s is not an object: %v", rec["id"], err)
			}
			if diff := cmp.Diff(pluginInfoKeys, slices.Sorted(maps.Keys(info))); diff != "" {
				t.Errorf("pluginInfo keys of %s (-want +got):\n%s", rec["id"], diff)
			}
			if provider != "claude" {
				t.Errorf("plugin skill %s has provider %q, want claude", rec["id"], provider)
			}
		}
		if _, ok := rec["alias"]; ok { // its other name, folder or frontmatter
			want = sorted(want, []string{"alias"})
		}
		if _, ok := rec["unlisted"]; ok { // why skills/list leaves it out
			want = sorted(want, []string{"unlisted"})
		}
		if location == "plugin" || location == "project" { // the trust store's state of its files
			want = sorted(want, []string{"integrity"})
		}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("keys of %s (-want +got):\n%s", rec["id"], diff)
		}
	}
	if plugins == 0 {
		t.Error("no plugin skill in list --json")
	}

	var recs []record
	decodeOnly(t, r, &recs)
	if diff := cmp.Diff(defaultIDs, ids(recs)); diff != "" {
		t.Errorf("ids of list --json (-want +got):\n%s", diff)
	}
	for _, rec := range recs {
		if !strings.HasPrefix(rec.File, rec.Path+string(filepath.Separator)) {
			t.Errorf("%s: file %s is not in path %s", rec.ID, rec.File, rec.Path)
		}
	}
}

func TestListAll(t *testing.T) {
	m := newMachine(t)
	recs := listRecords(t, m, "--all")
	if diff := cmp.Diff(sorted(defaultIDs, allOnlyIDs), ids(recs)); diff != "" {
		t.Errorf("ids of list --json --all (-want +got):\n%s", diff)
	}
	// Each plugin sharing the demo-market folder is credited with its own
	// skills only, at the version of its active install.
	plugins := map[string]string{}
	for _, r := range recs {
		if r.PluginInfo != nil {
			plugins[r.Name] = r.PluginInfo.PluginName + "@" + r.PluginInfo.Marketplace + " " + r.PluginInfo.Version
		}
	}
	want := map[string]string{
		"design-tools:canvas": "design-tools@demo-market 2.0.0",
		"doc-tools:pdf-forms": "doc-tools@demo-market 2.1.0", // the project install wins over the user one
		"doc-tools:xlsx":      "doc-tools@demo-market 2.1.0",
		"lint-kit:lint-fix":   "lint-kit@tool-market 1.2.0",
		"lint-kit:lint-rules": "lint-kit@tool-market 1.2.0",
	}
	if diff := cmp.Diff(want, plugins); diff != "" {
		t.Errorf("plugin skills (-want +got):\n%s", diff)
	}

	// The text list shows the same ids, and the skill of the disabled
	// plugin, which has no record, with the command that turns it on.
	text := run(t, m, "list", "--all")
	mustOK(t, text)
	if diff := cmp.Diff(sorted(ids(recs), []string{"claude:@legacy-tools:legacy-report"}), textIDs(text.stdout)); diff != "" {
		t.Errorf("ids of list --all text vs JSON (-json +text):\n%s", diff)
	}
}

var textIDLine = regexp.MustCompile(`(?m)^  - (\S+)`)

// textIDs returns the sorted ids of a text list.
func textIDs(out string) []string {
	var ids []string
	for _, m := range textIDLine.FindAllStringSubmatch(out, -1) {
		ids = append(ids, m[1])
	}
	sort.Strings(ids)
	return ids
}

func TestPluginsV1File(t *testing.T) {
	m := newMachine(t)
	recs := listRecords(t, m, "--include=@plugins", "--claude-plugins-file", m.PluginsV1)
	got := map[string]string{}
	for _, r := range recs {
		if r.PluginInfo == nil {
			t.Errorf("--include=@plugins listed %s, which is no plugin skill", r.ID)
			continue
		}
		got[r.ID] = r.PluginInfo.Version
	}
	want := map[string]string{
		"claude:@design-tools:canvas": "1.0.0",
		"claude:@doc-tools:pdf-forms": "1.0.0",
		"claude:@doc-tools:xlsx":      "1.0.0",
		"claude:@lint-kit:lint-fix":   "1.2.0", // plugin.json's version
		"claude:@lint-kit:lint-rules": "1.2.0",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plugin skills from the v1 file (-want +got):\n%s", diff)
	}
}

func TestNeverListed(t *testing.T) {
	m := newMachine(t)
	for _, args := range [][]string{{"list", "--all"}, {"list", "--all", "--json"}, {"search", "--limit=0", "skill"}} {
		r := run(t, m, args...)
		mustOK(t, r)
		for _, name := range neverListed {
			if strings.Contains(r.stdout, name) {
				t.Errorf("ccski %s shows %q:\n%s", strings.Join(args, " "), name, r.stdout)
			}
		}
	}
}

// TestEveryIDResolves checks the README's promise that every id resolves
// back to exactly its skill, whatever the filters hide.
func TestEveryIDResolves(t *testing.T) {
	m := newMachine(t)
	recs := listRecords(t, m, "--all")
	filterSets := [][]string{
		{"--all"},
		nil,
		{"--include=@plugins"},
		{"--include=codex"},
		{"--disabled"},
		{"--no-plugins"},
	}
	for _, rec := range recs {
		for _, filters := range append(filterSets, []string{"--exclude=" + rec.ID}) {
			args := append([]string{"info", rec.ID, "--json"}, filters...)
			r := run(t, m, args...)
			if r.code != 0 {
				if slices.Contains(filters, "--no-plugins") && rec.PluginInfo != nil {
					continue // not discovered at all
				}
				t.Errorf("id %s from list --all does not resolve with %v:\n%s", rec.ID, filters, r)
				continue
			}
			var got record
			decodeOnly(t, r, &got)
			if got.ID != rec.ID || got.File != rec.File {
				t.Errorf("info %s %v gave %s (%s), want %s (%s)", rec.ID, filters, got.ID, got.File, rec.ID, rec.File)
			}
		}
	}
}

func TestInfo(t *testing.T) {
	m := newMachine(t)

	var head struct {
		record
		Hidden    string `json:"hidden"`
		Content   string `json:"content"`
		Truncated bool   `json:"truncated"`
		Size      int64  `json:"size"`
	}
	r := run(t, m, "info", "commit-helper", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &head)
	if head.ID != "claude:commit-helper" || !head.Truncated || head.Hidden != "" {
		t.Errorf("info commit-helper --json: id %q truncated %v hidden %q", head.ID, head.Truncated, head.Hidden)
	}
	if n := strings.Count(head.Content, "\n"); n != 20 {
		t.Errorf("preview holds %d lines, want 20", n)
	}

	var full = head
	r = run(t, m, "info", "commit-helper", "--json", "--full")
	mustOK(t, r)
	decodeOnly(t, r, &full)
	if full.Truncated || int64(len(full.Content)) != full.Size || !strings.HasPrefix(full.Content, head.Content) {
		t.Errorf("info --full: truncated %v, %d bytes of %d", full.Truncated, len(full.Content), full.Size)
	}

	text := run(t, m, "info", "commit-helper")
	mustOK(t, text)
	for _, want := range []string{"claude:commit-helper\n", "Resources:  references/ scripts/ assets/", "Status:     visible", "use --full"} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("info commit-helper lacks %q:\n%s", want, text.stdout)
		}
	}

	// Names other than ids.
	for name, want := range map[string]string{
		"CLAUDE:COMMIT-HELPER": "claude:commit-helper", // case-insensitive
		"doc-tools:xlsx":       "claude:@doc-tools:xlsx",
		"@doc-tools:xlsx":      "claude:@doc-tools:xlsx",
		"docs:style-guide":     "custom:docs:style-guide",
		"review":               "gemini:review",
		"codex:review":         "codex:review", // hidden copy
	} {
		var got record
		r := run(t, m, "info", name, "--json")
		mustOK(t, r)
		decodeOnly(t, r, &got)
		if got.ID != want {
			t.Errorf("info %s resolved to %s, want %s", name, got.ID, want)
		}
	}

	// A hidden copy is shown with the reason.
	r = run(t, m, "info", "codex:review", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &head)
	if head.Hidden != "shadowed by gemini:review (newer file)" {
		t.Errorf("hidden reason of codex:review: %q", head.Hidden)
	}
	text = run(t, m, "info", "codex:review")
	if !strings.Contains(text.stdout, "Status:     hidden: shadowed by gemini:review (newer file)") {
		t.Errorf("info codex:review lacks the hidden status:\n%s", text)
	}
}

func TestSearch(t *testing.T) {
	m := newMachine(t)
	type hit struct {
		record
		Score   int    `json:"score"`
		Snippet string `json:"snippet"`
	}
	var hits []hit
	r := run(t, m, "search", "notes", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &hits)
	var got []string
	for _, h := range hits {
		got = append(got, h.ID)
		if h.Score <= 0 {
			t.Errorf("%s has score %d", h.ID, h.Score)
		}
	}
	sort.Strings(got)
	if diff := cmp.Diff([]string{"agents@project:shared-notes", "agents@project:team-notes", "codex:crlf-notes"}, got); diff != "" {
		t.Errorf("search notes (-want +got):\n%s", diff)
	}

	r = run(t, m, "search", "notes", "--json", "--limit", "1")
	mustOK(t, r)
	decodeOnly(t, r, &hits)
	if len(hits) != 1 {
		t.Errorf("--limit 1 gave %d hits", len(hits))
	}

	// Words only in the body need --content.
	r = run(t, m, "search", "describe", "change", "--json")
	mustOK(t, r)
	decodeOnly(t, r, &hits)
	if len(hits) != 0 {
		t.Errorf("search without --content matched bodies: %v", hits)
	}
	r = run(t, m, "search", "describe", "change", "--json", "--content")
	mustOK(t, r)
	decodeOnly(t, r, &hits)
	if len(hits) != 1 || hits[0].ID != "claude:commit-helper" || !strings.Contains(hits[0].Snippet, "describe change") {
		t.Errorf("search --content: %+v", hits)
	}

	text := run(t, m, "search", "canvas")
	mustOK(t, text)
	if !strings.Contains(text.stdout, "- claude:@design-tools:canvas  (plugin)") {
		t.Errorf("search canvas:\n%s", text)
	}
}

type sourcesOut struct {
	Roots []struct {
		Path       string          `json:"path"`
		Provider   string          `json:"provider"`
		Kind       string          `json:"kind"`
		Location   string          `json:"location"`
		Exists     bool            `json:"exists"`
		Skills     int             `json:"skills"`
		PluginInfo json.RawMessage `json:"pluginInfo"`
	} `json:"roots"`
	Diagnostics []struct {
		Severity string `json:"severity"`
		Code     string `json:"code"`
		Path     string `json:"path"`
		Line     int    `json:"line"`
		Message  string `json:"message"`
	} `json:"diagnostics"`
	Hidden []struct {
		ID     string `json:"id"`
		File   string `json:"file"`
		Stage  string `json:"stage"`
		Reason string `json:"reason"`
		By     string `json:"by"`
	} `json:"hidden"`
	Discovered int `json:"discovered"`
	Visible    int `json:"visible"`
}

func TestSourcesJSON(t *testing.T) {
	m := newMachine(t)
	r := run(t, m, "sources", "--json")
	mustOK(t, r)
	var s sourcesOut
	decodeOnly(t, r, &s)
	rel := func(p string) string { return strings.TrimPrefix(filepath.ToSlash(m.Replace(p)), "$MACHINE/") }

	type rootKey struct{ path, provider, plugin string }
	roots := map[rootKey]string{}
	for _, root := range s.Roots {
		plugin := ""
		if root.PluginInfo != nil {
			var pi struct {
				PluginName string `json:"pluginName"`
			}
			_ = json.Unmarshal(root.PluginInfo, &pi)
			plugin = pi.PluginName
		}
		state := "missing"
		if root.Exists {
			state = strings.Repeat("*", root.Skills)
		}
		roots[rootKey{rel(root.Path), root.Provider, plugin}] = root.Kind + " " + state
	}
	for key, want := range map[rootKey]string{
		{"extra/docs", "custom", ""}:                                                           "custom **",
		{"work/repo/tools/skills", "project", ""}:                                              "project *",
		{"work/repo/.claude/skills", "claude", ""}:                                             "workspace-agent **",
		{"home/.claude/skills", "claude", ""}:                                                  "user-agent ****",
		{"home/.codex/skills", "codex", ""}:                                                    "user-agent ****",
		{"home/.codex/skills/.system", "codex", ""}:                                            "system *",
		{"work/repo/.codex/skills", "codex", ""}:                                               "workspace-agent missing",
		{"etc/codex/skills", "codex", ""}:                                                      "system *",
		{"work/repo/.cursor/skills", "cursor", ""}:                                             "workspace-agent *",
		{"work/repo/.agents/skills", "agents", ""}:                                             "workspace-shared **",
		{"work/repo/skills", "agents", ""}:                                                     "workspace-root **",
		{"home/.gemini/skills", "gemini", ""}:                                                  "user-agent **",
		{"home/.agents/skills", "agents", ""}:                                                  "user-shared ****",
		{"home/.claude/plugins/marketplaces/demo-market", "claude", "doc-tools"}:               "plugin **",
		{"home/.claude/plugins/marketplaces/demo-market", "claude", "design-tools"}:            "plugin *",
		{"home/.claude/plugins/cache/tool-market/lint-kit/1.2.0", "claude", "lint-kit"}:        "plugin *", // declared in plugin.json
		{"home/.claude/plugins/cache/tool-market/lint-kit/1.2.0/skills", "claude", "lint-kit"}: "plugin *", // its skills/ folder, walked
	} {
		if got := roots[key]; got != want {
			t.Errorf("root %v: got %q, want %q", key, got, want)
		}
	}
	for key := range roots {
		if key.plugin == "legacy-tools" || key.plugin == "proj-only" {
			t.Errorf("plugin %s is planned although it is not active here", key.plugin)
		}
	}

	type diagKey struct{ code, path string }
	diags := map[diagKey]int{}
	for _, d := range s.Diagnostics {
		diags[diagKey{d.Code, rel(d.Path)}] = d.Line
		if d.Message == "" || d.Severity == "" {
			t.Errorf("diagnostic without severity or message: %+v", d)
		}
	}
	for key, line := range map[diagKey]int{
		{"yaml-syntax", "home/.claude/skills/bad-yaml/SKILL.md"}:                2,
		{"description-missing", "home/.claude/skills/no-description/SKILL.md"}:  2,
		{"invalid-utf8", "home/.agents/skills/utf8-bad/SKILL.md"}:               2,
		{"unquoted-colon", "home/.claude/skills/use-when/SKILL.md"}:             3,
		{"byte-order-mark", "home/.agents/skills/bom-skill/SKILL.md"}:           1,
		{"broken-symlink", "home/.codex/skills/cycle"}:                          0,
		{"symlink-loop", "home/.agents/skills/loop/back"}:                       0,
		{"plugin-disabled", "work/repo/.claude/settings.json"}:                  0,
		{"plugin-other-project", "home/.claude/plugins/installed_plugins.json"}: 0,
	} {
		got, ok := diags[key]
		switch {
		case !ok:
			t.Errorf("no diagnostic %v", key)
		case got != line:
			t.Errorf("diagnostic %v at line %d, want %d", key, got, line)
		}
	}
	for key := range diags {
		if strings.HasSuffix(key.path, "crlf-notes/SKILL.md") {
			t.Errorf("CRLF line endings gave a diagnostic: %v", key)
		}
	}

	hidden := map[string]string{}
	for _, h := range s.Hidden {
		hidden[h.ID] = h.Stage + ": " + h.Reason
		if h.File == "" {
			t.Errorf("hidden %s has no file", h.ID)
		}
	}
	for id, want := range map[string]string{
		"agents:old-helper":           `state: disabled (its file is .SKILL.md); use state "disabled" or "all" to see it`,
		"codex:review":                "include: shadowed by gemini:review (newer file)",
		"gemini:format-code":          "include: shadowed by codex:format-code (provider order: codex before gemini)",
		"claude@project:pdf":          "include: shadowed by claude@user:pdf (Claude Code ranks personal over project (providers.claude.precedence: user))",
		"agents@project:team-notes#2": "include: shadowed by agents@project:team-notes (higher priority: workspace-shared over workspace-root)",
	} {
		if got := hidden[id]; got != want {
			t.Errorf("hidden %s: got %q, want %q", id, got, want)
		}
	}
	if s.Discovered != len(defaultIDs)+len(allOnlyIDs) || s.Visible != len(defaultIDs) {
		t.Errorf("discovered %d, visible %d; want %d and %d", s.Discovered, s.Visible,
			len(defaultIDs)+len(allOnlyIDs), len(defaultIDs))
	}
	if s.Discovered != s.Visible+len(s.Hidden) {
		t.Errorf("%d discovered but %d visible and %d hidden: a skill was dropped silently",
			s.Discovered, s.Visible, len(s.Hidden))
	}

	// With --all the second path to team-notes is hidden by path dedupe.
	r = run(t, m, "sources", "--json", "--all")
	mustOK(t, r)
	decodeOnly(t, r, &s)
	if len(s.Hidden) != 1 || s.Hidden[0].ID != "agents@project:team-notes#2" || s.Hidden[0].Stage != "path-dedupe" ||
		s.Hidden[0].By != "agents@project:team-notes" {
		t.Errorf("sources --all hidden: %+v", s.Hidden)
	}
}

func TestConfigJSON(t *testing.T) {
	m := newMachine(t)
	r := ccski(t, m, runOpts{env: map[string]string{"CCSKI_MCP__PORT": "4000"}},
		"config", "--json", "--log-level", "debug", "--user-dir", m.Home)
	mustOK(t, r)
	var c struct {
		Config struct {
			SkillDirs []string `json:"skill_dirs"`
			UserDir   string   `json:"user_dir"`
			MCP       struct {
				Port            int    `json:"port"`
				LogLevel        string `json:"log_level"`
				RefreshInterval string `json:"refresh_interval"`
			} `json:"mcp"`
			Limits struct {
				MaxDirs int `json:"max_dirs"`
			} `json:"limits"`
		} `json:"config"`
		Sources map[string]string `json:"sources"`
		Files   []string          `json:"files"`
	}
	decodeOnly(t, r, &c)
	project := filepath.Join(m.Workspace, "ccski.yaml")
	user := filepath.Join(m.Home, ".config", "ccski", "config.yaml")
	if diff := cmp.Diff([]string{user, project}, c.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	for key, want := range map[string]string{
		"skill_dirs":                  "project config " + project,
		"providers.codex.system_dirs": "user config " + user,
		"limits.max_dirs":             "user config " + user,
		"mcp.port":                    "env CCSKI_MCP__PORT",
		"mcp.log_level":               "flag --log-level",
		"user_dir":                    "flag --user-dir",
		"state":                       "default",
	} {
		if got := c.Sources[key]; got != want {
			t.Errorf("source of %s: %q, want %q", key, got, want)
		}
	}
	if diff := cmp.Diff([]string{filepath.Join(m.Workspace, "tools", "skills")}, c.Config.SkillDirs); diff != "" {
		t.Errorf("skill_dirs (-want +got):\n%s", diff)
	}
	if c.Config.MCP.Port != 4000 || c.Config.MCP.LogLevel != "debug" || c.Config.UserDir != m.Home ||
		c.Config.Limits.MaxDirs != 5000 || c.Config.MCP.RefreshInterval != "30s" {
		t.Errorf("config: %+v", c.Config)
	}
}

// TestExitCodes checks the exit code of each kind of failure and that,
// with --json, stdout then holds one JSON error object and nothing else.
func TestExitCodes(t *testing.T) {
	m := newMachine(t)
	cases := []struct {
		name string
		args []string
		env  map[string]string
		code int
		kind string // the "code" of the JSON error
	}{
		{"list", std(m, "list"), nil, 0, ""},
		{"not found", std(m, "info", "comit-helper"), nil, 1, "not_found"},
		{"ambiguous", std(m, "info", "pdf", "--all"), nil, 1, "ambiguous"},
		{"unknown flag", std(m, "list", "--bogus"), nil, 2, "usage"},
		{"unknown flag first", append([]string{"list", "--bogus"}, std(m)...), nil, 2, "usage"},
		{"bad include", std(m, "list", "--include=codex,claude@home"), nil, 2, "invalid_filter"},
		{"bad exclude", std(m, "list", "--exclude=@"), nil, 2, "invalid_filter"},
		{"config typo", std(m, "list", "--config", m.TypoConfig), nil, 2, "usage"},
		{"missing config", std(m, "list", "--config", filepath.Join(m.Root, "nope.yaml")), nil, 2, "usage"},
		{"unknown variable", std(m, "list"), map[string]string{"CCSKI_INCLUDES": "codex"}, 2, "usage"},
		{"bad variable value", std(m, "list"), map[string]string{"CCSKI_STATE": "enabeld"}, 2, "usage"},
		{"bad limit", std(m, "search", "pdf", "--limit=-1"), nil, 2, "usage"},
		{"missing argument", std(m, "info"), nil, 2, "usage"},
		{"extra argument", std(m, "list", "extra"), nil, 2, "usage"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := ccski(t, m, runOpts{env: tc.env}, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			if tc.code == 0 {
				return
			}
			if r.stdout != "" {
				t.Errorf("stdout without --json:\n%s", r)
			}
			if !strings.HasPrefix(r.stderr, "ccski: ") {
				t.Errorf("stderr does not start with \"ccski: \":\n%s", r)
			}

			rj := ccski(t, m, runOpts{env: tc.env}, append(tc.args, "--json")...)
			if rj.code != tc.code {
				t.Errorf("with --json: exit %d, want %d\n%s", rj.code, tc.code, rj)
			}
			var obj map[string]json.RawMessage
			decodeOnly(t, rj, &obj)
			var kind, msg string
			_ = json.Unmarshal(obj["code"], &kind)
			_ = json.Unmarshal(obj["error"], &msg)
			if kind != tc.kind || msg == "" {
				t.Errorf("JSON error code %q message %q, want code %q\n%s", kind, msg, tc.kind, rj)
			}
			var list []string
			switch tc.kind {
			case "not_found":
				_ = json.Unmarshal(obj["suggestions"], &list)
				if diff := cmp.Diff([]string{"claude:commit-helper"}, list); diff != "" {
					t.Errorf("suggestions (-want +got):\n%s", diff)
				}
			case "ambiguous":
				_ = json.Unmarshal(obj["candidates"], &list)
				if diff := cmp.Diff([]string{"claude@project:pdf", "claude@user:pdf", "codex:pdf", "custom:docs:pdf", "claude:@doc-tools:pdf-forms"}, list); diff != "" {
					t.Errorf("candidates (-want +got):\n%s", diff)
				}
			}
			if (tc.kind == "not_found" || tc.kind == "ambiguous") && len(list) == 0 {
				t.Errorf("no suggestions or candidates:\n%s", rj)
			}
		})
	}
}

// TestNoColor checks that piped output has no ANSI escapes, with and
// without NO_COLOR.
func TestNoColor(t *testing.T) {
	m := newMachine(t)
	for _, env := range []map[string]string{nil, {"NO_COLOR": "1"}} {
		for _, args := range [][]string{
			{"list", "--all"}, {"info", "use-when"}, {"info", "codex:pdf"}, {"search", "notes"},
			{"sources"}, {"config"}, {"info", "nope"},
		} {
			r := ccski(t, m, runOpts{env: env}, std(m, args...)...)
			if strings.Contains(r.stdout+r.stderr, "\x1b[") {
				t.Errorf("ANSI escape in piped output of %v (env %v):\n%s", args, env, r)
			}
		}
	}
}

// TestListJSONWithDiagnostics checks that problems never leak into the
// JSON on stdout, and that a broken skill hides no other skill.
func TestListJSONWithDiagnostics(t *testing.T) {
	m := newMachine(t)
	src := run(t, m, "sources", "--json")
	mustOK(t, src)
	var s sourcesOut
	decodeOnly(t, src, &s)
	errorsFound := 0
	for _, d := range s.Diagnostics {
		if d.Severity == "error" {
			errorsFound++
		}
	}
	if errorsFound == 0 {
		t.Fatal("the machine should hold broken skills")
	}
	r := run(t, m, "list", "--json", "--all")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs) // fails on anything but one JSON value
	if r.stderr != "" {
		t.Errorf("stderr: %s", r.stderr)
	}
	// The broken skills' neighbours are listed.
	got := ids(recs)
	for _, id := range []string{"claude:use-when", "claude:commit-helper", "agents:bom-skill", "codex:crlf-notes"} {
		if !slices.Contains(got, id) {
			t.Errorf("%s missing next to broken skills", id)
		}
	}
}

// TestFromSubfolder runs ccski from a folder below the repository root:
// the workspace's ancestors up to the root still count, and the project
// ccski.yaml is found.
func TestFromSubfolder(t *testing.T) {
	m := newMachine(t)
	r := ccski(t, m, runOpts{dir: filepath.Join(m.Workspace, "tools")}, std(m, "list", "--json")...)
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	if diff := cmp.Diff(defaultIDs, ids(recs)); diff != "" {
		t.Errorf("ids from work/repo/tools (-want +got):\n%s", diff)
	}
}

// TestIDsPasteIntoFilters checks that every id pastes into --include (and
// selects exactly that skill) and into --exclude (and hides exactly it).
func TestIDsPasteIntoFilters(t *testing.T) {
	m := newMachine(t)
	all := listRecords(t, m, "--all")
	allIDs := ids(all)
	for _, rec := range all {
		got := ids(listRecords(t, m, "--all", "--include="+rec.ID))
		if diff := cmp.Diff([]string{rec.ID}, got); diff != "" {
			t.Errorf("--include=%s (-want +got):\n%s", rec.ID, diff)
		}
		// Excluding a record excludes the records of its folder too (a
		// link to it from another root is the same skill).
		folder := func(r record) string {
			if r.LinkedTo != "" {
				return r.LinkedTo
			}
			return r.ID
		}
		var twins []string
		for _, o := range all {
			if folder(o) == folder(rec) {
				twins = append(twins, o.ID)
			}
		}
		got = ids(listRecords(t, m, "--all", "--exclude="+rec.ID))
		want := slices.DeleteFunc(slices.Clone(allIDs), func(id string) bool { return slices.Contains(twins, id) })
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("--exclude=%s (-want +got):\n%s", rec.ID, diff)
		}
	}
}

// TestRelativePaths runs ccski from the machine's root with relative
// --workspace, --user-dir and --skill-dir: each is taken from the current
// folder.
func TestRelativePaths(t *testing.T) {
	m := newMachine(t)
	r := ccski(t, m, runOpts{dir: m.Root}, "list", "--json",
		"--workspace", filepath.Join("work", "repo"), "--user-dir", "home", "--skill-dir", "extra/docs?scope=docs")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	if diff := cmp.Diff(defaultIDs, ids(recs)); diff != "" {
		t.Errorf("ids with relative paths (-want +got):\n%s", diff)
	}
}

// TestUnknownVariable checks that a misspelt CCSKI_ variable is an error
// naming it and the variable meant, and that an empty one counts as unset.
func TestUnknownVariable(t *testing.T) {
	m := newMachine(t)
	r := ccski(t, m, runOpts{env: map[string]string{"CCSKI_INCLUDES": "codex"}}, std(m, "list")...)
	if r.code != 2 || !strings.Contains(r.stderr, "CCSKI_INCLUDES") || !strings.Contains(r.stderr, "CCSKI_INCLUDE ") {
		t.Errorf("misspelt variable:\n%s", r)
	}
	r = ccski(t, m, runOpts{env: map[string]string{"CCSKI_STATE": "", "CCSKI_INCLUDE": "codex"}}, std(m, "list", "--json")...)
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	for _, rec := range recs {
		if rec.Provider != "codex" {
			t.Errorf("CCSKI_INCLUDE=codex listed %s", rec.ID)
		}
	}
}

// TestBareNameFilters checks the <name> token: --exclude hides every copy
// of that skill and nothing else; --include keeps the highest priority
// copy of each fully qualified name it matches.
func TestBareNameFilters(t *testing.T) {
	m := newMachine(t)
	got := ids(listRecords(t, m, "--exclude=shared-notes"))
	want := slices.DeleteFunc(slices.Clone(defaultIDs), func(id string) bool { return strings.HasSuffix(id, ":shared-notes") })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--exclude=shared-notes (-want +got):\n%s", diff)
	}
	got = ids(listRecords(t, m, "--all", "--exclude=pdf"))
	for _, id := range got {
		if strings.HasSuffix(id, "pdf") {
			t.Errorf("--all --exclude=pdf still lists %s", id)
		}
	}
	if diff := cmp.Diff([]string{"claude:@doc-tools:pdf-forms", "claude@user:pdf", "custom:docs:pdf"}, ids(listRecords(t, m, "--include=pdf"))); diff != "" {
		t.Errorf("--include=pdf (-want +got):\n%s", diff)
	}
}

// TestSharedMarketplaceFolder checks that two plugins installed in one
// marketplace folder are both read, each with its own skills. The roots
// of both plugins have the same path; a root "planned twice" must not
// swallow the second plugin.
func TestSharedMarketplaceFolder(t *testing.T) {
	m := newMachine(t)
	r := run(t, m, "sources", "--json")
	mustOK(t, r)
	var s sourcesOut
	decodeOnly(t, r, &s)
	for _, d := range s.Diagnostics {
		if d.Code == "root-planned-twice" && strings.Contains(d.Path, filepath.Join("plugins", "marketplaces")) {
			t.Errorf("a plugin root sharing its folder with another plugin was dropped (engine: uniqueRoots keys on the path only): %+v", d)
		}
	}
	got := map[string]bool{}
	for _, rec := range listRecords(t, m, "--include=@plugins:*-tools") {
		got[rec.ID] = true
	}
	want := map[string]bool{"claude:@design-tools:canvas": true, "claude:@doc-tools:pdf-forms": true, "claude:@doc-tools:xlsx": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills of the plugins sharing demo-market (-want +got):\n%s", diff)
	}
}
