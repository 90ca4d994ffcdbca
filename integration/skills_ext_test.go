package integration

// The MCP Skills Extension (SEP-2640) as clients use it: the go-sdk client
// on both protocol eras over stdio and HTTP, and on the revisions SSE
// serves over SSE, lists every page of skills/list, resolves each entry
// with skills/get, reads every file of the manifest and checks its digest
// and size, lists folders with resources/directory/read, and sees a digest
// change after an edit.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
)

type extListParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type extEntry struct {
	URI         string         `json:"uri"`
	Frontmatter map[string]any `json:"frontmatter"`
	Resources   []struct {
		URI    string `json:"uri"`
		Digest string `json:"digest"`
		Size   int64  `json:"size"`
	} `json:"resources"`
	// Meta is the entry's _meta: io.github.ccski/signer for a signed
	// skill.
	Meta map[string]json.RawMessage `json:"_meta,omitempty"`
}

type extListResult struct {
	sdk.ResultBase
	Skills     []*extEntry `json:"skills"`
	NextCursor string      `json:"nextCursor,omitempty"`
	TTLMs      *int64      `json:"ttlMs"`
	CacheScope string      `json:"cacheScope"`
}

type extGetParams struct {
	sdk.ParamsBase
	URI string `json:"uri"`
}

type extGetResult struct {
	sdk.ResultBase
	Skill *extEntry `json:"skill"`
}

type extDirParams struct {
	sdk.ParamsBase
	URI string `json:"uri"`
}

type extDirResult struct {
	sdk.ResultBase
	Resources []*sdk.Resource `json:"resources"`
}

// extClient is a client that can send the extension's methods.
func extClient(t *testing.T) *sdk.Client {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "ccski-skills-ext", Version: "0"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {},
	})
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*extListParams, *extListResult](c, "skills/list"),
		sdk.AddSendingCustomMethod[*extGetParams, *extGetResult](c, "skills/get"),
		sdk.AddSendingCustomMethod[*extDirParams, *extDirResult](c, "resources/directory/read"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// addManySkills adds n small shared skills to the machine, so that
// skills/list needs more than one page.
func addManySkills(t *testing.T, m *machine.Machine, n int) {
	t.Helper()
	for i := range n {
		name := fmt.Sprintf("bulk-%03d", i)
		writeSkill(t, filepath.Join(m.Home, ".agents", "skills", name), name, "Bulk skill "+name+".", "# "+name+"\n")
	}
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// checkExtension drives the extension through cs and compares it with
// what `ccski list --json` says (want: URI -> record).
func checkExtension(t *testing.T, ctx context.Context, cs *sdk.ClientSession, want map[string]record, unlisted []record) {
	t.Helper()
	caps := cs.InitializeResult().Capabilities
	if ext, _ := caps.Extensions["io.modelcontextprotocol/skills"].(map[string]any); ext["directoryRead"] != true {
		t.Fatalf("the skills extension is not declared with directoryRead: %+v", caps.Extensions)
	}
	var entries []*extEntry
	pages := 0
	p := &extListParams{}
	for {
		res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", p)
		if err != nil {
			t.Fatalf("skills/list page %d: %v", pages+1, err)
		}
		pages++
		if res.TTLMs == nil || res.CacheScope != "private" {
			t.Errorf("page %d: ttlMs %v cacheScope %q, want both, private", pages, res.TTLMs, res.CacheScope)
		}
		entries = append(entries, res.Skills...)
		if res.NextCursor == "" {
			break
		}
		p = &extListParams{Cursor: res.NextCursor}
	}
	if pages < 2 {
		t.Errorf("%d skills came in %d page; want more than one page", len(entries), pages)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.URI] {
			t.Errorf("%s listed twice", e.URI)
		}
		seen[e.URI] = true
		r, ok := want[e.URI]
		if !ok {
			t.Errorf("listed %s, which ccski list --json does not show as listable", e.URI)
			continue
		}
		// The extension names a skill by its frontmatter: the skill's name,
		// or its alias where the host names it after its folder (the
		// plugin skill doc-tools:pdf-forms is pdf in its frontmatter).
		name := r.Name
		if r.Alias != "" && strings.HasSuffix(strings.TrimSuffix(e.URI, "/SKILL.md"), "/"+r.Alias[strings.LastIndexByte(r.Alias, ':')+1:]) {
			name = r.Alias
		}
		if e.Frontmatter["name"] != name[strings.LastIndexByte(name, ':')+1:] || !strings.HasSuffix(e.URI, "/"+e.Frontmatter["name"].(string)+"/SKILL.md") {
			t.Errorf("%s: frontmatter name %v, want the skill's name, the last segment of its URI", e.URI, e.Frontmatter["name"])
		}
		got, err := sdk.CallCustomMethod[*extGetParams, *extGetResult](ctx, cs, "skills/get", &extGetParams{URI: e.URI})
		if err != nil || got.Skill == nil || got.Skill.URI != e.URI || len(got.Skill.Resources) != len(e.Resources) {
			t.Errorf("skills/get %s: %+v, %v", e.URI, got, err)
		}
		self := false
		for _, f := range e.Resources {
			self = self || f.URI == e.URI
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: f.URI})
			if err != nil {
				t.Errorf("resources/read %s: %v", f.URI, err)
				continue
			}
			c := res.Contents[0]
			data := []byte(c.Text)
			if c.Blob != nil {
				data = c.Blob
			}
			if sha(data) != f.Digest || int64(len(data)) != f.Size {
				t.Errorf("%s: read %d bytes of %s, the manifest says %d bytes of %s", f.URI, len(data), sha(data), f.Size, f.Digest)
			}
		}
		if !self {
			t.Errorf("%s: the manifest lacks the SKILL.md itself", e.URI)
		}
	}
	for uri := range want {
		if !seen[uri] {
			t.Errorf("%s is listable but not listed", uri)
		}
	}
	for _, r := range unlisted {
		if seen[r.URI] {
			t.Errorf("%s listed, though its name breaks the rules (%s)", r.URI, r.Unlisted)
		}
	}
	// The folder of a skill with references lists its children.
	dir, err := sdk.CallCustomMethod[*extDirParams, *extDirResult](ctx, cs, "resources/directory/read",
		&extDirParams{URI: "skill://claude/commit-helper"})
	if err != nil {
		t.Fatalf("resources/directory/read: %v", err)
	}
	var names []string
	for _, r := range dir.Resources {
		names = append(names, r.Name+"="+r.MIMEType)
	}
	for _, w := range []string{"SKILL.md=text/markdown", "references=inode/directory", "scripts=inode/directory"} {
		if !slices.Contains(names, w) {
			t.Errorf("directory read of commit-helper: %v lacks %s", names, w)
		}
	}
	_, err = sdk.CallCustomMethod[*extDirParams, *extDirResult](ctx, cs, "resources/directory/read",
		&extDirParams{URI: "skill://claude/commit-helper/SKILL.md"})
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("directory read of a file: %v, want -32602", err)
	}
	_, err = sdk.CallCustomMethod[*extGetParams, *extGetResult](ctx, cs, "skills/get", &extGetParams{URI: "skill://claude/no-such-skill/SKILL.md"})
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("skills/get of an unknown skill: %v, want -32602", err)
	}
}

