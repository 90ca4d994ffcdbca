package action

import (
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// box is a machine for one test: a home folder, a project (a git work
// tree) and the variables the actions see. The actions read the variables
// of the configuration and of the config folder through vars; the cache
// folders (git, digests, the scanner's memory) come from the process's
// environment, which newBox points into the box.
type box struct {
	root, home, proj string
	vars             map[string]string
}

func newBox(t *testing.T) *box {
	t.Helper()
	root := testfs.TempDir(t)
	b := &box{root: root, home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj")}
	testfs.Write(t, root, map[string]string{"home/": "", "proj/.git/": ""})
	b.vars = map[string]string{"HOME": b.home}
	// The git cache is named from the process's cache folder.
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	return b
}

// config loads the configuration as a run in the project would.
func (b *box) config(t *testing.T) *Config {
	t.Helper()
	c, err := LoadConfig(b.process(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// process is a run in the project, with b's variables only.
func (b *box) process() Process {
	return Process{Cwd: b.proj, Home: b.home, Getenv: func(k string) string { return b.vars[k] },
		Environ: func() []string {
			var out []string
			for k, v := range b.vars {
				out = append(out, k+"="+v)
			}
			return out
		}}
}

// skillText is a valid SKILL.md for name, with a body.
func skillText(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\n" + body + "\n"
}
