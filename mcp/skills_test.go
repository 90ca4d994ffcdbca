package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/pipeline"
)

// skillsClient connects a client that can send the extension's methods.
func skillsClient(t *testing.T, srv *Server, pv string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "skills-client", Version: "1"}, nil)
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](c, "skills/list"),
		sdk.AddSendingCustomMethod[*getSkillParams, *getSkillResult](c, "skills/get"),
		sdk.AddSendingCustomMethod[*readDirParams, *readDirResult](c, "resources/directory/read"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx := testCtx(t, 10*time.Second)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	return connectClient(t, c, ct, pv)
}

func listAll(t *testing.T, ctx context.Context, cs *sdk.ClientSession) (entries []*extEntry, pages []*listSkillsResult) {
	t.Helper()
	p := &listSkillsParams{}
	for {
		res, err := sdk.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, cs, "skills/list", p)
		if err != nil {
			t.Fatalf("skills/list: %v", err)
		}
		pages = append(pages, res)
		entries = append(entries, res.Skills...)
		if res.NextCursor == "" {
			return entries, pages
		}
		p = &listSkillsParams{Cursor: res.NextCursor}
	}
}

func getSkill(ctx context.Context, cs *sdk.ClientSession, uri string) (*extEntry, error) {
	res, err := sdk.CallCustomMethod[*getSkillParams, *getSkillResult](ctx, cs, "skills/get", &getSkillParams{URI: uri})
	if err != nil {
		return nil, err
	}
	return res.Skill, nil
}

func readDir(ctx context.Context, cs *sdk.ClientSession, uri string) ([]*sdk.Resource, error) {
	res, err := sdk.CallCustomMethod[*readDirParams, *readDirResult](ctx, cs, "resources/directory/read", &readDirParams{URI: uri})
	if err != nil {
		return nil, err
	}
	out := make([]*sdk.Resource, 0, len(res.Resources))
	for _, c := range res.Resources {
		r := &sdk.Resource{URI: c.URI, Name: c.Name, MIMEType: c.MIMEType}
		if c.Size != nil {
			r.Size = *c.Size
		}
		out = append(out, r)
	}
	return out, nil
}

func wantInvalidParams(t *testing.T, what string, err error) {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("%s: %v, want a -32602 error", what, err)
	}
}

// wantNotFound fails the test unless err is "resource not found" with
// the code of the era pv negotiates: -32002 before 2026-07-28, -32602
// from it (resourceNotFoundIn).
func wantNotFound(t *testing.T, pv, what string, err error) {
	t.Helper()
	code := int64(jsonrpc.CodeInvalidParams)
	if wantNegotiated(pv) < statelessEra {
		code = codeResourceNotFound
	}
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != code || !strings.HasPrefix(we.Message, notFoundMessage) {
		t.Errorf("%s: %v, want a %d %q error", what, err, code, notFoundMessage)
	}
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// extensionSkills makes a tree with a skill of several files, a plugin
// skill, a skill whose name breaks the rules and one over the file limit.
func extensionSkills(t *testing.T) (recs []*pipeline.Record, lint, bad, huge *pipeline.Record) {
	t.Helper()
	base := t.TempDir()
	recs = makeRecords(t, base,
		skillSpec{provider: "claude", name: "lint", desc: "Lint code.",
			body: "---\nname: lint\ndescription: Lint code.\nlicense: MIT\nmetadata:\n  version: 1.0\n  tags: [a, b]\n---\n# Lint\n"},
		skillSpec{provider: "claude", loc: pipeline.LocationPlugin, name: "tools:review", desc: "Review.",
			body: "---\nname: review\ndescription: Review.\n---\n", plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "m", Version: "1"}},
		skillSpec{provider: "codex", name: "My Skill", desc: "Bad name."},
		skillSpec{provider: "codex", name: "huge", desc: "Too many files."})
	lint, bad, huge = recs[0], recs[2], recs[3]
	writeFile(t, filepath.Join(lint.Dir, "references", "guide.md"), []byte("# Guide\n"))
	writeFile(t, filepath.Join(lint.Dir, "references", "deep", "more.md"), []byte("deeper\n"))
	writeFile(t, filepath.Join(lint.Dir, "scripts", "run.sh"), []byte("#!/bin/sh\n"))
	writeFile(t, filepath.Join(lint.Dir, ".hidden"), []byte("hidden\n"))
	writeFile(t, filepath.Join(lint.Dir, "scripts", "__init__.py"), nil)
	writeFile(t, filepath.Join(lint.Dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n")) // a clone's history is not served
	for target, link := range map[string]string{".git": "gitdir", ".git/HEAD": "head", "references": "refs-link"} {
		// Links into .git are not served; a link to a folder is not followed.
		if err := os.Symlink(filepath.Join(lint.Dir, target), filepath.Join(lint.Dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(lint.Dir, "assets", "blob.bin"), []byte{0, 1, 2, 0xff})
	writeFile(t, filepath.Join(base, "outside.txt"), []byte("secret\n"))
	if err := os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(lint.Dir, "leak.txt")); err != nil {
		t.Fatal(err)
	}
	for i := range 513 {
		writeFile(t, filepath.Join(huge.Dir, "files", fmt.Sprintf("f%03d.txt", i)), []byte("x"))
	}
	return recs, lint, bad, huge
}

func TestSkillsCapability(t *testing.T) {
	recs, _, _, _ := extensionSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			cs := skillsClient(t, srv, pv)
			caps := cs.InitializeResult().Capabilities
			got, ok := caps.Extensions[SkillsExtension].(map[string]any)
			if !ok || got["directoryRead"] != true || caps.Resources == nil {
				t.Errorf("capabilities %+v: want extensions[%q] = {directoryRead: true} and resources", caps, SkillsExtension)
			}
		})
	}
}

