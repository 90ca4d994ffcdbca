//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckLinks: a path is refused when the file or a folder on the way
// to it is a link that leads out of the root, naming that link and where
// it leads; links that stay inside, a root that is itself a link, and
// parts not made yet are fine.
func TestCheckLinks(t *testing.T) {
	base := t.TempDir()
	proj, out := filepath.Join(base, "proj"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(proj, ".claude"), filepath.Join(proj, "shared"), out, filepath.Join(base, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(out, "settings.json"), filepath.Join(proj, ".claude", "settings.json"))
	link("../shared/local.json", filepath.Join(proj, ".claude", "settings.local.json"))
	link(out, filepath.Join(proj, ".gemini"))
	link("../../out/dangling.md", filepath.Join(proj, ".claude", "CLAUDE.md"))
	link("../out", filepath.Join(proj, "up"))
	link(filepath.Join(base, "real"), filepath.Join(base, "home"))

	for _, tc := range []struct {
		name, root, path string
		link, target     string // the *LinkError wanted, or "" for none
	}{
		{name: "a file linked out", root: proj, path: filepath.Join(proj, ".claude", "settings.json"),
			link: filepath.Join(proj, ".claude", "settings.json"), target: filepath.Join(out, "settings.json")},
		{name: "a folder linked out", root: proj, path: filepath.Join(proj, ".gemini", "settings.json"),
			link: filepath.Join(proj, ".gemini"), target: out},
		{name: "a relative link that climbs out", root: proj, path: filepath.Join(proj, "up", "x"),
			link: filepath.Join(proj, "up"), target: out},
		{name: "a dangling link out", root: proj, path: filepath.Join(proj, ".claude", "CLAUDE.md"),
			link: filepath.Join(proj, ".claude", "CLAUDE.md"), target: filepath.Join(out, "dangling.md")},
		{name: "a link that stays inside", root: proj, path: filepath.Join(proj, ".claude", "settings.local.json")},
		{name: "a file not made yet", root: proj, path: filepath.Join(proj, ".codex", "new", "config.toml")},
		{name: "a root that is itself a link", root: filepath.Join(base, "home"), path: filepath.Join(base, "home", "settings.json")},
		{name: "a root not made yet", root: filepath.Join(base, "none"), path: filepath.Join(base, "none", "settings.json")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckLinks(tc.root, tc.path)
			var le *LinkError
			switch {
			case tc.link == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tc.link != "" && !errors.As(err, &le):
				t.Fatalf("got %v, want a *LinkError", err)
			case tc.link != "" && (le.Link != tc.link || le.Target != tc.target || le.File != tc.path || le.Root != tc.root):
				t.Errorf("got %+v, want link %s to %s", le, tc.link, tc.target)
			case tc.link != "" && (!strings.Contains(err.Error(), tc.link) || !strings.Contains(err.Error(), tc.target)):
				t.Errorf("the message does not name the link and its target: %v", err)
			}
		})
	}
	if err := CheckLinks(proj, out); err == nil {
		t.Error("a path outside the root is accepted")
	}
}

