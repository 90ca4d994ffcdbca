package action

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/internal/validate"
)

// TestNewPassesEveryProfile creates a skill for each set of agents and
// checks that it lands where install would put it (the shared folder,
// linked from Claude Code's) and that ccski validate passes it under
// every profile with one warning, the description placeholder, which
// goes away once the description is written.
func TestNewPassesEveryProfile(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		agents []string
		scope  string
		// dir and links are relative to the project (the home folder for
		// the user scope).
		dir   string
		links []string
	}{
		{name: "default", dir: ".agents/skills", links: []string{".claude/skills"}},
		{name: "claude", agents: []string{"claude"}, dir: ".claude/skills"},
		{name: "codex", agents: []string{"codex"}, dir: ".agents/skills"},
		{name: "claude-codex", agents: []string{"claude,codex"}, dir: ".agents/skills", links: []string{".claude/skills"}},
		{name: "all", agents: []string{"all"}, dir: ".agents/skills"},
		{name: "user", scope: "user", dir: ".agents/skills", links: []string{".claude/skills"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t)
			base := b.proj
			if tc.scope == "user" {
				base = b.home
			}
			res, err := New(ctx, b.config(t), NewRequest{Name: "release-notes", Scope: tc.scope, Agents: tc.agents,
				Folders: []string{"assets", "scripts"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := filepath.Join(base, tc.dir, "release-notes"); res.Dir != want {
				t.Errorf("created in %s, want %s", res.Dir, want)
			}
			for _, l := range tc.links {
				p := filepath.Join(base, l, "release-notes")
				if dest, err := os.Readlink(p); err != nil || !strings.HasSuffix(dest, filepath.Join(tc.dir, "release-notes")) {
					t.Errorf("%s is not a link to the new skill (%q, %v)", p, dest, err)
				}
			}
			if tc.name == "all" && len(res.Links) < 2 {
				t.Errorf("--agent all made links %v, want one per agent that does not read .agents/skills", res.Links)
			}
			for _, d := range []string{"assets", "scripts"} {
				if st, err := os.Stat(filepath.Join(res.Dir, d)); err != nil || !st.IsDir() {
					t.Errorf("%s/ was not made: %v", d, err)
				}
			}
			if exists(filepath.Join(res.Dir, "references")) {
				t.Error("references/ was made without being asked for")
			}
			for _, p := range validate.Profiles {
				if diff := cmp.Diff([]string{"warning " + validate.CodeDescriptionPlaceholder}, findings(t, res.File, p)); diff != "" {
					t.Errorf("validate --profile %s of the new skill (-want +got):\n%s", p, diff)
				}
			}
			if len(res.Findings) != 1 || res.Findings[0].Code != validate.CodeDescriptionPlaceholder {
				t.Errorf("the result's findings are %+v, want the placeholder's", res.Findings)
			}

			md, err := os.ReadFile(res.File)
			if err != nil {
				t.Fatal(err)
			}
			written := strings.Replace(string(md), validate.DescriptionPlaceholder,
				"Drafts release notes from merged pull requests. Use when preparing a release.", 1)
			if err := os.WriteFile(res.File, []byte(written), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, p := range validate.Profiles {
				if got := findings(t, res.File, p); len(got) > 0 {
					t.Errorf("validate --profile %s after the description was written: %v", p, got)
				}
			}
		})
	}
}

// findings validates file under p and returns "severity code" of each
// finding.
func findings(t *testing.T, file string, p validate.Profile) []string {
	t.Helper()
	rep, _ := validate.Run(context.Background(), []validate.Target{{File: file}}, nil, validate.Options{Profile: p})
	var out []string
	for _, f := range rep.Findings {
		out = append(out, string(f.Severity)+" "+f.Code)
	}
	return out
}

// TestNewRefusesBadNames checks that a name some profile rejects is a
// usage error naming the rule and the name to use, and that nothing is
// written for it.
func TestNewRefusesBadNames(t *testing.T) {
	for _, tc := range []struct{ name, rule, suggestion string }{
		{"Release_Notes", validate.CodeNameUppercase, "release-notes"},
		{"release notes", validate.CodeNameInvalidChars, "release-notes"},
		{"-notes", validate.CodeNameHyphenEdge, ""},
		{"release--notes", validate.CodeNameDoubleHyphen, ""},
		{strings.Repeat("a", 65), validate.CodeNameTooLong, ""},
		{"../escape", validate.CodeNameInvalidChars, ""},
		{"a:b", validate.CodeNameInvalidChars, ""},
		{"", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t)
			_, err := New(context.Background(), b.config(t), NewRequest{Name: tc.name})
			if err == nil || !IsUsage(err) {
				t.Fatalf("New(%q) = %v, want a usage error", tc.name, err)
			}
			if !strings.Contains(err.Error(), tc.rule) || !strings.Contains(err.Error(), tc.suggestion) {
				t.Errorf("New(%q): %v\nwant the rule %s and the suggestion %q", tc.name, err, tc.rule, tc.suggestion)
			}
			for _, d := range []string{".agents", ".claude"} {
				if exists(filepath.Join(b.proj, d)) {
					t.Errorf("a refused name wrote %s", d)
				}
			}
		})
	}
}

