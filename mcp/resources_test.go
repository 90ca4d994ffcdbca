package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// pngBytes is the start of a PNG file: not UTF-8.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")

// resourceSkills returns skills whose ids hold ':', '@' and '#', with
// bundled files in the first one.
func resourceSkills(t *testing.T) []*pipeline.Record {
	t.Helper()
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", loc: pipeline.LocationPlugin, name: "tools:lint", desc: "Lint with the house rules.",
			plugin: &pipeline.PluginInfo{Plugin: "tools", Marketplace: "market", Version: "1"}},
		skillSpec{provider: "codex", name: "dup", desc: "First copy."},
		skillSpec{provider: "codex", name: "dup", desc: "Second copy."},
		skillSpec{provider: "gemini", name: "plain", desc: "A plain skill."},
	)
	ids := []string{recs[0].ID, recs[1].ID, recs[2].ID}
	if !strings.Contains(ids[0], ":@") || !strings.Contains(ids[1], "@user:") || !strings.HasSuffix(ids[2], "#2") {
		t.Fatalf("ids %v do not hold the characters under test", ids)
	}
	dir := recs[0].Dir
	writeFile(t, filepath.Join(dir, "references", "guide.md"), []byte("# Guide\n\nÜnïcode survives.\n"))
	writeFile(t, filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho hi\n"))
	writeFile(t, filepath.Join(dir, "assets", "logo.png"), pngBytes)
	writeFile(t, filepath.Join(dir, "assets", "blob.bin"), []byte{0, 1, 2, 0xff})
	writeFile(t, filepath.Join(dir, "assets", "notes"), []byte("plain words\n"))
	writeFile(t, filepath.Join(dir, "assets", "has space & more.txt"), []byte("spaced\n"))
	writeFile(t, filepath.Join(recs[2].Dir, "references", "x.md"), []byte("second copy's file\n"))
	return recs
}

// readErr reads uri and expects a JSON-RPC invalid-params error.
func readErr(t *testing.T, ctx context.Context, cs *sdk.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err == nil {
		t.Fatalf("reading %s succeeded (%d contents), want an error", uri, len(res.Contents))
	}
	// "Resource not found" is -32002 in 2025-11-25 (TestResourceNotFoundByEra).
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams && (we.Code != codeResourceNotFound || we.Message != "Resource not found") {
		t.Fatalf("reading %s: %v, want a -32602 error", uri, err)
	}
	return we.Message
}

func readOne(t *testing.T, ctx context.Context, cs *sdk.ClientSession, uri string) *sdk.ResourceContents {
	t.Helper()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("reading %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0]
}

func TestResourcesList(t *testing.T) {
	recs := resourceSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			if c := cs.InitializeResult().Capabilities; c.Resources == nil || !c.Resources.ListChanged {
				t.Errorf("capabilities %+v do not advertise resources.listChanged", c)
			}
			listed := map[string]*sdk.Resource{}
			for r, err := range cs.Resources(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				listed[r.URI] = r
			}
			if len(listed) != len(recs) {
				t.Errorf("%d resources listed, want %d: %v", len(listed), len(recs), keysOf(listed))
			}
			for _, r := range recs {
				uri := r.SkillURI()
				res := listed[uri]
				if res == nil {
					t.Errorf("%s not listed", uri)
					continue
				}
				if res.Name != r.ShortName() || res.Title != r.ID || res.Description != r.Description || res.MIMEType != "text/markdown" {
					t.Errorf("%s listed as %+v", uri, res)
				}
				// The listed URI reads the file exactly as on disk.
				c := readOne(t, ctx, cs, uri)
				want, _ := os.ReadFile(r.File)
				if c.Text != string(want) || c.MIMEType != "text/markdown" || c.URI != uri {
					t.Errorf("%s read as %q (%s), want %q", uri, c.Text, c.MIMEType, want)
				}
			}
			var templates []string
			for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				templates = append(templates, tmpl.URITemplate)
			}
			if !slices.Equal(templates, []string{ResourceTemplate}) {
				t.Errorf("templates %v, want [%s]", templates, ResourceTemplate)
			}
		})
	}
}