func TestSkillsExtensionList(t *testing.T) {
	recs, lint, bad, huge := extensionSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard(), ListTTL: 30 * time.Second})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 20*time.Second)
			cs := skillsClient(t, srv, pv)
			entries, pages := listAll(t, ctx, cs)
			var uris []string
			for _, e := range entries {
				uris = append(uris, e.URI)
			}
			// The bad name and the skill over the file limit are left out.
			if want := []string{"skill://claude/lint/SKILL.md", "skill://claude/plugins/tools/review/SKILL.md"}; !slices.Equal(uris, want) {
				t.Errorf("listed %v, want %v", uris, want)
			}
			first := pages[0]
			wantType := ""
			if wantNegotiated(pv) >= statelessEra {
				wantType = "complete"
			}
			if first.TTLMs != 30000 || first.CacheScope != "private" || first.ResultType != wantType {
				t.Errorf("ttlMs %d cacheScope %q resultType %q, want 30000, private, %q", first.TTLMs, first.CacheScope, first.ResultType, wantType)
			}
			e := entries[0]
			wantFront := map[string]any{"name": "lint", "description": "Lint code.", "license": "MIT",
				"metadata": map[string]any{"version": 1.0, "tags": []any{"a", "b"}}}
			if diff := cmp.Diff(wantFront, e.Frontmatter); diff != "" {
				t.Errorf("frontmatter (-want +got):\n%s", diff)
			}
			var files []string
			for _, res := range e.Resources {
				rel := strings.TrimPrefix(res.URI, "skill://claude/lint/")
				files = append(files, rel)
				data, err := os.ReadFile(filepath.Join(lint.Dir, filepath.FromSlash(rel)))
				if err != nil {
					t.Fatal(err)
				}
				if res.Digest != digestOf(data) || res.Size != int64(len(data)) {
					t.Errorf("%s: digest %s size %d, want %s %d", rel, res.Digest, res.Size, digestOf(data), len(data))
				}
				// Every manifest entry reads, byte for byte.
				c := readOne(t, ctx, cs, res.URI)
				if c.Text == "" && c.Blob == nil {
					t.Errorf("%s read with neither text nor blob", res.URI)
				}
				got := []byte(c.Text)
				if c.Blob != nil {
					got = c.Blob
				}
				if digestOf(got) != res.Digest {
					t.Errorf("%s reads bytes of digest %s, the manifest says %s", res.URI, digestOf(got), res.Digest)
				}
			}
			wantFiles := []string{".hidden", "SKILL.md", "assets/blob.bin", "references/deep/more.md", "references/guide.md", "scripts/__init__.py", "scripts/run.sh"}
			if !slices.Equal(files, wantFiles) {
				t.Errorf("manifest %v, want %v (complete, nothing outside)", files, wantFiles)
			}
			// skills/get answers for every listed skill; the one with a bad
			// name and the one over the limit are refused, saying why, as
			// skills/list leaves them out.
			for _, uri := range uris {
				got, err := getSkill(ctx, cs, uri)
				if err != nil || got.URI != uri {
					t.Errorf("skills/get %s: %+v, %v", uri, got, err)
				}
			}
			_, err := getSkill(ctx, cs, bad.SkillURI())
			wantInvalidParams(t, "skills/get of a bad name", err)
			if err == nil || !strings.Contains(err.Error(), "Agent Skills names are") {
				t.Errorf("skills/get of a bad name: %v, want the rule named", err)
			}
			if got, _ := getSkill(ctx, cs, lint.SkillURI()); !cmp.Equal(got, e) {
				t.Errorf("skills/get and skills/list disagree on %s", e.URI)
			}
			_, err = getSkill(ctx, cs, huge.SkillURI())
			wantInvalidParams(t, "skills/get over the limit", err)
			if err == nil || !strings.Contains(err.Error(), "512") {
				t.Errorf("skills/get over the limit: %v, want the limit named", err)
			}
			for _, uri := range []string{"skill://claude/lint/gitdir/HEAD", "skill://claude/lint/head", "skill://claude/lint/.git/HEAD"} {
				if msg := readErr(t, ctx, cs, uri); !strings.Contains(strings.ToLower(msg), "not found") {
					t.Errorf("read %s: %q, want not found", uri, msg)
				}
			}
			for _, uri := range []string{"skill://claude/nope/SKILL.md", "skill://claude/lint/references/guide.md", "skill://claude/lint", "",
				legacySkillURI(lint.ID, "SKILL.md"), "skill://lint/SKILL.md"} {
				_, err := getSkill(ctx, cs, uri)
				wantInvalidParams(t, "skills/get "+uri, err)
			}
		})
	}
}

