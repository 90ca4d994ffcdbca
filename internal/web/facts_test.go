package web

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// factsMachine is a home with Claude Code and Codex set up (their folders
// and switch files), a project, and a lock in each scope.
type factsMachine struct {
	home, ws         string
	projLock, myLock string
	env              providers.Env
	eng              *engine.Engine
	installed        time.Time
}

const (
	pdfCommit    = "0123456789abcdef0123456789abcdef01234567"
	sheetsCommit = "89abcdef0123456789abcdef0123456789abcdef"
)

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\nBody.\n"
}

func newFactsMachine(t *testing.T) *factsMachine {
	t.Helper()
	root := testfs.TempDir(t)
	m := &factsMachine{home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws")}
	testfs.Write(t, root, map[string]string{
		// Claude Code: a switch that turns notes off, a skill it loads, a
		// nested one it does not.
		"home/.claude/settings.json":                 `{"skillOverrides": {"notes": "off"}}`,
		"home/.claude/skills/notes/SKILL.md":         skillMD("notes"),
		"home/.claude/skills/group/nested/SKILL.md":  skillMD("nested"),
		"ws/.claude/skills/review/SKILL.md":          skillMD("review"),
		"home/.codex/config.toml":                    "[[skills.config]]\nname = \"pdf\"\nenabled = false\n",
		"ws/.git/":                                   "",
		"ws/.agents/skills/pdf/SKILL.md":             skillMD("pdf"),
		"ws/.agents/skills/pdf/skill.sigstore.json":  "{}",
		"home/.agents/skills/sheets/SKILL.md":        skillMD("sheets"),
		"home/.config/ccski/":                        "",
		"ws/.agents/skills/pdf/references/guide.md":  "guide\n",
		"home/.agents/skills/sheets/scripts/fill.py": "print(1)\n",
	})
	m.projLock = filepath.Join(m.ws, install.LockName)
	m.myLock = filepath.Join(m.home, ".config", "ccski", install.LockName)
	bundle := "sha256:" + strings.Repeat("ab", 32)
	proj := &install.Lock{Skills: []install.Entry{{
		Name:   "pdf",
		Source: install.Source{Kind: install.KindGit, URL: "https://github.com/acme/skills", Ref: "v1", Path: "skills/pdf"},
		Commit: pdfCommit, Path: ".",
		Targets: []install.Target{{Agent: "agents", Dir: filepath.Join(m.ws, ".agents", "skills")}},
		Files: []manifest.File{{Path: "SKILL.md", Size: 1, Digest: "sha256:" + strings.Repeat("cd", 32)},
			{Path: "skill.sigstore.json", Size: 2, Digest: bundle}},
		Signer: &provenance.Signer{Identity: "alice@example.com", Issuer: "https://accounts.example.com",
			Bundle: bundle, Format: provenance.FormatSigstore, File: "skill.sigstore.json"},
	}}}
	if err := proj.Write(m.projLock, m.ws); err != nil {
		t.Fatal(err)
	}
	// A folder source that is a clone: elsewhere, the repository at the
	// locked commit installs it.
	mine := &install.Lock{Skills: []install.Entry{{
		Name: "sheets",
		Source: install.Source{Kind: install.KindDir, Dir: filepath.Join(root, "clone", "team"), Path: "sheets",
			Origin: install.Origin{URL: "https://example.com/team/skills.git", Path: "lib"}},
		Commit: sheetsCommit, Path: ".",
		Targets: []install.Target{{Agent: "agents", Dir: filepath.Join(m.home, ".agents", "skills")}},
		Files:   []manifest.File{{Path: "SKILL.md", Size: 1, Digest: "sha256:" + strings.Repeat("ef", 32)}},
	}}}
	if err := mine.Write(m.myLock, m.home); err != nil {
		t.Fatal(err)
	}
	m.installed = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(m.ws, ".agents", "skills", "pdf"), m.installed, m.installed); err != nil {
		t.Fatal(err)
	}
	m.env = providers.NewEnv(m.home, m.ws, func(string) string { return "" })
	eng, err := engine.New(configs.Default(all.Registry()), m.env)
	if err != nil {
		t.Fatal(err)
	}
	m.eng = eng
	return m
}