// TestNewNeverOverwrites checks that a name already taken in any target,
// by a skill or anything else, is refused before anything is written.
func TestNewNeverOverwrites(t *testing.T) {
	for _, taken := range []string{".agents/skills/pdf/SKILL.md", ".claude/skills/pdf/notes.md", ".claude/skills/pdf"} {
		t.Run(taken, func(t *testing.T) {
			b := newBox(t)
			testfs.Write(t, b.proj, map[string]string{taken: "mine\n"})
			before := treeOf(t, b.proj)
			_, err := New(context.Background(), b.config(t), NewRequest{Name: "pdf", Folders: []string{"scripts"}})
			var ee *install.ExistsError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), "never overwrites") {
				t.Fatalf("New over %s = %v, want an ExistsError", taken, err)
			}
			if diff := cmp.Diff(before, treeOf(t, b.proj)); diff != "" {
				t.Errorf("the project changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestNewUnknownFolder checks that a folder other than scripts,
// references and assets is a usage error.
func TestNewUnknownFolder(t *testing.T) {
	b := newBox(t)
	if _, err := New(context.Background(), b.config(t), NewRequest{Name: "pdf", Folders: []string{"bin"}}); !IsUsage(err) {
		t.Errorf("folder bin: %v, want a usage error", err)
	}
}

// treeOf lists every path below dir with its content (files) or
// target (links), for comparing a folder before and after.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			out[rel], err = os.Readlink(p)
		case d.IsDir():
			out[rel] = "/"
		default:
			var b []byte
			b, err = os.ReadFile(p)
			out[rel] = string(b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestNewDetectsAgentsAsInstall: with no --agent, a new skill goes where
// install would put one on this machine: with Codex set up (~/.codex) and
// Claude Code not, to the shared .agents/skills only, with no link from
// .claude/skills, and the result says why.
func TestNewDetectsAgentsAsInstall(t *testing.T) {
	b := newBox(t)
	testfs.Write(t, b.home, map[string]string{".codex/": ""})
	res, err := New(context.Background(), b.config(t), NewRequest{Name: "release-notes"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(b.proj, ".agents/skills", "release-notes"); res.Dir != want {
		t.Errorf("created in %s, want %s", res.Dir, want)
	}
	if len(res.Links) != 0 || exists(filepath.Join(b.proj, ".claude/skills", "release-notes")) {
		t.Errorf("links %v made for an agent not detected here", res.Links)
	}
	var got []string
	for _, c := range res.Agents {
		got = append(got, c.Agent+" ("+c.Why+")")
	}
	if len(got) != 2 || !strings.HasPrefix(got[1], "codex (detected: ") {
		t.Errorf("agents chosen: %v, want the shared folder and codex, detected", got)
	}
}
