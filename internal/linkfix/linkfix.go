// Package linkfix finds the links of skill folders a host needs and does
// not have, and repairs them: a link that became a plain text file
// holding its target (a repository cloned where symlinks are off, as git
// does on Windows without core.symlinks, or copied by a tool that does not
// keep links), and a link ccski install made, recorded in a ccski.lock,
// that is gone. `ccski doctor` reports them; `ccski doctor --fix` repairs
// them.
//
// A repair never writes through a link leading out: the folder the link
// goes in must be reached from the base folder (the project, or the home
// folder) without following a symlink, and the text file is replaced only
// while it still holds what was read.
package linkfix

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/install"
)

// Kind says what is wrong with a link.
type Kind string

// The kinds of problem.
const (
	// TextFile: a plain text file stands where a link to a skill folder
	// belongs; it holds the link's target.
	TextFile Kind = "text-file"
	// Missing: a link ccski install made, recorded in the lock, is gone.
	Missing Kind = "missing"
)

// Problem is one link a host needs that is not there.
type Problem struct {
	Kind Kind `json:"kind"`
	// Path is where the link belongs; Target what it should lead to, as
	// the link holds it (relative to Path's folder, or absolute).
	Path   string `json:"path"`
	Target string `json:"target"`
	// Base is the folder the repair may write below (the project or the
	// home folder).
	Base string `json:"base"`
	// Lock is the ccski.lock that records the link; "" for a text file.
	Lock string `json:"lock,omitempty"`
}

// Skill is the skill folder the link should lead to.
func (p Problem) Skill() string {
	if filepath.IsAbs(p.Target) {
		return p.Target
	}
	return filepath.Join(filepath.Dir(p.Path), p.Target)
}

// Detail says what is wrong and what --fix does, for a person.
func (p Problem) Detail() string {
	switch p.Kind {
	case TextFile:
		return fmt.Sprintf("%s is a plain text file holding %q, not a link: the repository was cloned where "+
			"symlinks are off (git core.symlinks=false, as on Windows); `ccski doctor --fix` makes it the link, "+
			"or clone with `git clone -c core.symlinks=true`", p.Path, p.Target)
	default:
		return fmt.Sprintf("the link %s to %s that ccski install made (%s) is gone; `ccski doctor --fix` makes it again",
			p.Path, p.Skill(), p.Lock)
	}
}

// maxTextLink bounds the size of a file read as a text link: git writes
// the target alone.
const maxTextLink = 4096

// TextLinks returns the text files in the skills folder dir that stand
// for links to skill folders: a small regular file holding one path,
// which leads to a folder with a SKILL.md. base is the folder a repair
// may write below. A missing dir has none.
func TextLinks(dir, base string) []Problem {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Problem
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if target, ok := textLink(p); ok {
			out = append(out, Problem{Kind: TextFile, Path: p, Target: target, Base: base})
		}
	}
	return out
}

// textLink reads the file p as a text link: its target, and whether it is
// one (a single path leading to a skill folder).
func textLink(p string) (string, bool) {
	st, err := os.Lstat(p)
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 || st.Size() > maxTextLink {
		return "", false
	}
	data, err := os.ReadFile(p)
	if err != nil || bytes.ContainsAny(data, "\x00\n\r") {
		return "", false
	}
	target := string(data)
	if strings.TrimSpace(target) != target || filepath.Base(p) == "SKILL.md" {
		return "", false
	}
	dest := filepath.FromSlash(target)
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(filepath.Dir(p), dest)
	}
	if fi, err := os.Stat(filepath.Join(dest, "SKILL.md")); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	return target, true
}

// MissingLinks returns the links the lock, read from layout, records
// (every target after the first with link: true) that are gone.
func MissingLinks(layout install.Layout, lock *install.Lock) []Problem {
	var out []Problem
	for _, e := range lock.Skills {
		if len(e.Targets) < 2 {
			continue
		}
		canon := filepath.Join(e.Targets[0].Dir, e.Name)
		if _, err := os.Stat(filepath.Join(canon, "SKILL.md")); err != nil {
			continue // the copy itself is gone: install --frozen restores it
		}
		for _, t := range e.Targets[1:] {
			if !t.Link {
				continue
			}
			p := filepath.Join(t.Dir, e.Name)
			if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			rel, err := filepath.Rel(t.Dir, canon)
			if err != nil {
				rel = canon
			}
			out = append(out, Problem{Kind: Missing, Path: p, Target: rel, Base: layout.Base, Lock: layout.LockFile})
		}
	}
	return out
}

// Fix repairs p: makes the link, in place of the text file for TextFile.
// It refuses when a folder between p.Base and the link is a symlink (it
// would write elsewhere), when the skill folder is gone, and when what is
// at p.Path changed since it was found.
func Fix(p Problem) error {
	dir := filepath.Dir(p.Path)
	if err := noLinkBetween(p.Base, dir); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(p.Skill(), "SKILL.md")); err != nil {
		return fmt.Errorf("not making the link %s: its skill folder %s has no SKILL.md (%v)", p.Path, p.Skill(), err)
	}
	switch p.Kind {
	case Missing:
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("making %s: %w", dir, err)
		}
		// Symlink fails when something is there: nothing is replaced.
		if err := os.Symlink(p.Target, p.Path); err != nil {
			return fmt.Errorf("making the link %s: %w", p.Path, err)
		}
		return nil
	case TextFile:
		target, ok := textLink(p.Path)
		if !ok || target != p.Target {
			return fmt.Errorf("not replacing %s: it is no longer a text file holding %q", p.Path, p.Target)
		}
		tmp := filepath.Join(dir, ".ccski-link-"+filepath.Base(p.Path))
		_ = os.Remove(tmp)
		if err := os.Symlink(filepath.FromSlash(p.Target), tmp); err != nil {
			return fmt.Errorf("making the link %s: %w", p.Path, err)
		}
		// The rename replaces the text file at once: no moment without
		// either.
		if err := os.Rename(tmp, p.Path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("replacing %s with a link: %w", p.Path, err)
		}
		return nil
	}
	return fmt.Errorf("unknown link problem %q", p.Kind)
}

// noLinkBetween checks that dir lies below base (or is base) and that no
// folder from base down to dir is a symlink.
func noLinkBetween(base, dir string) error {
	if base == "" {
		return fmt.Errorf("not writing in %s: no base folder to confine the repair to", dir)
	}
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("not writing in %s: it is outside %s", dir, base)
	}
	cur := base
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		st, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // made below by the repair
		}
		if err != nil {
			return err
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("not writing in %s: %s is a symlink, and ccski does not write through a link", dir, cur)
		}
	}
	return nil
}