// TestWriteRefusesLinkOutOfRoot: with Root set, Write leaves a link that
// leads out of it, and its target, as they are; a link inside the root is
// written through and stays a link.
func TestWriteRefusesLinkOutOfRoot(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	rc := filepath.Join(base, ".bashrc")
	write(t, rc, []byte("export A=1\n"))
	if err := os.MkdirAll(filepath.Join(proj, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(proj, "docs", "rules.md"), []byte("rules\n"))
	out, in := filepath.Join(proj, "CLAUDE.md"), filepath.Join(proj, "AGENTS.md")
	if err := os.Symlink(rc, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("docs/rules.md", in); err != nil {
		t.Fatal(err)
	}
	var le *LinkError
	if err := Write(out, []byte("block\n"), WriteOptions{Root: proj}); !errors.As(err, &le) {
		t.Fatalf("got %v, want a *LinkError", err)
	}
	if got, _ := os.ReadFile(rc); string(got) != "export A=1\n" {
		t.Errorf("the link's target changed: %q", got)
	}
	if err := Write(in, []byte("block\n"), WriteOptions{Root: proj}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(proj, "docs", "rules.md")); string(got) != "block\n" {
		t.Errorf("the target inside the root holds %q", got)
	}
	if st, err := os.Lstat(in); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link inside the root is no longer a link: %v", err)
	}
}

// TestResolve: every link on a path is resolved as far as the path
// exists, a dangling link to where it would lead, and the parts that do
// not exist are kept as written; a loop is an error.
func TestResolve(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/b", "out"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"a/up":       "../out",                   // a folder link that climbs
		"a/abs":      filepath.Join(base, "out"), // an absolute one
		"a/dangling": "../out/none/file",         // leads nowhere yet
		"a/chain":    "up/../a/dangling",         // a link through a link, then ..
		"a/loop1":    "loop2",
		"a/loop2":    "loop1",
	} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ path, want string }{
		{"a/b", "a/b"},
		{"a/b/new/file", "a/b/new/file"},
		{"a/up/x", "out/x"},
		{"a/abs", "out"},
		{"a/dangling", "out/none/file"},
		{"a/chain", "out/none/file"},
		{"a/./b/../up", "out"},
	} {
		got, err := Resolve(filepath.Join(base, tc.path))
		if want := filepath.Join(base, tc.want); err != nil || got != want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", tc.path, got, err, want)
		}
	}
	if got, err := Resolve(filepath.Join(base, "a/loop1/x")); err == nil {
		t.Errorf("Resolve of a loop = %q, want an error", got)
	}
}

// TestWithinResolved: a path inside the root as written and where its
// links lead is inside; one a link leads out of (a dangling link by
// where it would lead) is not, and says where it leads; one outside as
// written is not, whatever its links; a root reached through a link is
// resolved too; a loop is an error.
func TestWithinResolved(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, out := filepath.Join(base, "proj"), filepath.Join(base, "out")
	for _, d := range []string{filepath.Join(proj, "real"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"proj/in":       "real",
		"proj/out":      "../out",
		"proj/dangling": "../out/none",
		"proj/loop1":    "loop2",
		"proj/loop2":    "loop1",
		"via":           "proj",
		"out/back":      "../proj/real",
	} {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		root, path string
		ok         bool
		real       string // "" when not inside as written
	}{
		{root: "proj", path: "proj", ok: true, real: "proj"},
		{root: "proj", path: "proj/real/x", ok: true, real: "proj/real/x"},
		{root: "proj", path: "proj/in/x", ok: true, real: "proj/real/x"},
		{root: "proj", path: "proj/new/x", ok: true, real: "proj/new/x"},
		{root: "proj", path: "proj/out/x", real: "out/x"},
		{root: "proj", path: "proj/dangling", real: "out/none"},
		{root: "proj", path: "out/back"},
		{root: "via", path: "via/in", ok: true, real: "proj/real"},
		{root: "via", path: "via/out", real: "out"},
	} {
		real, ok, err := WithinResolved(filepath.Join(base, tc.root), filepath.Join(base, tc.path))
		want := ""
		if tc.real != "" {
			want = filepath.Join(base, tc.real)
		}
		if err != nil || ok != tc.ok || real != want {
			t.Errorf("WithinResolved(%s, %s) = %q, %v, %v; want %q, %v", tc.root, tc.path, real, ok, err, want, tc.ok)
		}
	}
	if _, ok, err := WithinResolved(proj, "real"); ok || err != nil {
		t.Errorf("a relative path: %v, %v; want not inside", ok, err)
	}
	if _, ok, err := WithinResolved(proj, filepath.Join(proj, "loop1", "x")); ok || err == nil {
		t.Errorf("a loop: %v, %v; want an error", ok, err)
	}
}