func (m *factsMachine) snapshot(t *testing.T) *pipeline.Snapshot {
	t.Helper()
	snap, _, err := m.eng.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func (m *factsMachine) config(snap func() *pipeline.Snapshot) FactsConfig {
	return FactsConfig{Snapshot: snap, Env: m.env,
		Locks: []install.Layout{{Scope: install.ScopeProject, Base: m.ws, LockFile: m.projLock},
			{Scope: install.ScopeUser, Base: m.home, LockFile: m.myLock}},
		Managed: validate.ManagedTrees(filepath.Join(m.home, ".claude"), filepath.Join(m.home, ".codex"))}
}

// record finds the skill record of the SKILL.md at rel below root.
func record(t *testing.T, snap *pipeline.Snapshot, file string) *pipeline.Record {
	t.Helper()
	for _, r := range snap.All {
		if r.File == file {
			return r
		}
	}
	t.Fatalf("no record of %s", file)
	return nil
}

// hostOf returns the facts' line of host, failing when there is none.
func hostOf(t *testing.T, f Facts, host string) HostLoad {
	t.Helper()
	for _, h := range f.Hosts {
		if h.Host == host {
			return h
		}
	}
	t.Fatalf("no host %s in %+v", host, f.Hosts)
	return HostLoad{}
}

// TestFacts checks every fact of the skill page against the fixture: the
// lock entry of an installed skill (which lock, source, ref, commit,
// signer, time), each installed host's verdict and switch, and the
// command that installs it elsewhere.
func TestFacts(t *testing.T) {
	m := newFactsMachine(t)
	snap := m.snapshot(t)
	facts := NewFacts(m.config(func() *pipeline.Snapshot { return snap }))
	ctx := context.Background()
	codexConfig := filepath.Join(m.home, ".codex", "config.toml")
	claudeSettings := filepath.Join(m.home, ".claude", "settings.json")

	t.Run("installed from git, switched off in Codex", func(t *testing.T) {
		pdf := record(t, snap, filepath.Join(m.ws, ".agents", "skills", "pdf", "SKILL.md"))
		f := facts(ctx, pdf)
		want := Origin{Lock: m.projLock, Source: "acme/skills@v1#skills/pdf", Ref: "v1", Commit: pdfCommit,
			Signer: "alice@example.com via https://accounts.example.com", Installed: m.installed}
		if f.Origin == nil || *f.Origin != want {
			t.Errorf("origin = %+v, want %+v", f.Origin, want)
		}
		if got, want := f.Install, "ccski install acme/skills@v1#skills/pdf pdf"; got != want {
			t.Errorf("install = %q, want %q", got, want)
		}
		// Installed hosts only, as doctor reports them: Gemini CLI,
		// Copilot and Cursor read .agents/skills but are not set up.
		if len(f.Hosts) != 2 {
			t.Errorf("hosts = %+v, want claude and codex", f.Hosts)
		}
		codex := hostOf(t, f, "codex")
		if codex.Loads || codex.Switch != pipeline.ModeOff || codex.SwitchFile != codexConfig ||
			!strings.Contains(codex.Reason, "config.toml") {
			t.Errorf("codex = %+v, want switched off by %s", codex, codexConfig)
		}
		claude := hostOf(t, f, "claude")
		if claude.Loads || claude.Switch != "" || !strings.Contains(claude.Reason, "does not read "+filepath.Join(m.ws, ".agents", "skills")) {
			t.Errorf("claude = %+v, want not loaded: it does not read .agents/skills", claude)
		}
	})

	t.Run("a folder clone in the user's lock", func(t *testing.T) {
		sheets := record(t, snap, filepath.Join(m.home, ".agents", "skills", "sheets", "SKILL.md"))
		f := facts(ctx, sheets)
		if f.Origin == nil || f.Origin.Lock != m.myLock || f.Origin.Commit != sheetsCommit || f.Origin.Signer != "" ||
			f.Origin.Ref != "" || f.Origin.Installed.IsZero() {
			t.Errorf("origin = %+v, want the user's lock, commit %s, unsigned, a time", f.Origin, sheetsCommit)
		}
		want := "ccski install https://example.com/team/skills.git@" + sheetsCommit + "#lib/sheets sheets --scope user"
		if f.Install != want {
			t.Errorf("install = %q, want %q", f.Install, want)
		}
		if codex := hostOf(t, f, "codex"); !codex.Loads || codex.Switch != "" || codex.Reason != "" {
			t.Errorf("codex = %+v, want loads, no switch", codex)
		}
	})

	t.Run("switched off in Claude Code, not installed by ccski", func(t *testing.T) {
		notes := record(t, snap, filepath.Join(m.home, ".claude", "skills", "notes", "SKILL.md"))
		f := facts(ctx, notes)
		if f.Origin != nil {
			t.Errorf("origin = %+v, want none: no lock names it", f.Origin)
		}
		if got, want := f.Install, "ccski install "+notes.Dir; got != want {
			t.Errorf("install = %q, want %q", got, want)
		}
		claude := hostOf(t, f, "claude")
		if claude.Loads || claude.Switch != pipeline.ModeOff || claude.SwitchFile != claudeSettings ||
			!strings.Contains(claude.Reason, "skillOverrides") {
			t.Errorf("claude = %+v, want switched off by %s", claude, claudeSettings)
		}
		if codex := hostOf(t, f, "codex"); codex.Loads || !strings.Contains(codex.Reason, "Codex does not read") {
			t.Errorf("codex = %+v, want not read", codex)
		}
	})

	t.Run("nested: Claude Code does not load it", func(t *testing.T) {
		nested := record(t, snap, filepath.Join(m.home, ".claude", "skills", "group", "nested", "SKILL.md"))
		claude := hostOf(t, facts(ctx, nested), "claude")
		if claude.Loads || claude.Switch != "" || !strings.Contains(claude.Reason, "group/nested") {
			t.Errorf("claude = %+v, want not loaded: nested", claude)
		}
	})

	t.Run("loaded", func(t *testing.T) {
		review := record(t, snap, filepath.Join(m.ws, ".claude", "skills", "review", "SKILL.md"))
		claude := hostOf(t, facts(ctx, review), "claude")
		if !claude.Loads || claude.Reason != "" || claude.Switch != "" || claude.SwitchFile != "" {
			t.Errorf("claude = %+v, want loads with no switch", claude)
		}
	})
}

// TestFactsPerSnapshot checks that the locks are read once per snapshot,
// not per call, and again for a new snapshot; and that asking writes
// nothing.
func TestFactsPerSnapshot(t *testing.T) {
	m := newFactsMachine(t)
	snap := m.snapshot(t)
	cur := snap
	facts := NewFacts(m.config(func() *pipeline.Snapshot { return cur }))
	pdf := record(t, snap, filepath.Join(m.ws, ".agents", "skills", "pdf", "SKILL.md"))
	before := tree(t, filepath.Dir(m.home))
	for range 3 {
		for _, r := range snap.All {
			facts(context.Background(), r)
		}
	}
	if after := tree(t, filepath.Dir(m.home)); !equalTrees(before, after) {
		t.Errorf("asking for facts changed the machine:\nbefore %v\nafter  %v", before, after)
	}
	if err := os.Remove(m.projLock); err != nil {
		t.Fatal(err)
	}
	if f := facts(context.Background(), pdf); f.Origin == nil {
		t.Errorf("the same snapshot read the lock again: origin gone")
	}
	cur = m.snapshot(t)
	if f := facts(context.Background(), record(t, cur, pdf.File)); f.Origin != nil {
		t.Errorf("a new snapshot kept the lock it had read: origin %+v", f.Origin)
	}
}

// tree maps every path below dir to its size and modification time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fi.Mode().String() + " " + fi.ModTime().String() + " " + strconv.FormatInt(fi.Size(), 10)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestInstallCommand checks the command of the skills no lock names: a
// Claude Code plugin's, from its marketplace; a path with a space, quoted;
// none for a command.
func TestInstallCommand(t *testing.T) {
	for _, tc := range []struct {
		name string
		rec  pipeline.Record
		want string
	}{
		{"claude plugin", pipeline.Record{Name: "tools:lint", Agent: "claude", Dir: "/h/.claude/plugins/cache/mk/tools/1/skills/lint",
			Plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "mk"}}, "ccski install mk lint"},
		{"codex plugin: its folder", pipeline.Record{Name: "tools:lint", Agent: "codex", Dir: "/h/.codex/plugins/tools/lint",
			Plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "mk"}}, "ccski install /h/.codex/plugins/tools/lint"},
		{"quoted folder", pipeline.Record{Name: "it's", Dir: "/h/my skills/it's"}, `ccski install '/h/my skills/it'\''s'`},
		// A name like a flag: "--" ends the flags, or ccski install would
		// read --force as its flag.
		{"plugin skill named like a flag", pipeline.Record{Name: "tools:--force", Agent: "claude", Dir: "/h/.claude/plugins/cache/mk/tools/1/skills/--force",
			Plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "mk"}}, "ccski install -- mk --force"},
		{"folder named like a flag", pipeline.Record{Name: "x", Dir: "-rf"}, "ccski install -- -rf"},
		{"command", pipeline.Record{Type: pipeline.TypeCommand, Name: "deploy", Dir: "/h/.claude/commands"}, ""},
	} {
		if got := installCommand(&tc.rec, nil); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestInstallLineFlagLikeNames checks that the flags come before "--" when
// an argument starts with '-', and that the line is unchanged otherwise.
func TestInstallLineFlagLikeNames(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		args  []string
		want  string
	}{
		{[]string{"--scope", "user"}, []string{"src", "lint"}, "ccski install src lint --scope user"},
		{[]string{"--scope", "user"}, []string{"src", "--dry-run"}, "ccski install --scope user -- src --dry-run"},
		{nil, []string{"-"}, "ccski install -- -"},
	} {
		if got := installLine(tc.flags, tc.args...); got != tc.want {
			t.Errorf("installLine(%q, %q) = %q, want %q", tc.flags, tc.args, got, tc.want)
		}
	}
}
