package providers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

// hasGitAbove reports whether dir or one of its ancestors holds a .git
// entry, in which case "outside any repository" cannot be tested there.
func hasGitAbove(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		p := filepath.Dir(d)
		if p == d {
			return false
		}
		d = p
	}
}

func TestWorkspaceDirs(t *testing.T) {
	tests := []struct {
		name string
		tree map[string]string
		ws   string // relative to the temp dir
		user string // relative to the temp dir; "" means no user folder
		want []string
		// outside marks cases that climb to the file system root, which
		// only works where no ancestor of the temp dir is a repository.
		outside bool
	}{
		{
			name: "stops at the repository root",
			tree: map[string]string{"repo/.git/": "", "repo/a/b/": ""},
			ws:   "repo/a/b", user: "home",
			want: []string{"repo/a/b", "repo/a", "repo"},
		},
		{
			name: "workspace is the repository root",
			tree: map[string]string{"repo/.git/": ""},
			ws:   "repo", user: "home",
			want: []string{"repo"},
		},
		{
			name: "a .git file (worktree or submodule) counts",
			tree: map[string]string{"wt/.git": "gitdir: /elsewhere\n", "wt/x/": ""},
			ws:   "wt/x", user: "home",
			want: []string{"wt/x", "wt"},
		},
		{
			name: "the nearest repository wins over an outer one",
			tree: map[string]string{"outer/.git/": "", "outer/inner/.git": "gitdir: x\n", "outer/inner/src/": ""},
			ws:   "outer/inner/src", user: "home",
			want: []string{"outer/inner/src", "outer/inner"},
		},
		{
			name: "unclean workspace path is cleaned",
			tree: map[string]string{"repo/.git/": "", "repo/a/b/": ""},
			ws:   "repo/a/../a/b/", user: "home",
			want: []string{"repo/a/b", "repo/a", "repo"},
		},
		{
			name: "outside any repository only the workspace",
			tree: map[string]string{"plain/a/b/": ""},
			ws:   "plain/a/b",
			want: []string{"plain/a/b"}, outside: true,
		},
		{
			name: "repository rooted at the user folder is not climbed to",
			tree: map[string]string{"home/.git/": "", "home/proj/sub/": ""},
			ws:   "home/proj/sub", user: "home",
			want: []string{"home/proj/sub"},
		},
		{
			name: "user folder given with a trailing slash",
			tree: map[string]string{"home/.git/": "", "home/proj/sub/": ""},
			ws:   "home/proj/sub", user: "home/",
			want: []string{"home/proj/sub"},
		},
		{
			name: "repository inside the user folder",
			tree: map[string]string{"home/.git/": "", "home/proj/.git/": "", "home/proj/sub/": ""},
			ws:   "home/proj/sub", user: "home",
			want: []string{"home/proj/sub", "home/proj"},
		},
		{
			name: "repository above the user folder is not climbed to",
			tree: map[string]string{".git/": "", "home/x/y/": ""},
			ws:   "home/x/y", user: "home",
			want: []string{"home/x/y"},
		},
		{
			name: "workspace is the user folder inside a repository",
			tree: map[string]string{".git/": "", "home/": ""},
			ws:   "home", user: "home",
			want: []string{"home"},
		},
		{
			name: "workspace is the user folder, which is a repository",
			tree: map[string]string{"home/.git/": ""},
			ws:   "home", user: "home",
			want: []string{"home"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			if tt.outside && hasGitAbove(base) {
				t.Skipf("an ancestor of %s is a repository", base)
			}
			testfs.Write(t, base, tt.tree)
			user := ""
			if tt.user != "" {
				user = filepath.Join(base, tt.user)
				if strings.HasSuffix(tt.user, "/") {
					user += string(filepath.Separator)
				}
			}
			ws := filepath.Join(base, filepath.FromSlash(tt.ws))
			if strings.HasSuffix(tt.ws, "/") {
				ws += string(filepath.Separator)
			}
			got := WorkspaceDirs(ws, user)
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(base, filepath.FromSlash(w)))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("WorkspaceDirs(%q, %q) mismatch (-want +got):\n%s", ws, user, diff)
			}
		})
	}
}