func TestResourceRead(t *testing.T) {
	recs := resourceSkills(t)
	srv := New(snapOf(recs), Options{Logger: discard()})
	lint := recs[0]
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			cs := connect(t, srv, pv, nil)
			for _, tc := range []struct {
				rel, mime, text string
				blob            []byte
			}{
				{rel: "references/guide.md", mime: "text/markdown", text: "# Guide\n\nÜnïcode survives.\n"},
				{rel: "scripts/run.sh", mime: "text/x-shellscript", text: "#!/bin/sh\necho hi\n"},
				{rel: "assets/logo.png", mime: "image/png", blob: pngBytes},
				{rel: "assets/blob.bin", mime: "application/octet-stream", blob: []byte{0, 1, 2, 0xff}},
				{rel: "assets/notes", mime: "text/plain", text: "plain words\n"},
				{rel: "assets/has space & more.txt", mime: "text/plain", text: "spaced\n"},
			} {
				uri := skillFileURI(lint, tc.rel)
				c := readOne(t, ctx, cs, uri)
				// The URIs of earlier releases read the same bytes.
				if old := readOne(t, ctx, cs, legacySkillURI(lint.ID, tc.rel)); old.Text != c.Text || !bytes.Equal(old.Blob, c.Blob) {
					t.Errorf("%s: the legacy URI reads %q, the new one %q", tc.rel, old.Text, c.Text)
				}
				if c.MIMEType != tc.mime {
					t.Errorf("%s: MIME type %q, want %q", tc.rel, c.MIMEType, tc.mime)
				}
				if tc.blob != nil {
					if !bytes.Equal(c.Blob, tc.blob) || c.Text != "" {
						t.Errorf("%s: blob %q text %q, want the bytes as a blob", tc.rel, c.Blob, c.Text)
					}
				} else if c.Text != tc.text || c.Blob != nil {
					t.Errorf("%s: text %q blob %q, want %q", tc.rel, c.Text, c.Blob, tc.text)
				}
			}
			// '#' and '@' in the id, and the file of that exact copy.
			if c := readOne(t, ctx, cs, skillFileURI(recs[2], "references/x.md")); c.Text != "second copy's file\n" {
				t.Errorf("file of %s: %q", recs[2].ID, c.Text)
			}
			readErr(t, ctx, cs, skillFileURI(recs[1], "references/x.md")) // the other copy has none
			// Reads accept what the skill tool accepts, and percent-encoding.
			if c := readOne(t, ctx, cs, "skill://plain/SKILL.md"); !strings.Contains(c.Text, "name: plain") {
				t.Errorf("short name read %q", c.Text)
			}
			if c := readOne(t, ctx, cs, "skill://claude%3A%40tools%3Alint/references/guide.md"); !strings.HasPrefix(c.Text, "# Guide") {
				t.Errorf("percent-encoded id read %q", c.Text)
			}
			if c := readOne(t, ctx, cs, skillFileURI(lint, "references/guide.md")+"?x=1#frag"); !strings.HasPrefix(c.Text, "# Guide") {
				t.Errorf("query and fragment not ignored: %q", c.Text)
			}
			// Missing files and skills are "not found".
			for _, uri := range []string{skillFileURI(lint, "references/none.md"), legacySkillURI("codex:nope", "SKILL.md"), "skill://codex/nope/SKILL.md",
				"other://x/y"} {
				if msg := readErr(t, ctx, cs, uri); !strings.Contains(strings.ToLower(msg), "not found") {
					t.Errorf("%s: %q, want not found", uri, msg)
				}
			}
			if msg := readErr(t, ctx, cs, "skill://dup/SKILL.md"); !strings.Contains(msg, "ambiguous") || !strings.Contains(msg, "codex@user:dup#2") {
				t.Errorf("an ambiguous legacy name: %q, want the ids it matches", msg)
			}
			for _, uri := range []string{skillFileURI(lint, "references"), "skill://" + lint.SkillPath} {
				if msg := readErr(t, ctx, cs, uri); !strings.Contains(msg, "folder") {
					t.Errorf("reading the folder %s: %q", uri, msg)
				}
			}
		})
	}
}

