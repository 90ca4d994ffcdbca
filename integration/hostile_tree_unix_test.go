//go:build unix

package integration

// Hostile trees: skill folders an attacker (or an accident) shaped to hang,
// exhaust or mislead the reader: symlink loops and links out of a root,
// a SKILL.md that is a FIFO, a socket, a folder or 200 MB, bytes that are
// not UTF-8 or NUL, a YAML alias bomb, 10 MB of frontmatter, and folders of
// 100,000 entries. Every command finishes, names what it skipped and why,
// and serves the rest.

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/testfs"
)

// crowd is how many entries the crowded folders hold.
const crowd = 100_000

// pagedDirParams and pagedDirResult are resources/directory/read with
// its paging.
type pagedDirParams struct {
	sdk.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type pagedDirResult struct {
	sdk.ResultBase
	Resources  []*sdk.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
}

// pagingClient can send skills/list and page resources/directory/read.
func pagingClient(t *testing.T) *sdk.Client {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "ccski-hostile", Version: "0"}, nil)
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*extListParams, *extListResult](c, "skills/list"),
		sdk.AddSendingCustomMethod[*pagedDirParams, *pagedDirResult](c, "resources/directory/read"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// hostileSkillTree builds the tree under ~/.claude/skills of a fresh home
// and returns the home, the workspace and the skills folder.
func hostileSkillTree(t *testing.T) (home, ws, skills string) {
	t.Helper()
	registerSourcesOnce(t)
	root := testfs.TempDir(t)
	home, ws = filepath.Join(root, "home"), filepath.Join(root, "work")
	skills = filepath.Join(home, ".claude", "skills")
	bomb := "---\nname: bomb\ndescription: A YAML alias bomb.\nmetadata:\n  a: &a [x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += fmt.Sprintf("  %s: &%s [%s]\n", n, n, strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", "))
		prev = n
	}
	bomb += "---\nBody.\n"
	testfs.Write(t, root, map[string]string{
		"work/.git/":                                "",
		"elsewhere/outside/SKILL.md":                "---\nname: outside\ndescription: Linked from outside the root.\n---\nBody.\n",
		"home/.claude/skills/ok/SKILL.md":           "---\nname: ok\ndescription: A plain skill.\n---\nBody.\n",
		"home/.claude/skills/loopy/a/SKILL.md":      "---\nname: loopy\ndescription: Below a loop.\n---\nBody.\n",
		"home/.claude/skills/folder/SKILL.md/x":     "a folder named SKILL.md",
		"home/.claude/skills/badutf/SKILL.md":       "---\nname: badutf\ndescription: caf\xe9\n---\nBody.\n",
		"home/.claude/skills/badbody/SKILL.md":      "---\nname: badbody\ndescription: A body that is not UTF-8.\n---\nBody \xff\xfe.\n",
		"home/.claude/skills/nul/SKILL.md":          "---\nname: nul\ndescription: \"a\\0b\"\n---\nBody \x00 with NUL bytes.\n",
		"home/.claude/skills/bomb/SKILL.md":         bomb,
		"home/.claude/skills/bigfront/SKILL.md":     "---\nname: bigfront\ndescription: " + strings.Repeat("x", 10<<20) + "\n---\nBody.\n",
		"home/.claude/skills/sparse/SKILL.md":       "---\nname: sparse\ndescription: A 200 MB SKILL.md.\n---\nBody.\n",
		"home/.claude/skills/crowd/SKILL.md":        "---\nname: crowd\ndescription: A skill with 100,000 references.\n---\nBody.\n",
		"home/.claude/skills/crowd/references/a.md": "# a\n",
		"home/.claude/skills/loopy/a/up":            "-> ..",
		"home/.claude/skills/self":                  "-> .",
		"home/.claude/skills/outside":               "-> ../../../elsewhere/outside",
		"home/.claude/skills/dangling":              "-> ../../../nowhere",
		"home/.claude/skills/ok/link-out.md":        "-> ../../../../elsewhere/outside/SKILL.md",
	})
	if err := os.Truncate(filepath.Join(skills, "sparse", "SKILL.md"), 200<<20); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(skills, "fifo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(skills, "fifo", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(skills, "sock"), 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(skills, "sock", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	// 100,000 entries in the root itself and in one skill's references/.
	for _, dir := range []string{skills, filepath.Join(skills, "crowd", "references")} {
		for i := range crowd {
			f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%06d", i)))
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	return home, ws, skills
}

// runIn runs ccski in ws with HOME at home, killed at the deadline: a run
// that hangs fails the test.
func runIn(t *testing.T, ctx context.Context, home, ws string, args ...string) result {
	t.Helper()
	if args[0] != "validate" { // validate reads the PATHs it is given
		args = append(args, "--user-dir", home)
	}
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = ws
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	if ctx.Err() != nil {
		t.Fatalf("ccski %s did not finish\n%s", strings.Join(args, " "), r)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestHostileSkillTrees: on the hostile tree, list, sources, info and
// validate finish; the readable skills are listed (the one linked from
// outside the root included: links to skill folders are followed, once),
// and each unreadable SKILL.md is reported with what it is; the MCP
// server lists and loads the readable skills (the 200 MB one up to the
// tool's cap), builds the skills extension's listing, pages through the
// 100,000-entry folder and never serves the link out of a skill folder.
func TestHostileSkillTrees(t *testing.T) {
	t.Parallel()
	home, ws, skills := hostileSkillTree(t)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()

	r := runIn(t, ctx, home, ws, "list", "--json")
	mustOK(t, r)
	var recs []record
	decodeOnly(t, r, &recs)
	got := ids(recs)
	// loopy/a is named after its folder, a, as Claude Code names skills.
	want := []string{"claude:a", "claude:badbody", "claude:bomb", "claude:crowd", "claude:nul", "claude:ok",
		"claude:outside", "claude:sparse"}
	if !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}

	r = runIn(t, ctx, home, ws, "sources", "--json")
	mustOK(t, r)
	var src struct {
		Diagnostics []struct{ Code, Path, Message string } `json:"diagnostics"`
	}
	decodeOnly(t, r, &src)
	for _, w := range []struct{ code, path, says string }{
		{"unreadable", "fifo/SKILL.md", "named pipe (FIFO), not a regular file"},
		{"unreadable", "sock/SKILL.md", "socket, not a regular file"},
		{"unreadable", "folder/SKILL.md", "folder, not a regular file"},
		{"invalid-utf8", "badutf/SKILL.md", "not valid UTF-8"},
		{"frontmatter-too-large", "bigfront/SKILL.md", "larger than 64 KiB"},
		{"control-characters", "nul/SKILL.md", "U+0000"},
		{"symlink-loop", "self", "already scanned"},
		{"broken-symlink", "dangling", ""},
	} {
		found := false
		for _, d := range src.Diagnostics {
			if d.Code == w.code && strings.HasSuffix(d.Path, filepath.FromSlash(w.path)) && strings.Contains(d.Message, w.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("sources does not report %s on %s (%q): %+v", w.code, w.path, w.says, src.Diagnostics)
		}
	}

	r = runIn(t, ctx, home, ws, "info", "claude:sparse")
	if r.code != 0 || !strings.Contains(r.stdout, "Size:       200.0 MB") {
		t.Errorf("info of the 200 MB skill:\n%s", r)
	}
	r = runIn(t, ctx, home, ws, "validate", skills, "--json")
	if r.code != 1 || !json.Valid([]byte(r.stdout)) {
		t.Errorf("validate: want exit 1 and a JSON report\n%.2000s", r)
	}
	for _, want := range []string{"it is a socket, not a regular file", "the file is 200 MiB, over the 16 MiB limit"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("validate does not say %q", want)
		}
	}

	// The MCP server.
	stderr := &lockedBuffer{}
	cmd := exec.Command(binary, "mcp", "--user-dir", home, "--no-refresh")
	cmd.Dir, cmd.Stderr = ws, stderr
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}
	cs, err := pagingClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr)
	}
	defer cs.Close()
	entries, err := func() ([]skillEntry, error) { es, _, err := listSkills(ctx, cs); return es, err }()
	if err != nil {
		t.Fatal(err)
	}
	if got := entryIDs(entries); !slices.Equal(got, want) {
		t.Errorf("the catalogue lists %v, want %v", got, want)
	}
	for _, id := range want {
		text, err := loadSkill(ctx, cs, id)
		switch {
		case err != nil:
			t.Errorf("%s: %v", id, err)
		case id == "claude:sparse" && (len(text) > 1<<20+2048 || !strings.Contains(text, "this SKILL.md is 200 MiB")):
			t.Errorf("the 200 MB skill came back as %d bytes, without the note", len(text))
		}
	}
	list, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{})
	if err != nil {
		t.Fatalf("skills/list: %v\nstderr:\n%s", err, stderr)
	}
	for _, e := range list.Skills {
		if len(e.Resources) > 512 {
			t.Errorf("%s lists %d files, over the manifest's 512", e.URI, len(e.Resources))
		}
	}
	// The 100,000-entry folder comes in pages of at most 500 entries (the
	// first few are read here: each page lists the folder again).
	p := &pagedDirParams{URI: "skill://claude/crowd/references"}
	seen := map[string]bool{}
	for page := range 3 {
		res, err := sdk.CallCustomMethod[*pagedDirParams, *pagedDirResult](ctx, cs, "resources/directory/read", p)
		if err != nil {
			t.Fatalf("resources/directory/read page %d: %v", page+1, err)
		}
		if len(res.Resources) == 0 || len(res.Resources) > 500 || res.NextCursor == "" {
			t.Fatalf("page %d: %d entries, next cursor %q; want at most 500 and more to come", page+1, len(res.Resources), res.NextCursor)
		}
		for _, r := range res.Resources {
			if seen[r.URI] {
				t.Errorf("%s listed twice", r.URI)
			}
			seen[r.URI] = true
		}
		p = &pagedDirParams{URI: p.URI, Cursor: res.NextCursor}
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://claude/ok/link-out.md"}); err == nil {
		t.Error("a symlink out of the skill folder was served")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "skill://claude/sparse/SKILL.md"}); err == nil ||
		!strings.Contains(err.Error(), "over the") {
		t.Errorf("resources/read of the 200 MB file: %v, want it refused as over the cap", err)
	}
}