// TestWorkspaceDirsRelative checks that relative paths are made absolute
// before climbing: the parent of "." is "." and would stop the climb.
func TestWorkspaceDirsRelative(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"repo/.git/": "", "repo/a/b/": "", "home/.git/": "", "home/p/q/": ""})
	tests := []struct {
		name     string
		cwd      string // relative to the temp dir
		ws, user string // as given
		want     []string
	}{
		{"dot inside a repository", "repo/a/b", ".", "", []string{"repo/a/b", "repo/a", "repo"}},
		{"relative subfolder", "repo", "a/b", "", []string{"repo/a/b", "repo/a", "repo"}},
		{"relative user folder still stops the climb", "home/p", "q", "..", []string{"home/p/q"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(filepath.Join(base, filepath.FromSlash(tt.cwd)))
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(base, filepath.FromSlash(w)))
			}
			got := WorkspaceDirs(tt.ws, tt.user)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("WorkspaceDirs(%q, %q) mismatch (-want +got):\n%s", tt.ws, tt.user, diff)
			}
		})
	}
}

func TestNewEnv(t *testing.T) {
	base := t.TempDir()
	testfs.Write(t, base, map[string]string{"repo/.git/": "", "repo/sub/": "", "home/": ""})
	home, ws := filepath.Join(base, "home"), filepath.Join(base, "repo", "sub")

	t.Run("given getenv", func(t *testing.T) {
		env := NewEnv(home, ws, func(k string) string { return "v-" + k })
		if env.UserDir != home || env.Workspace != ws {
			t.Errorf("UserDir, Workspace = %q, %q; want %q, %q", env.UserDir, env.Workspace, home, ws)
		}
		if diff := cmp.Diff([]string{ws, filepath.Join(base, "repo")}, env.WorkspaceDirs); diff != "" {
			t.Errorf("WorkspaceDirs mismatch (-want +got):\n%s", diff)
		}
		if got := env.Getenv("X"); got != "v-X" {
			t.Errorf("Getenv(X) = %q, want the given function's v-X", got)
		}
	})
	t.Run("no homes, rules or claims before Prepare", func(t *testing.T) {
		env := NewEnv(home, ws, func(string) string { return "" })
		if env.Homes != nil || env.Rules != nil || env.Claimed != nil {
			t.Errorf("NewEnv filled what Prepare fills: %+v", env)
		}
	})
	t.Run("nil getenv reads the process environment", func(t *testing.T) {
		t.Setenv("CCSKI_TEST_NEWENV", "from-os")
		env := NewEnv(home, ws, nil)
		if env.Getenv == nil {
			t.Fatal("Getenv is nil")
		}
		if got := env.Getenv("CCSKI_TEST_NEWENV"); got != "from-os" {
			t.Errorf("Getenv = %q, want from-os", got)
		}
	})
}

