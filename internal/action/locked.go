package action

import (
	"slices"

	"github.com/ccski/ccski/internal/install"
)

// LockedSkill is a skill a ccski.lock names, for completing the
// arguments of remove and update.
type LockedSkill struct {
	Name   string
	Scope  install.Scope
	Source string
}

// LockedSkills lists the skills the project's and the user's locks name,
// the project's first, each lock's in its order; a scope with no lock, or
// one that cannot be read, adds none. It never writes or waits.
func LockedSkills(c *Config) ([]LockedSkill, error) {
	e, err := c.Engine()
	if err != nil {
		return nil, err
	}
	env := e.Env()
	var out []LockedSkill
	for _, s := range []install.Scope{install.ScopeProject, install.ScopeUser} {
		l, err := installLayout(env, s)
		if err != nil {
			continue
		}
		lock, err := install.ReadLock(l.LockFile, l.Base, s == install.ScopeProject)
		if err != nil {
			continue
		}
		for _, e := range lock.Skills {
			out = append(out, LockedSkill{Name: e.Name, Scope: s, Source: e.Source.String()})
		}
	}
	return slices.Clip(out), nil
}
