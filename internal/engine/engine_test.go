package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/agents"
	"github.com/ccski/ccski/providers/all"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
	"github.com/ccski/ccski/providers/custom"
)

// baseTime is the modification time of every generated SKILL.md, so that
// no copy wins a dedupe by being newer unless a test says so.
var baseTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func skillMD(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n# %s\n\nBody.\n", name, desc, name)
}

// machine is a synthetic user folder and workspace under t.TempDir().
type machine struct {
	base string
	home string // the user folder
	ws   string // the workspace: <base>/repo/sub in the repository <base>/repo
}

func (m *machine) abs(rel string) string { return filepath.Join(m.base, filepath.FromSlash(rel)) }

// write writes files from slash paths relative to the base; a SKILL.md gets
// baseTime as its modification time.
func (m *machine) write(t *testing.T, files map[string]string) {
	t.Helper()
	testfs.Write(t, m.base, files)
	for rel := range files {
		if strings.HasSuffix(rel, "SKILL.md") {
			if err := os.Chtimes(m.abs(rel), baseTime, baseTime); err != nil {
				t.Fatal(err)
			}
		}
	}
}

const pluginDir = "home/.claude/plugins/cache/market/tools/1.0.0"

// newMachine builds a tree where pdf exists in every kind of root, and each
// other skill shows one rule of the priority order.
func newMachine(t *testing.T) *machine {
	t.Helper()
	m := &machine{base: t.TempDir()}
	m.home, m.ws = m.abs("home"), m.abs("repo/sub")
	files := map[string]string{"repo/.git/": "", "repo/sub/": ""}
	skill := func(dir, name string) {
		files[dir+"/"+name+"/SKILL.md"] = skillMD(name, "The "+name+" skill in "+dir+".")
	}
	// pdf everywhere.
	for _, d := range []string{
		"custom", "repo/.claude/skills", "home/.claude/skills", "home/.codex/skills",
		"home/.cursor/skills", "home/.agents/skills", "etc/codex/skills", pluginDir + "/skills",
	} {
		skill(d, "pdf")
	}
	skill("repo/sub/.claude/skills", "xlsx") // nearer workspace folder ...
	skill("repo/.claude/skills", "xlsx")     // ... beats the repository root; the user folder
	skill("home/.claude/skills", "xlsx")     // beats both (Claude's precedence), unless set to project
	skill("home/.claude/skills", "user-only")
	skill("home/.codex/skills", "docx") // user beats system beats plugin
	skill("etc/codex/skills", "docx")
	skill(pluginDir+"/skills", "docx")
	skill("home/.codex/skills/.system", "bundled") // Codex's own: a system skill
	skill("repo/.agents/skills", "shared")         // workspace-shared beats user-shared
	skill("home/.agents/skills", "shared")
	skill("repo/skills", "root-skill")         // workspace-root loses to Claude's personal copy,
	skill("home/.claude/skills", "root-skill") // ranked just above the workspace kinds
	skill("home/.cursor/skills", "cursor-only")
	skill("repo/sub/.windsurf/skills", "windsurf-only")
	skill("etc/codex/skills", "sys-only")
	skill(pluginDir+"/skills", "plugin-only")
	files[pluginDir+"/.claude-plugin/plugin.json"] = `{"name": "tools", "version": "1.0.0"}`
	installed, err := json.Marshal(map[string]any{"version": 2, "plugins": map[string]any{
		"tools@market": []any{map[string]any{"scope": "user", "installPath": m.abs(pluginDir), "version": "1.0.0",
			"installedAt": "2026-01-01T00:00:00Z", "lastUpdated": "2026-01-01T00:00:00Z"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	files["home/.claude/plugins/installed_plugins.json"] = string(installed)
	m.write(t, files)
	return m
}

// config is the built-in defaults pointed at the machine: the custom dir
// and the system dir live under the base, not on the real machine.
func (m *machine) config() configs.Config {
	cfg := configs.Default(all.Registry())
	cfg.Providers["custom"] = configs.Provider{Enabled: true, Options: &custom.Options{Dirs: []custom.Folder{custom.Folder(m.abs("custom"))}}}
	setOptions(cfg, "codex", func(o *codex.Options) { o.SystemDirs = []string{m.abs("etc/codex/skills")} })
	return cfg
}

// setOptions changes, with set, the decoded options of provider name in
// cfg (its *O, as configs decodes it): what a key of ccski.yaml does.
func setOptions[O any](cfg configs.Config, name string, set func(o *O)) {
	p := cfg.Providers[name]
	o := *p.Options.(*O) // a copy: Default's value stays as it is
	set(&o)
	p.Options = &o
	cfg.Providers[name] = p
}

func (m *machine) env() providers.Env {
	return providers.NewEnv(m.home, m.ws, func(string) string { return "" })
}

func (m *machine) engine(t *testing.T, cfg configs.Config) *Engine {
	t.Helper()
	e, err := New(cfg, m.env())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

func snapshot(t *testing.T, e *Engine) (*pipeline.Snapshot, Stats) {
	t.Helper()
	snap, st, err := e.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return snap, st
}

// where says which copy of a skill a record is.
type where struct {
	Provider string
	Kind     pipeline.Kind
	Depth    int
}

func (w where) String() string { return fmt.Sprintf("%s/%s/%d", w.Provider, w.Kind, w.Depth) }

func whereOf(r *pipeline.Record) where { return where{r.Agent, r.Kind, r.Depth} }

// visibleBy maps each visible record's short name to where it came from.
func visibleBy(snap *pipeline.Snapshot) map[string]where {
	out := map[string]where{}
	for _, r := range snap.Visible {
		if _, dup := out[r.DedupeKey()]; dup {
			out[r.DedupeKey()+" (duplicate!)"] = whereOf(r)
			continue
		}
		out[r.DedupeKey()] = whereOf(r)
	}
	return out
}

func TestSnapshotVisible(t *testing.T) {
	var (
		custom       = where{"custom", pipeline.KindCustom, 0}
		claudeWS0    = where{"claude", pipeline.KindWorkspaceAgent, 0}
		claudeWS1    = where{"claude", pipeline.KindWorkspaceAgent, 1}
		claudeUser   = where{"claude", pipeline.KindUserAgent, 0}
		codexUser    = where{"codex", pipeline.KindUserAgent, 0}
		codexSystem  = where{"codex", pipeline.KindSystem, 0}
		cursorUser   = where{"cursor", pipeline.KindUserAgent, 0}
		windsurfWS   = where{"windsurf", pipeline.KindWorkspaceAgent, 0}
		agentsShared = where{"agents", pipeline.KindWorkspaceShared, 1}
		agentsUser   = where{"agents", pipeline.KindUserShared, 0}
		agentsRoot   = where{"agents", pipeline.KindWorkspaceRoot, 1}
		plugin       = where{"claude", pipeline.KindPlugin, 0}
	)
	disable := func(names ...string) func(*configs.Config) {
		return func(c *configs.Config) {
			for _, n := range names {
				p := c.Providers[n]
				p.Enabled = false
				c.Providers[n] = p
			}
		}
	}
	common := map[string]where{
		"xlsx": claudeUser, "user-only": claudeUser, "docx": codexUser, "shared": agentsShared,
		"root-skill": claudeUser, "cursor-only": cursorUser, "windsurf-only": windsurfWS,
		"sys-only": codexSystem, "bundled": codexSystem,
		// A plugin's skills are keyed by their plugin: never copies of
		// another root's skills.
		"@tools:pdf": plugin, "@tools:docx": plugin, "@tools:plugin-only": plugin,
	}
	with := func(over map[string]where) map[string]where {
		out := map[string]where{}
		for k, v := range common {
			out[k] = v
		}
		for k, v := range over {
			if v == (where{}) {
				delete(out, k)
			} else {
				out[k] = v
			}
		}
		return out
	}
	tests := []struct {
		name   string
		config func(*configs.Config)
		want   map[string]where
	}{
		{
			name: "custom beats everything",
			want: with(map[string]where{"pdf": custom}),
		},
		{
			name:   "without custom, Claude's personal copy beats its workspace copies",
			config: disable("custom"),
			want:   with(map[string]where{"pdf": claudeUser}),
		},
		{
			name: "with Claude's precedence project, the nearer workspace beats the user folder",
			config: func(c *configs.Config) {
				disable("custom")(c)
				setOptions(*c, "claude", func(o *claude.Options) { o.Precedence = "project" })
			},
			want: with(map[string]where{"pdf": claudeWS1, "xlsx": claudeWS0, "root-skill": agentsRoot}),
		},
		{
			name:   "without claude, equal user-agent copies fall to provider order",
			config: disable("custom", "claude"),
			want:   with(map[string]where{"pdf": codexUser, "xlsx": {}, "user-only": {}, "root-skill": agentsRoot}),
		},
		{
			name:   "a dynamic user agent beats user-shared and system",
			config: disable("custom", "claude", "codex"),
			want: with(map[string]where{"pdf": cursorUser, "xlsx": {}, "user-only": {}, "docx": {},
				"root-skill": agentsRoot, "sys-only": {}, "bundled": {}}),
		},
		{
			name: "agents alone: shared copies and dynamic agents",
			config: func(c *configs.Config) {
				disable("custom", "claude", "codex", "marketplace")(c)
			},
			want: map[string]where{"pdf": cursorUser, "shared": agentsShared, "root-skill": agentsRoot,
				"cursor-only": cursorUser, "windsurf-only": windsurfWS},
		},
		{
			name: "agents without dynamic discovery",
			config: func(c *configs.Config) {
				disable("custom", "claude", "codex", "marketplace", "cursor")(c)
				setOptions(*c, "agents", func(o *agents.Options) { o.Dynamic = false })
			},
			want: map[string]where{"pdf": agentsUser, "shared": agentsShared, "root-skill": agentsRoot},
		},
		{
			name:   "plugin skills are never copies of other skills",
			config: disable("custom", "claude", "agents", "cursor"),
			want: map[string]where{"pdf": codexUser, "docx": codexUser, "sys-only": codexSystem,
				"bundled": codexSystem, "@tools:pdf": plugin, "@tools:docx": plugin, "@tools:plugin-only": plugin},
		},
		{
			name:   "a priority setting reorders kinds",
			config: func(c *configs.Config) { c.Priority = []string{"system"} },
			want:   with(map[string]where{"pdf": codexSystem, "docx": codexSystem}),
		},
	}
	m := newMachine(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := m.config()
			if tt.config != nil {
				tt.config(&cfg)
			}
			snap, st := snapshot(t, m.engine(t, cfg))
			if diff := cmp.Diff(tt.want, visibleBy(snap)); diff != "" {
				t.Errorf("visible copies mismatch (-want +got):\n%s", diff)
			}
			if st.Visible != len(snap.Visible) || st.Records != len(snap.All) || st.Roots != len(snap.Roots) {
				t.Errorf("stats %+v do not match the snapshot (%d visible, %d all, %d roots)",
					st, len(snap.Visible), len(snap.All), len(snap.Roots))
			}
			checkInvariants(t, snap)
		})
	}
}

// checkInvariants checks what must hold for every snapshot: each record
// not visible has exactly one drop with a reason, visible records have
// none, ids are unique and resolve back to their record.
func checkInvariants(t *testing.T, snap *pipeline.Snapshot) {
	t.Helper()
	visible := map[*pipeline.Record]bool{}
	for _, r := range snap.Visible {
		visible[r] = true
	}
	inAll := map[*pipeline.Record]bool{}
	for _, r := range snap.All {
		inAll[r] = true
	}
	for _, r := range snap.Visible {
		if !inAll[r] {
			t.Errorf("visible record %s is not in All", r.ID)
		}
	}
	drops := map[*pipeline.Record]int{}
	for _, d := range snap.Drops {
		drops[d.Record]++
		if d.Reason == "" || d.Stage == "" {
			t.Errorf("drop of %s has no reason or stage: %+v", d.Record.ID, d)
		}
		if d.By != nil && !visible[d.By] && d.Stage == "include" {
			t.Errorf("%s was shadowed by %s, which is not visible", d.Record.ID, d.By.ID)
		}
	}
	for _, r := range snap.All {
		n := drops[r]
		switch {
		case visible[r] && n != 0:
			t.Errorf("visible record %s also has %d drops", r.ID, n)
		case !visible[r] && n != 1:
			t.Errorf("hidden record %s has %d drops, want 1", r.ID, n)
		}
	}
	ids := map[string]*pipeline.Record{}
	for _, r := range snap.All {
		k := strings.ToLower(r.ID)
		if r.ID == "" {
			t.Errorf("record %s in %s has no id", r.Name, r.Dir)
		}
		if o := ids[k]; o != nil {
			t.Errorf("id %q is shared by %s and %s", r.ID, o.Dir, r.Dir)
		}
		ids[k] = r
		got, err := snap.ResolveAny(r.ID)
		if err != nil {
			t.Errorf("ResolveAny(%q): %v", r.ID, err)
		} else if got != r {
			t.Errorf("ResolveAny(%q) = %s (%s), want the record in %s", r.ID, got.ID, got.Dir, r.Dir)
		}
	}
}

// TestSnapshotAll checks that All holds every copy of every skill, the
// bundled Codex skills in .system included, and the ids of the pdf copies.
func TestSnapshotAll(t *testing.T) {
	m := newMachine(t)
	snap, st := snapshot(t, m.engine(t, m.config()))

	count := map[string]int{}
	pdfIDs := map[string]string{}
	for _, r := range snap.All {
		count[r.DedupeKey()]++
		if r.ShortName() == "pdf" {
			rel, err := filepath.Rel(m.base, r.Dir)
			if err != nil {
				t.Fatal(err)
			}
			pdfIDs[filepath.ToSlash(rel)] = r.ID
		}
	}
	// The plugin's skills are keyed by their plugin, apart from the others.
	wantCount := map[string]int{
		"pdf": 7, "xlsx": 3, "user-only": 1, "docx": 2, "shared": 2, "root-skill": 2,
		"cursor-only": 1, "windsurf-only": 1, "sys-only": 1, "bundled": 1,
		"@tools:pdf": 1, "@tools:docx": 1, "@tools:plugin-only": 1,
	}
	if diff := cmp.Diff(wantCount, count); diff != "" {
		t.Errorf("copies per skill mismatch (-want +got):\n%s", diff)
	}
	wantIDs := map[string]string{
		"custom/pdf":              "custom:pdf",
		"repo/.claude/skills/pdf": "claude@project:pdf",
		"home/.claude/skills/pdf": "claude@user:pdf",
		"home/.codex/skills/pdf":  "codex@user:pdf",
		"etc/codex/skills/pdf":    "codex@system:pdf",
		"home/.cursor/skills/pdf": "cursor:pdf",
		"home/.agents/skills/pdf": "agents:pdf",
		pluginDir + "/skills/pdf": "claude:@tools:pdf",
	}
	if diff := cmp.Diff(wantIDs, pdfIDs); diff != "" {
		t.Errorf("pdf ids mismatch (-want +got):\n%s", diff)
	}
	if st.FilesRead != len(snap.All) {
		t.Errorf("FilesRead = %d on a cold engine, want one per record (%d)", st.FilesRead, len(snap.All))
	}
	for _, d := range snap.Diagnostics {
		if d.Severity != pipeline.SeverityInfo {
			t.Errorf("unexpected diagnostic: %+v", d)
		}
	}
	// A dedupe loser names its winner.
	r, err := snap.ResolveAny("claude@user:pdf")
	if err != nil {
		t.Fatal(err)
	}
	d, ok := snap.DropOf(r)
	if !ok || d.By == nil || d.By.ID != "custom:pdf" {
		t.Errorf("drop of claude@user:pdf = %+v, want one shadowed by custom:pdf", d)
	}
}

func TestDisabledProviderPlansNothing(t *testing.T) {
	m := newMachine(t)
	for _, name := range []string{"claude", "codex", "agents", "marketplace", "custom", "project"} {
		t.Run(name, func(t *testing.T) {
			cfg := m.config()
			cfg.SkillDirs = []string{m.abs("custom")}
			p := cfg.Providers[name]
			p.Enabled = false
			cfg.Providers[name] = p
			e := m.engine(t, cfg)
			for _, p := range e.providers {
				if p.Name() == name {
					t.Errorf("disabled provider %s was built", name)
				}
			}
			snap, _ := snapshot(t, e)
			for _, r := range snap.Roots {
				if r.Provider == name {
					t.Errorf("disabled provider %s planned %s", name, r.Path)
				}
			}
			if name == "codex" {
				for _, r := range snap.All {
					if r.Agent == "codex" {
						t.Errorf("codex record %s found with codex disabled", r.ID)
					}
				}
			}
			checkInvariants(t, snap)
		})
	}
}

func TestConfigErrors(t *testing.T) {
	m := newMachine(t)
	tests := []struct {
		name    string
		config  func(*configs.Config)
		atNew   bool     // the error comes from New, not Snapshot
		wantErr []string // substrings of the message
	}{
		{
			// configs checks every key and value once; a Config built by
			// hand can still give a provider the wrong options struct.
			name: "options of another provider",
			config: func(c *configs.Config) {
				c.Providers["claude"] = configs.Provider{Enabled: true, Options: &codex.Options{}}
			},
			atNew:   true,
			wantErr: []string{"providers.claude", "*codex.Options"},
		},
		{
			// The claude provider gives others its rule and folder, so it
			// is built even when it does not run.
			name: "options of another provider, provider disabled",
			config: func(c *configs.Config) {
				c.Providers["claude"] = configs.Provider{Enabled: false, Options: &codex.Options{}}
			},
			atNew:   true,
			wantErr: []string{"providers.claude", "*codex.Options"},
		},
		{
			name: "bad custom dir in a Config built by hand",
			config: func(c *configs.Config) {
				c.Providers["custom"] = configs.Provider{Enabled: true, Options: &custom.Options{Dirs: []custom.Folder{"x?scope=a:b"}}}
			},
			atNew:   true,
			wantErr: []string{"custom:", "a:b"},
		},
		{
			name: "unknown provider",
			config: func(c *configs.Config) {
				c.Providers["nope"] = configs.Provider{Enabled: true}
			},
			atNew:   true,
			wantErr: []string{"providers.nope", "unknown provider"},
		},
		{
			name:    "invalid include token",
			config:  func(c *configs.Config) { c.Include = []string{"@"} },
			wantErr: []string{"include", "@"},
		},
		{
			name:    "empty include token",
			config:  func(c *configs.Config) { c.Include = []string{"codex,,claude"} },
			wantErr: []string{"include", "empty"},
		},
		{
			name:    "invalid exclude token",
			config:  func(c *configs.Config) { c.Exclude = []string{"claude@nowhere"} },
			wantErr: []string{"exclude", "nowhere"},
		},
		{
			name:    "invalid state",
			config:  func(c *configs.Config) { c.State = "sometimes" },
			wantErr: []string{"sometimes"},
		},
		{
			name:    "invalid priority",
			config:  func(c *configs.Config) { c.Priority = []string{"user-agent", "user-agent"} },
			wantErr: []string{"user-agent"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := m.config()
			tt.config(&cfg)
			e, err := New(cfg, m.env())
			if !tt.atNew {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				var snap *pipeline.Snapshot
				snap, _, err = e.Snapshot(context.Background())
				if snap != nil {
					t.Errorf("Snapshot returned a snapshot with its error")
				}
			} else if e != nil {
				t.Errorf("New returned an engine with its error")
			}
			if err == nil {
				t.Fatal("no error")
			}
			if !IsConfigError(err) {
				t.Errorf("IsConfigError(%v) = false", err)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Err == nil {
				t.Errorf("error %T is not a *ConfigError with a cause", err)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not hold %q", err, s)
				}
			}
		})
	}
	if IsConfigError(errors.New("plain")) || IsConfigError(nil) {
		t.Error("IsConfigError is true for a plain error")
	}
	if IsConfigError(fmt.Errorf("wrapped: %w", &ConfigError{errors.New("x")})) != true {
		t.Error("IsConfigError is false for a wrapped *ConfigError")
	}
}

// TestRootPlannedTwice runs with the workspace at the user folder, so that
// ~/.claude/skills (and ~/.agents/skills, ...) are both workspace and user
// roots: each folder is scanned once, as its first (workspace) root.
func TestRootPlannedTwice(t *testing.T) {
	m := newMachine(t)
	e, err := New(m.config(), providers.NewEnv(m.home, m.home, func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{m.home}, e.Env().WorkspaceDirs); diff != "" {
		t.Fatalf("WorkspaceDirs mismatch (-want +got):\n%s", diff)
	}
	snap, _ := snapshot(t, e)

	claudeSkills := filepath.Join(m.home, ".claude", "skills")
	seen := map[string]int{}
	for _, r := range snap.Roots {
		seen[r.Path]++
		if r.Path == claudeSkills && (r.Kind != pipeline.KindWorkspaceAgent || r.Location != pipeline.LocationProject) {
			t.Errorf("%s kept as %s/%s, want the first (workspace) root", r.Path, r.Kind, r.Location)
		}
	}
	for p, n := range seen {
		if n > 1 {
			t.Errorf("root %s listed %d times", p, n)
		}
	}
	var twice []pipeline.Diagnostic
	for _, d := range snap.Diagnostics {
		if d.Code == "root-planned-twice" && d.Path == claudeSkills {
			twice = append(twice, d)
		}
	}
	if len(twice) != 1 {
		t.Fatalf("got %d root-planned-twice diagnostics for %s, want 1: %v", len(twice), claudeSkills, snap.Diagnostics)
	}
	if d := twice[0]; d.Severity != pipeline.SeverityInfo || d.Provider != "claude" ||
		!strings.Contains(d.Message, "claude project root") {
		t.Errorf("diagnostic %+v: want info from claude naming the claude project root", d)
	}
	perDir := map[string]int{}
	for _, r := range snap.All {
		perDir[r.Dir]++
	}
	for d, n := range perDir {
		if n > 1 {
			t.Errorf("skill %s read %d times", d, n)
		}
	}
	// The user-level skills are now workspace skills.
	r, err := snap.ResolveAny("claude:user-only")
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != pipeline.KindWorkspaceAgent {
		t.Errorf("claude:user-only has kind %s, want %s", r.Kind, pipeline.KindWorkspaceAgent)
	}
	checkInvariants(t, snap)
}

func visibleIDs(snap *pipeline.Snapshot) []string {
	var ids []string
	for _, r := range snap.Visible {
		ids = append(ids, r.ID)
	}
	sort.Strings(ids)
	return ids
}

// TestRescan checks the cache: nothing changed means nothing read, and an
// edited SKILL.md is the only file read again.
func TestRescan(t *testing.T) {
	m := newMachine(t)
	e := m.engine(t, m.config())
	first, st := snapshot(t, e)
	if st.FilesRead == 0 || st.FilesRead != len(first.All) {
		t.Fatalf("cold FilesRead = %d, want %d", st.FilesRead, len(first.All))
	}

	second, st := snapshot(t, e)
	if st.FilesRead != 0 {
		t.Errorf("FilesRead = %d with nothing changed, want 0", st.FilesRead)
	}
	if diff := cmp.Diff(visibleIDs(first), visibleIDs(second)); diff != "" {
		t.Errorf("visible ids changed (-first +second):\n%s", diff)
	}
	if second == first {
		t.Error("the second Snapshot returned the same snapshot object")
	}

	file := m.abs("home/.claude/skills/xlsx/SKILL.md") // the visible copy
	if err := os.WriteFile(file, []byte(skillMD("xlsx", "Edited spreadsheets description.")), 0o644); err != nil {
		t.Fatal(err)
	}
	later := baseTime.Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	third, st := snapshot(t, e)
	if st.FilesRead != 1 {
		t.Errorf("FilesRead = %d after editing one file, want 1", st.FilesRead)
	}
	r, err := third.Resolve("xlsx")
	if err != nil {
		t.Fatal(err)
	}
	if r.File != file || r.Description != "Edited spreadsheets description." {
		t.Errorf("visible xlsx = %s %q, want %s with the edited description", r.File, r.Description, file)
	}
	if diff := cmp.Diff(visibleIDs(first), visibleIDs(third)); diff != "" {
		t.Errorf("visible ids changed (-first +third):\n%s", diff)
	}
	// The old snapshot is immutable.
	old, err := first.Resolve("xlsx")
	if err != nil {
		t.Fatal(err)
	}
	if old.Description == r.Description {
		t.Error("the first snapshot sees the edit")
	}

	// The cache keys on size and modification time: touching a file makes
	// it read again.
	if err := os.Chtimes(file, later.Add(time.Hour), later.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, st = snapshot(t, e); st.FilesRead != 1 {
		t.Errorf("FilesRead = %d after touching one file, want 1", st.FilesRead)
	}

	// A new skill is read; a removed one disappears.
	m.write(t, map[string]string{"repo/sub/.claude/skills/new-one/SKILL.md": skillMD("new-one", "New.")})
	if err := os.RemoveAll(m.abs("home/.claude/skills/user-only")); err != nil {
		t.Fatal(err)
	}
	fourth, st := snapshot(t, e)
	if st.FilesRead != 1 {
		t.Errorf("FilesRead = %d after adding one skill, want 1", st.FilesRead)
	}
	if _, err := fourth.Resolve("new-one"); err != nil {
		t.Errorf("new skill not found: %v", err)
	}
	if _, err := fourth.ResolveAny("user-only"); err == nil {
		t.Error("removed skill still found")
	}
}

func TestSnapshotCancelled(t *testing.T) {
	m := newMachine(t)
	e := m.engine(t, m.config())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	snap, _, err := e.Snapshot(ctx)
	if !errors.Is(err, context.Canceled) || snap != nil {
		t.Errorf("Snapshot on a cancelled context = %v, %v; want nil, context.Canceled", snap, err)
	}
	if IsConfigError(err) {
		t.Error("cancellation reported as a config error")
	}
	// The engine still works afterwards.
	snap, _ = snapshot(t, e)
	checkInvariants(t, snap)
}

// TestRescanKeepsFollowingWhenAFilterTokenGoesStale checks that a filter
// token naming nothing fails the first discovery (a typo is caught at
// once) but not a later rescan: a skill named in the configuration may be
// removed while a server runs, and the server must go on following the
// disk, with a warning that says which token selects nothing.
func TestRescanKeepsFollowingWhenAFilterTokenGoesStale(t *testing.T) {
	m := newMachine(t)
	cfg := m.config()
	cfg.Exclude = []string{"user-only"}

	typo := cfg
	typo.Exclude = []string{"user-onyl"}
	if _, _, err := m.engine(t, typo).Snapshot(context.Background()); err == nil ||
		!strings.Contains(err.Error(), `"user-onyl"`) {
		t.Fatalf("first Snapshot with a token naming nothing: err = %v, want an error naming the token", err)
	}

	e := m.engine(t, cfg)
	first, _ := snapshot(t, e)
	for _, d := range first.Diagnostics {
		if d.Code == "filter-names-nothing" {
			t.Errorf("unexpected diagnostic while the token names a skill: %+v", d)
		}
	}
	if err := os.RemoveAll(m.abs("home/.claude/skills/user-only")); err != nil {
		t.Fatal(err)
	}
	m.write(t, map[string]string{"repo/sub/.claude/skills/new-one/SKILL.md": skillMD("new-one", "New.")})
	second, _, err := e.Snapshot(context.Background())
	if err != nil {
		t.Fatalf("rescan after the excluded skill was removed: %v", err)
	}
	if _, err := second.Resolve("new-one"); err != nil {
		t.Errorf("the rescan did not pick up a new skill: %v", err)
	}
	var warned bool
	for _, d := range second.Diagnostics {
		if d.Code == "filter-names-nothing" && d.Severity == pipeline.SeverityWarning &&
			strings.Contains(d.Message, `"user-only"`) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no filter-names-nothing warning naming the stale token in %+v", second.Diagnostics)
	}
}

// TestFilterTokensNamingNothing checks where a filter token that names
// nothing on the machine fails the first discovery: when the user typed it
// (a flag or a variable, which the engine cannot tell apart), the typo is a
// configuration error; when a config file holds it, the discovery goes on
// and a warning names the token, since a shared ccski.yaml may name a skill
// that this machine lacks. Each list is judged by where it came from.
func TestFilterTokensNamingNothing(t *testing.T) {
	m := newMachine(t)
	tests := []struct {
		name             string
		include, exclude []string
		incFile, excFile bool
		err              string   // in the error; "" when Snapshot succeeds
		warn             []string // the tokens the warnings name
		hidden           string   // a skill the filters must still hide
	}{
		{name: "exclude flag", exclude: []string{"team-only"}, err: `exclude: invalid filter token "team-only"`},
		{name: "exclude from a file", exclude: []string{"team-only", "user-only"}, excFile: true,
			warn: []string{`"team-only"`}, hidden: "user-only"},
		{name: "include from a file", include: []string{"auto", "team-only"}, incFile: true, warn: []string{`"team-only"`}},
		{name: "unknown provider from a file", exclude: []string{"codx@user"}, excFile: true,
			warn: []string{`unknown provider "codx"; did you mean codex?`}},
		{name: "a typed list stays strict beside a file's", include: []string{"auto", "user-onyl"},
			exclude: []string{"team-only"}, excFile: true, err: `include: invalid filter token "user-onyl"`},
		{name: "unknown plugin flag", include: []string{"@plugins:tols"}, err: `no installed plugin is named tols; did you mean @plugins:tools?`},
		{name: "unknown plugin from a file", include: []string{"auto", "@plugins:tols"}, incFile: true,
			warn: []string{`"@plugins:tols"`}},
		{name: "unknown plugin skill flag", include: []string{"@tools:pfd"}, err: `no skill or command of plugin tools is named pfd`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := m.config()
			cfg.Include, cfg.Exclude = tt.include, tt.exclude
			cfg.IncludeFromFile, cfg.ExcludeFromFile = tt.incFile, tt.excFile
			snap, _, err := m.engine(t, cfg).Snapshot(context.Background())
			if tt.err != "" {
				if !IsConfigError(err) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Snapshot error = %v, want a config error holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Snapshot: %v", err)
			}
			var warned []string
			for _, d := range snap.Diagnostics {
				if d.Code == FilterNamesNothing {
					if d.Severity != pipeline.SeverityWarning {
						t.Errorf("%s diagnostic is a %s, want a warning", d.Code, d.Severity)
					}
					warned = append(warned, d.Message)
				}
			}
			if len(warned) != len(tt.warn) {
				t.Fatalf("warnings %q, want one for each of %q", warned, tt.warn)
			}
			for i, w := range tt.warn {
				if !strings.Contains(warned[i], w) {
					t.Errorf("warning %q does not hold %q", warned[i], w)
				}
			}
			if _, err := snap.Resolve("pdf"); err != nil {
				t.Errorf("pdf is not visible: %v", err)
			}
			if tt.hidden != "" {
				if _, err := snap.Resolve(tt.hidden); err == nil {
					t.Errorf("%s is visible; the file's other tokens must still apply", tt.hidden)
				}
			}
		})
	}
}

// TestIncludeDisabledPlugin checks that an include token naming a plugin
// the settings disable says so, with the file to enable it in, and that an
// exclude token may name it.
func TestIncludeDisabledPlugin(t *testing.T) {
	m := newMachine(t)
	m.write(t, map[string]string{"home/.claude/settings.json": `{"enabledPlugins": {"tools@market": false}}`})
	settings := m.abs("home/.claude/settings.json")

	cfg := m.config()
	cfg.Include = []string{"@plugins:tools"}
	_, _, err := m.engine(t, cfg).Snapshot(context.Background())
	want := `include: invalid filter token "@plugins:tools": plugin tools is disabled (enable it in ` + settings +
		` enabledPlugins: "tools@market": true)`
	if !IsConfigError(err) || err.Error() != want {
		t.Errorf("--include @plugins:tools: err = %v\nwant %s", err, want)
	}

	cfg = m.config()
	cfg.Exclude = []string{"@plugins:tools", "@tools:pdf"}
	snap, _ := snapshot(t, m.engine(t, cfg))
	for _, d := range snap.Diagnostics {
		if d.Code == FilterNamesNothing {
			t.Errorf("excluding a disabled plugin warned: %s", d.Message)
		}
	}
}