func TestWorkspaceRoots(t *testing.T) {
	tmpl := pipeline.Root{Path: "/ignored", Agent: "claude", Provider: "claude",
		Location: pipeline.LocationProject, Kind: pipeline.KindWorkspaceAgent, Depth: 7, Prefix: "p", Optional: true}
	tests := []struct {
		name string
		dirs []string
		sub  string
		want []pipeline.Root
	}{
		{
			name: "nearest first with depths",
			dirs: []string{"/r/a/b", "/r/a", "/r"},
			sub:  filepath.Join(".claude", "skills"),
			want: []pipeline.Root{
				{Path: "/r/a/b/.claude/skills", Agent: "claude", Provider: "claude", Location: pipeline.LocationProject,
					Kind: pipeline.KindWorkspaceAgent, Depth: 0, Prefix: "p", Optional: true},
				{Path: "/r/a/.claude/skills", Agent: "claude", Provider: "claude", Location: pipeline.LocationProject,
					Kind: pipeline.KindWorkspaceAgent, Depth: 1, Prefix: "p", Optional: true},
				{Path: "/r/.claude/skills", Agent: "claude", Provider: "claude", Location: pipeline.LocationProject,
					Kind: pipeline.KindWorkspaceAgent, Depth: 2, Prefix: "p", Optional: true},
			},
		},
		{
			name: "single folder",
			dirs: []string{"/w"},
			sub:  "skills",
			want: []pipeline.Root{
				{Path: "/w/skills", Agent: "claude", Provider: "claude", Location: pipeline.LocationProject,
					Kind: pipeline.KindWorkspaceAgent, Depth: 0, Prefix: "p", Optional: true},
			},
		},
		{
			name: "no workspace folders",
			dirs: nil,
			sub:  "skills",
			want: []pipeline.Root{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.dirs {
				tt.dirs[i] = filepath.FromSlash(tt.dirs[i])
			}
			for i := range tt.want {
				tt.want[i].Path = filepath.FromSlash(tt.want[i].Path)
			}
			got := WorkspaceRoots(Env{WorkspaceDirs: tt.dirs}, tt.sub, tmpl)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("WorkspaceRoots mismatch (-want +got):\n%s", diff)
			}
			if tmpl.Path != "/ignored" || tmpl.Depth != 7 {
				t.Errorf("template changed: %+v", tmpl)
			}
		})
	}
}

// TestAgentRoots checks the two levels of an agent's folder: the
// workspace roots, nearest first, then the user root, every one optional
// and with the template's other fields, whatever level, kind, path or
// depth the template held.
func TestAgentRoots(t *testing.T) {
	rule := &pipeline.Precedence{Prefer: pipeline.LocationUser, Option: "providers.claude.precedence"}
	tmpl := pipeline.Root{Path: "/ignored", Agent: "claude", Provider: "commands", Location: pipeline.LocationPlugin,
		Kind: pipeline.KindPlugin, Depth: 7, Type: pipeline.TypeCommand, Precedence: rule, Hosts: []string{"claude"}}
	level := func(path string, loc pipeline.Location, kind pipeline.Kind, depth int) pipeline.Root {
		return pipeline.Root{Path: filepath.FromSlash(path), Agent: "claude", Provider: "commands", Location: loc,
			Kind: kind, Depth: depth, Optional: true, Type: pipeline.TypeCommand, Precedence: rule, Hosts: []string{"claude"}}
	}
	tests := []struct {
		name string
		dirs []string
		want []pipeline.Root
	}{
		{name: "workspace and its ancestors, then the user folder",
			dirs: []string{"/r/a", "/r"},
			want: []pipeline.Root{
				level("/r/a/.claude/commands", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 0),
				level("/r/.claude/commands", pipeline.LocationProject, pipeline.KindWorkspaceAgent, 1),
				level("/home/u/.claude/commands", pipeline.LocationUser, pipeline.KindUserAgent, 0),
			}},
		{name: "no workspace folders: the user folder alone",
			want: []pipeline.Root{level("/home/u/.claude/commands", pipeline.LocationUser, pipeline.KindUserAgent, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.dirs {
				tt.dirs[i] = filepath.FromSlash(tt.dirs[i])
			}
			got := AgentRoots(Env{WorkspaceDirs: tt.dirs}, filepath.Join(".claude", "commands"),
				filepath.FromSlash("/home/u/.claude/commands"), tmpl)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("AgentRoots mismatch (-want +got):\n%s", diff)
			}
			if tmpl.Path != "/ignored" || tmpl.Optional || tmpl.Kind != pipeline.KindPlugin {
				t.Errorf("template changed: %+v", tmpl)
			}
		})
	}
}
