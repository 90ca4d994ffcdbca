package providers

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// SkillNames returns the names of the skill folders directly below dir:
// its children, hidden ones left out, that hold a SKILL.md regular file
// (or a link to one), sorted. A folder that cannot be read holds none.
// Providers list with it the skills a disabled plugin or extension would
// give (pipeline.DisabledPlugin.Skills) and those a catalog's plugin
// offers; the scanner, not this, walks the skills it serves.
func SkillNames(dir string) []string {
	ents, err := os.ReadDir(dir) // sorted by name
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		if IsSkill(filepath.Join(dir, n)) {
			names = append(names, n)
		}
	}
	return names
}

// IsSkill reports whether dir holds a SKILL.md that is a regular file (or
// a link to one).
func IsSkill(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, pipeline.SkillFile))
	return err == nil && st.Mode().IsRegular()
}
