package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ccski/ccski/pipeline"
)

// Scaffold is a new skill as ccski new writes it: its folder name, the
// content of its SKILL.md and the empty folders beside it.
type Scaffold struct {
	Name    string
	SkillMD []byte
	// Dirs are folders made inside the skill (scripts, references,
	// assets), empty.
	Dirs []string
}

// Created says where Create put a new skill.
type Created struct {
	// Dir is the skill's folder, in the first target.
	Dir string `json:"dir"`
	// Links are the links to Dir made in the other targets.
	Links []string `json:"links,omitempty"`
	// Copies are the other targets where no link could be made (a file
	// system without symlinks), which got a copy instead.
	Copies []string `json:"copies,omitempty"`
}

// ExistsError is Create's refusal to write where a skill (or anything)
// already is.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s already exists: ccski new never overwrites a skill; choose another name, or move that "+
		"folder away first", e.Path)
}

// Create writes a new skill into the first of targets and links it from
// the others, as install places a skill (Targets). Every target is
// checked first: a project's targets must lie inside the project
// (CheckTarget), and none may hold the name yet, so that nothing is
// written when one would be overwritten. The skill is staged in the
// first target's folder and moved into place in one rename, so that an
// agent never reads half a skill; a rename cannot replace a folder that
// holds anything, so a folder made meanwhile is never overwritten either.
func (l Layout) Create(s Scaffold, targets []Target) (Created, error) {
	if len(targets) == 0 {
		return Created{}, errors.New("no folder to create the skill in")
	}
	if err := checkName(s.Name); err != nil {
		return Created{}, err
	}
	for _, t := range targets {
		if err := l.CheckTarget(t.Dir); err != nil {
			return Created{}, err
		}
		if p := filepath.Join(t.Dir, s.Name); exists(p) {
			return Created{}, &ExistsError{Path: p}
		}
	}
	first := targets[0]
	if err := os.MkdirAll(first.Dir, 0o755); err != nil {
		return Created{}, fmt.Errorf("creating %s: %w", first.Dir, err)
	}
	stage, done, err := newStage(first.Dir)
	if err != nil {
		return Created{}, err
	}
	defer done(false)
	staged := filepath.Join(stage, s.Name)
	if err := os.Mkdir(staged, 0o755); err != nil {
		return Created{}, fmt.Errorf("staging the skill: %w", err)
	}
	if err := os.WriteFile(filepath.Join(staged, pipeline.SkillFile), s.SkillMD, 0o644); err != nil {
		return Created{}, fmt.Errorf("staging the skill: %w", err)
	}
	for _, d := range s.Dirs {
		if err := os.Mkdir(filepath.Join(staged, d), 0o755); err != nil {
			return Created{}, fmt.Errorf("staging the skill: %w", err)
		}
	}
	out := Created{Dir: filepath.Join(first.Dir, s.Name)}
	if exists(out.Dir) {
		return Created{}, &ExistsError{Path: out.Dir}
	}
	if err := os.Rename(staged, out.Dir); err != nil {
		if errors.Is(err, fs.ErrExist) || exists(out.Dir) {
			return Created{}, &ExistsError{Path: out.Dir}
		}
		return Created{}, fmt.Errorf("moving the skill into %s: %w", first.Dir, err)
	}
	for _, t := range targets[1:] {
		p := filepath.Join(t.Dir, s.Name)
		linked, err := newLink(t.Dir, out.Dir, p)
		if err != nil {
			return out, fmt.Errorf("the skill is in %s, but linking it from %s failed: %w", out.Dir, t.Dir, err)
		}
		if linked {
			out.Links = append(out.Links, p)
		} else {
			out.Copies = append(out.Copies, p)
		}
	}
	return out, nil
}

// newLink makes p, in folder dir, a relative link to the skill folder
// canon, or, where the system makes no links, a copy of it. It never
// replaces p.
func newLink(dir, canon, p string) (linked bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("creating %s: %w", dir, err)
	}
	rel, err := filepath.Rel(dir, canon)
	if err != nil {
		rel = canon
	}
	err = symlink(rel, p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrExist):
		return false, &ExistsError{Path: p}
	}
	if exists(p) {
		return false, &ExistsError{Path: p}
	}
	_, err = copySkill(canon, p, filepath.Dir(canon))
	return false, err
}
