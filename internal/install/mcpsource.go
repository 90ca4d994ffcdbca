package install

import (
	"fmt"
	"os"
	"strings"

	"github.com/ccski/ccski/internal/skillsext"
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

// fetchMCP reads the skills of an MCP server source into a new temporary
// folder, each at its skill path (skill://codex/pdf/SKILL.md at
// codex/pdf/SKILL.md), every file checked against the entry's digest and
// size before it is written: Discover then reads the folder as any other
// tree of skills. With src.Path, only the skills below that path are
// read.
func (in *Installer) fetchMCP(src Source) (string, error) {
	var o skillsext.Options
	if in.MCP != nil {
		o = in.MCP(src.URL)
	}
	s, err := skillsext.Dial(in.Ctx, src.URL, o)
	if err != nil {
		return "", err
	}
	defer s.Close()
	l, err := s.List()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "ccski-mcp-")
	if err != nil {
		return "", err
	}
	for _, sk := range l.Skills {
		if src.Path != "" && sk.Path != src.Path && !strings.HasPrefix(sk.Path, src.Path+"/") {
			continue
		}
		if err := s.WriteSkill(sk, dir); err != nil {
			os.RemoveAll(dir)
			return "", err
		}
	}
	return dir, nil
}