func TestSkillsExtension(t *testing.T) {
	m := newMachine(t)
	addManySkills(t, m, 210)
	writeSkill(t, filepath.Join(m.Home, ".claude", "skills", "Bad_Name"), "Bad_Name", "A name the spec refuses.", "# Bad\n")
	recs := listRecords(t, m, "--kind", "skill")
	want := map[string]record{}
	var unlisted []record
	for _, r := range recs {
		if r.Unlisted == "" {
			want[r.URI] = r
		} else {
			unlisted = append(unlisted, r)
		}
	}
	// A name against the rules, and YAML only a line-by-line reading
	// recovered, keep a skill out; sources says why.
	var names []string
	for _, r := range unlisted {
		names = append(names, r.Name)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"Bad_Name", "use-when"}) {
		t.Fatalf("unlisted per list --json: %+v, want Bad_Name and use-when", unlisted)
	}
	out := run(t, m, "sources")
	mustOK(t, out)
	if !strings.Contains(out.stdout, "Not in MCP skills/list (2)") || !strings.Contains(out.stdout, "Agent Skills names are") ||
		!strings.Contains(out.stdout, "not valid YAML (unquoted-colon)") {
		t.Errorf("sources does not say why Bad_Name and use-when are unlisted:\n%s", out.stdout)
	}

	for _, p := range protocols {
		t.Run("stdio/"+p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			cmd := exec.Command(binary, mcpArgs(m)...)
			cmd.Dir, cmd.Env = m.Workspace, env(m, nil)
			cs, err := extClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: p.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			checkExtension(t, ctx, cs, want, unlisted)
		})
		for _, mode := range [][]string{nil, {"--stateless"}} {
			name := "http"
			if mode != nil {
				name = "http-stateless"
			}
			t.Run(name+"/"+p.name, func(t *testing.T) {
				ctx := mcpContext(t)
				s := startHTTP(t, m, nil, append([]string{"--transport", "http"}, mode...)...)
				tr := &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp"}
				cs, err := extClient(t).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: p.version})
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				checkExtension(t, ctx, cs, want, unlisted)
			})
		}
		// SSE, which protocol 2026-07-28 does not have: the client
		// negotiates the newest revision the transport serves.
		t.Run("sse/"+p.name, func(t *testing.T) {
			ctx := mcpContext(t)
			s := startHTTP(t, m, nil, "--transport", "sse")
			cs, err := extClient(t).Connect(ctx, &sdk.SSEClientTransport{Endpoint: s.base + "/mcp"},
				&sdk.ClientSessionOptions{ProtocolVersion: p.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			checkExtension(t, ctx, cs, want, unlisted)
		})
	}
}

// TestSkillsExtensionDigestAfterEdit edits a file of a served skill and
// checks that skills/get gives the new digest, as the watcher refreshes.
func TestSkillsExtensionDigestAfterEdit(t *testing.T) {
	m := newMachine(t)
	ctx := mcpContext(t)
	cmd := exec.Command(binary, mcpArgs(m)...)
	cmd.Dir, cmd.Env = m.Workspace, env(m, nil)
	cs, err := extClient(t).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	const uri = "skill://claude/commit-helper/SKILL.md"
	ref := filepath.Join(m.Home, ".claude", "skills", "commit-helper", "references", "conventional.md")
	// The next skills/list states the new digest: the file is re-hashed
	// when its stat changed, and a file written within the last two
	// seconds is never trusted to the cache (no mtime trick here).
	digest := func() string {
		res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Skills {
			for _, f := range e.Resources {
				if e.URI == uri && strings.HasSuffix(f.URI, "/references/conventional.md") {
					return f.Digest
				}
			}
		}
		t.Fatalf("conventional.md not in the listed manifest of %s", uri)
		return ""
	}
	before := digest()
	edited := []byte("# Conventional commits, edited\n")
	if err := os.WriteFile(ref, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if !waitUntil(refreshBudget, func() bool { return digest() == sha(edited) }) {
		t.Errorf("digest stayed %s after the edit (before %s), want %s", digest(), before, sha(edited))
	}
}