func TestResourceConfinement(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, filepath.Join(base, "skills"),
		skillSpec{provider: "codex", name: "boxed", desc: "Boxed."},
		skillSpec{provider: "codex", name: "neighbour", desc: "Next door."})
	boxed := recs[0]
	outside := filepath.Join(base, "secret.txt")
	writeFile(t, outside, []byte("secret\n"))
	writeFile(t, filepath.Join(boxed.Dir, "references", "ok.md"), []byte("inside\n"))
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(boxed.Dir, name)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	link(outside, "leak.txt")                                         // a file outside
	link(filepath.Dir(outside), "up")                                 // a folder outside
	link(recs[1].Dir, "sibling")                                      // another skill's folder
	link(filepath.Join(boxed.Dir, "references", "ok.md"), "alias.md") // stays inside
	writeFile(t, filepath.Join(boxed.Dir, "big.txt"), bytes.Repeat([]byte("a"), MaxResourceBytes+1))
	writeFile(t, filepath.Join(boxed.Dir, "max.txt"), bytes.Repeat([]byte("b"), MaxResourceBytes))

	// A skill whose folder is itself a symlink reads through it.
	realDir := filepath.Join(base, "elsewhere", "linked")
	writeFile(t, filepath.Join(realDir, "SKILL.md"), skillMD("linked", "Linked."))
	writeFile(t, filepath.Join(realDir, "references", "r.md"), []byte("through the link\n"))
	linkedDir := filepath.Join(base, "skills", "linked")
	if err := os.Symlink(realDir, linkedDir); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	linked := &pipeline.Record{Name: "linked", Description: "Linked.", Agent: "agents", Location: pipeline.LocationUser,
		Dir: linkedDir, File: filepath.Join(linkedDir, "SKILL.md"), RealDir: realDir}
	all := append(recs, linked)
	pipeline.AssignIDs(all)

	srv := New(snapOf(all), Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			// Two 8 MiB reads under the race detector take seconds on a
			// loaded machine; the deadline only stops a hang.
			ctx := testCtx(t, 60*time.Second)
			cs := connect(t, srv, pv, nil)
			// The new URIs and those of earlier releases are confined alike.
			for _, uri := range []func(string) string{
				func(rel string) string { return ResourceScheme + boxed.SkillPath + "/" + rel },
				func(rel string) string { return ResourceScheme + pipeline.EscapeID(boxed.ID) + "/" + rel },
			} {
				for _, rel := range []string{
					"../neighbour-b/SKILL.md", "references/../../neighbour-b/SKILL.md", "%2E%2E/neighbour-b/SKILL.md",
					"..%2Fneighbour-b%2FSKILL.md", "/" + strings.TrimPrefix(outside, "/"), "%2F" + strings.TrimPrefix(outside, "/"),
					"leak.txt", "up/secret.txt", "sibling/SKILL.md",
				} {
					msg := readErr(t, ctx, cs, uri(rel))
					if !strings.Contains(msg, "outside the skill's folder") {
						t.Errorf("%s: %q, want a refusal that names the folder", rel, msg)
					}
					if strings.Contains(msg, "secret") && !strings.Contains(rel, "secret") {
						t.Errorf("%s: the error leaks the target: %q", rel, msg)
					}
				}
				if c := readOne(t, ctx, cs, uri("alias.md")); c.Text != "inside\n" {
					t.Errorf("a symlink that stays inside read %q", c.Text)
				}
				if c := readOne(t, ctx, cs, uri("./references//ok.md")); c.Text != "inside\n" {
					t.Errorf("a path with . and // read %q", c.Text)
				}
				if msg := readErr(t, ctx, cs, uri("big.txt")); !strings.Contains(msg, fmt.Sprintf("%d KiB limit", MaxResourceBytes>>10)) {
					t.Errorf("over the cap: %q", msg)
				}
				if c := readOne(t, ctx, cs, uri("max.txt")); len(c.Text) != MaxResourceBytes {
					t.Errorf("a file of exactly the cap read %d bytes", len(c.Text))
				}
			}
			if c := readOne(t, ctx, cs, skillFileURI(linked, "references/r.md")); c.Text != "through the link\n" {
				t.Errorf("symlinked skill folder read %q", c.Text)
			}
		})
	}
}