func TestSkillsExtensionPages(t *testing.T) {
	base := t.TempDir()
	var specs []skillSpec
	for i := range 2*skillsPageSize + 50 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("s%04d", i), desc: "Skill."})
	}
	recs := makeRecords(t, base, specs...)
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 30*time.Second)
	cs := skillsClient(t, srv, "")
	entries, pages := listAll(t, ctx, cs)
	if len(pages) != 3 || len(pages[0].Skills) != skillsPageSize || len(pages[2].Skills) != 50 {
		t.Errorf("%d pages, want pages of %d, %d and 50", len(pages), skillsPageSize, skillsPageSize)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.URI] {
			t.Errorf("%s listed twice", e.URI)
		}
		seen[e.URI] = true
	}
	if len(seen) != len(recs) {
		t.Errorf("%d skills listed, want %d", len(seen), len(recs))
	}
	_, err := sdk.CallCustomMethod[*listSkillsParams, *listSkillsResult](ctx, cs, "skills/list", &listSkillsParams{Cursor: "!!"})
	wantInvalidParams(t, "a bad cursor", err)
}

func TestSkillsDigestFollowsEdits(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 20*time.Second)
	cs := skillsClient(t, srv, "")
	guide := filepath.Join(lint.Dir, "references", "guide.md")
	digest := func() string {
		e, err := getSkill(ctx, cs, lint.SkillURI())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range e.Resources {
			if strings.HasSuffix(r.URI, "/references/guide.md") {
				return r.Digest
			}
		}
		t.Fatal("guide.md not in the manifest")
		return ""
	}
	before := digest()
	writeFile(t, guide, []byte("# Guide, edited\n"))
	later := time.Now().Add(2 * time.Second)
	if err := os.Chtimes(guide, later, later); err != nil {
		t.Fatal(err)
	}
	if after := digest(); after == before || after != digestOf([]byte("# Guide, edited\n")) {
		t.Errorf("digest after the edit %s (before %s), want the new bytes' digest", after, before)
	}
}

