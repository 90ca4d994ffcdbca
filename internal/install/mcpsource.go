package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/pipeline"
)

// MCPPrefix marks a SOURCE as an MCP server: mcp+https://host/mcp. A
// plain https:// URL stays a git repository, as it always was.
const MCPPrefix = "mcp+"

// parseMCP reads the URL after mcp+, with an optional #path narrowing
// the server's skills to the skill paths below it.
func parseMCP(rest string) (Source, error) {
	u, path, hasPath := strings.Cut(rest, "#")
	if err := checkMCPURL(u); err != nil {
		return Source{}, err
	}
	src := Source{Kind: KindMCP, URL: u}
	if hasPath {
		p, err := cleanSubpath(path)
		if err != nil {
			return Source{}, fmt.Errorf("source %s%s: %w", MCPPrefix, rest, err)
		}
		src.Path = p
	}
	return src, nil
}

// checkMCPURL accepts the endpoint of an MCP server (see
// skillsext.CheckURL): a lock's URL arrives with a clone.
func checkMCPURL(u string) error { return skillsext.CheckURL(u) }

// mcpTree is a materialised MCP server source: a temporary folder
// holding, at first, each skill's SKILL.md alone (what Discover reads),
// and the session that widen completes a skill's folder through.
type mcpTree struct {
	s      *skillsext.Session
	root   string
	skills map[string]skillsext.Skill // by folder
	whole  map[string]bool            // the folders widen completed
}

// fetchMCP lists the skills of an MCP server source (with src.Path, those
// below that skill path) and writes each one's SKILL.md into a new
// temporary folder at its skill path (skill://codex/pdf/SKILL.md at
// codex/pdf/SKILL.md), checked against the entry's digest and size:
// Discover then reads the folder as any other tree of skills, and widen
// fetches the rest of the skills that are installed, checked the same
// way, before anything is copied.
func (in *Installer) fetchMCP(src Source) (*mcpTree, error) {
	var o skillsext.Options
	if in.MCP != nil {
		o = in.MCP(src.URL)
	}
	s, err := skillsext.Dial(in.Ctx, src.URL, o)
	if err != nil {
		return nil, err
	}
	l, err := s.List()
	if err != nil {
		s.Close()
		return nil, err
	}
	tmp := "" // the run's temporary folder, as for the other fetched sources
	if in.HTTP != nil {
		tmp = in.HTTP.TempDir
	}
	dir, err := os.MkdirTemp(tmp, "ccski-mcp-")
	if err == nil {
		// Discover names folders with links resolved (/var is
		// /private/var on macOS): so must widen's map.
		var real string
		if real, err = filepath.EvalSymlinks(dir); err == nil {
			dir = real
		} else {
			os.RemoveAll(dir)
		}
	}
	if err != nil {
		s.Close()
		return nil, err
	}
	t := &mcpTree{s: s, root: dir, skills: map[string]skillsext.Skill{}, whole: map[string]bool{}}
	var want []skillsext.Skill
	for _, sk := range l.Skills {
		if src.Path != "" && sk.Path != src.Path && !strings.HasPrefix(sk.Path, src.Path+"/") {
			continue
		}
		want = append(want, sk)
		t.skills[sk.Dir(dir)] = sk
	}
	if err := s.WriteAll(want, dir, isSkillFile); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

// isSkillFile reports whether a skill's file is its SKILL.md.
func isSkillFile(path string) bool { return path == pipeline.SkillFile }

// widen writes the files of the skill at folder dir besides its
// SKILL.md, once.
func (t *mcpTree) widen(dir string) error {
	sk, ok := t.skills[dir]
	if !ok {
		return fmt.Errorf("%s is no skill folder of the MCP server's listing", dir)
	}
	if t.whole[dir] {
		return nil
	}
	if err := t.s.WriteFiles(sk, t.root, func(p string) bool { return !isSkillFile(p) }); err != nil {
		return err
	}
	t.whole[dir] = true
	return nil
}

// close ends the session and removes the folder.
func (t *mcpTree) close() {
	t.s.Close()
	os.RemoveAll(t.root)
}