func TestResourcesListChanged(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, base,
		skillSpec{provider: "codex", name: "one", desc: "One."},
		skillSpec{provider: "codex", name: "two", desc: "Two."})
	srv := New(snapOf(recs), Options{Logger: discard()})
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 10*time.Second)
			var changes atomic.Int64
			cs := connect(t, srv, pv, &sdk.ClientOptions{
				ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changes.Add(1) },
				// A tools handler makes the 2026 client listen for
				// notifications too.
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {},
			})
			listed := func() []string {
				var out []string
				for r, err := range cs.Resources(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, r.Title)
				}
				slices.Sort(out)
				return out
			}
			srv.Update(snapOf(recs))
			time.Sleep(100 * time.Millisecond) // the SDK debounces for 10 ms
			if n := changes.Load(); n != 0 {
				t.Fatalf("%d resources/list_changed for an unchanged snapshot", n)
			}
			three := append(slices.Clone(recs), makeRecords(t, filepath.Join(base, pvName(pv)),
				skillSpec{provider: "gemini", name: "three", desc: "Three."})...)
			srv.Update(snapOf(three))
			if !eventually(10*time.Second, func() bool { return changes.Load() >= 1 }) {
				t.Fatal("no resources/list_changed after a skill was added")
			}
			if got := listed(); !slices.Equal(got, []string{"codex:one", "codex:two", "gemini:three"}) {
				t.Errorf("listed %v after the add", got)
			}
			before := changes.Load()
			srv.Update(snapOf(recs))
			if !eventually(10*time.Second, func() bool { return changes.Load() > before }) {
				t.Fatal("no resources/list_changed after a skill was removed")
			}
			if got := listed(); !slices.Equal(got, []string{"codex:one", "codex:two"}) {
				t.Errorf("listed %v after the removal", got)
			}
			readErr(t, ctx, cs, "skill://gemini/three/SKILL.md")
		})
	}
}

// TestResourceIconsFollowTheFiles checks that a skill's icon in
// resources/list follows its file: an icon changed in place, or a new
// icon path in agents/openai.yaml, registers the resource again.
func TestResourceIconsFollowTheFiles(t *testing.T) {
	base := t.TempDir()
	recs := makeRecords(t, base, skillSpec{provider: "codex", name: "pic", desc: "Pic."})
	icon := filepath.Join(recs[0].Dir, "assets", "small.png")
	writeFile(t, icon, []byte("first icon"))
	recs[0].OpenAI = &pipeline.OpenAIMetadata{IconSmall: icon}
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	iconOf := func() string {
		t.Helper()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Resources {
			if r.Title == "codex:pic" && len(r.Icons) == 1 {
				data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Icons[0].Source, "data:image/png;base64,"))
				if err != nil {
					t.Fatal(err)
				}
				return string(data)
			}
		}
		t.Fatalf("no resource with one icon in %v", res.Resources)
		return ""
	}
	if got := iconOf(); got != "first icon" {
		t.Fatalf("icon %q", got)
	}
	time.Sleep(10 * time.Millisecond)
	writeFile(t, icon, []byte("second icon, in place"))
	srv.Update(snapOf(recs))
	if got := iconOf(); got != "second icon, in place" {
		t.Errorf("after the icon file changed, resources/list shows %q", got)
	}
	other := filepath.Join(recs[0].Dir, "assets", "other.png")
	writeFile(t, other, []byte("another icon"))
	moved := *recs[0]
	moved.OpenAI = &pipeline.OpenAIMetadata{IconSmall: other}
	srv.Update(snapOf([]*pipeline.Record{&moved}))
	if got := iconOf(); got != "another icon" {
		t.Errorf("after openai.yaml named another icon, resources/list shows %q", got)
	}
}
