package install

import (
	"fmt"

	"github.com/ccski/ccski/internal/safefile"
)

// CheckTarget refuses a target folder a project-scope install must not
// write to: one outside the project, or one reached through a symlink
// that leads out of it (a clone's .claude -> ../home/.claude would make a
// project's lock write in the user's home). The symlinks in the longest
// existing prefix of dir are resolved and the result compared with the
// project's real folder; a symlink that stays inside the project is
// fine. The user scope is not confined: a .claude folder symlinked from a
// dotfiles repository is a common and legitimate setup there.
func (l Layout) CheckTarget(dir string) error {
	if l.Scope != ScopeProject {
		return nil
	}
	return confined(l.Base, dir)
}

// confined checks that dir, symlinks resolved, lies inside base
// (safefile.WithinResolved).
func confined(base, dir string) error {
	real, ok, err := safefile.WithinResolved(base, dir)
	switch {
	case err != nil:
		return fmt.Errorf("target %s: %w", dir, err)
	case !ok && real == "":
		return fmt.Errorf("target %s is outside the project %s: a project's skills are installed inside it "+
			"(use --scope user to install elsewhere)", dir, base)
	case !ok:
		return fmt.Errorf("target %s leads outside the project %s through a symlink (to %s): ccski does not write "+
			"there for a project; replace the symlink with a folder, or use --scope user", dir, base, real)
	}
	return nil
}