func TestDirectoryRead(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := skillsClient(t, srv, pv)
			type child struct{ URI, Name, MIME string }
			list := func(uri string) []child {
				t.Helper()
				res, err := readDir(ctx, cs, uri)
				if err != nil {
					t.Fatalf("resources/directory/read %s: %v", uri, err)
				}
				var out []child
				for _, r := range res {
					out = append(out, child{r.URI, r.Name, r.MIMEType})
				}
				return out
			}
			root := "skill://claude/lint"
			want := []child{
				{root + "/.hidden", ".hidden", ""}, // no extension: the type is known once read
				{root + "/SKILL.md", "SKILL.md", "text/markdown"},
				{root + "/assets", "assets", "inode/directory"},
				{root + "/references", "references", "inode/directory"},
				{root + "/scripts", "scripts", "inode/directory"},
			} // leak.txt leads outside: not listed
			if diff := cmp.Diff(want, list(root)); diff != "" {
				t.Errorf("root (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, list(root+"/")); diff != "" {
				t.Errorf("root with a trailing slash (-want +got):\n%s", diff)
			}
			wantRefs := []child{{root + "/references/deep", "deep", "inode/directory"},
				{root + "/references/guide.md", "guide.md", "text/markdown"}}
			if diff := cmp.Diff(wantRefs, list(root+"/references")); diff != "" {
				t.Errorf("references (-want +got):\n%s", diff)
			}
			for _, uri := range []string{root + "/SKILL.md", root + "/../..", ""} {
				_, err := readDir(ctx, cs, uri)
				wantInvalidParams(t, "resources/directory/read "+uri, err)
			}
			// What is not there, or not served, is not found, as for
			// resources/read.
			for _, uri := range []string{root + "/nope", root + "/.git", root + "/gitdir", root + "/.GIT", "skill://claude/nope", lint.SkillURI() + "/x"} {
				_, err := readDir(ctx, cs, uri)
				wantNotFound(t, pv, "resources/directory/read "+uri, err)
			}
		})
	}
}

func TestSkillsExtensionPageResources(t *testing.T) {
	base := t.TempDir()
	var specs []skillSpec
	for i := range 30 {
		specs = append(specs, skillSpec{provider: "codex", name: fmt.Sprintf("wide-%02d", i), desc: "Many files."})
	}
	recs := makeRecords(t, base, specs...)
	for _, r := range recs {
		for j := range 199 {
			writeFile(t, filepath.Join(r.Dir, "data", fmt.Sprintf("%03d.txt", j)), []byte("x"))
		}
	}
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 30*time.Second)
	entries, pages := listAll(t, ctx, skillsClient(t, srv, ""))
	if len(entries) != len(recs) || len(pages) != 2 {
		t.Fatalf("%d skills in %d pages, want %d in 2", len(entries), len(pages), len(recs))
	}
	files := 0
	for _, e := range pages[0].Skills {
		files += len(e.Resources)
	}
	if files > pageResources || files+200 <= pageResources {
		t.Errorf("the first page holds %d manifest entries; want the most whole skills within %d", files, pageResources)
	}
}

// TestSkillsDigestsKeptAcrossRestarts: with Options.SkillDigests, the
// first skills/list of a new server hashes only the files whose stat
// changed since the last server listed them, and gives the same digests.
func TestSkillsDigestsKeptAcrossRestarts(t *testing.T) {
	recs, lint, _, _ := extensionSkills(t)
	time.Sleep(filestamp.Window + 100*time.Millisecond) // until a stat can vouch for the bytes (change times too)
	file := filepath.Join(t.TempDir(), "skills.bin")
	ctx := testCtx(t, 30*time.Second)
	list := func() (*Server, []*extEntry) {
		srv := New(snapOf(recs), Options{Logger: discard(), SkillDigests: file})
		entries, _ := listAll(t, ctx, skillsClient(t, srv, ""))
		return srv, entries
	}
	first, want := list()
	if first.skills.files.Stats().Hashed == 0 {
		t.Fatal("the first server hashed nothing")
	}
	deadline := time.Now().Add(10 * time.Second)
	for first.skills.saving.Load() || first.skills.files.Changed() {
		if time.Now().After(deadline) {
			t.Fatal("the digests were not saved")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("the digest file: %v", err)
	}

	second, got := list()
	if n := second.skills.files.Stats().Hashed; n != 0 {
		t.Errorf("the first listing after a restart hashed %d files, want none", n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listing after a restart (-before +after):\n%s", diff)
	}

	// An edit is hashed again, and only it.
	guide := filepath.Join(lint.Dir, "references", "guide.md")
	writeFile(t, guide, []byte("# Guide, edited after a restart\n"))
	third, _ := list()
	if n := third.skills.files.Stats().Hashed; n != 1 {
		t.Errorf("after an edit the listing hashed %d files, want 1", n)
	}
	e, err := getSkill(ctx, skillsClient(t, third, ""), lint.SkillURI())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range e.Resources {
		if strings.HasSuffix(r.URI, "/references/guide.md") && r.Digest != digestOf([]byte("# Guide, edited after a restart\n")) {
			t.Errorf("guide.md digest %s after the edit, want the new bytes'", r.Digest)
		}
	}
}
