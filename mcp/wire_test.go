package mcp

// Tests of the messages the server writes, byte for byte: a raw JSON-RPC
// client on an in-memory transport sends requests of either protocol era
// and checks the responses against the 2026-07-28 JSON schema, the one
// the official conformance suite (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, check wire-schema-valid) validates with:
// testdata/schema-2026-07-28.json is its schema, unchanged.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// era2026Meta is the _meta of a 2026-07-28 request (SEP-2575): the
// protocol version, the client's capabilities and its name.
var era2026Meta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
}

// rawClient speaks JSON-RPC to a Server without an SDK client, so that a
// test sees every field of a response, as a client on the wire does.
type rawClient struct {
	t    *testing.T
	conn sdk.Connection
	era  string // "2026-07-28" or "2025-11-25"
	next int64
}

// newRawClient connects to srv in era: a 2025-11-25 client initializes
// a session first; a 2026-07-28 client sends its _meta with every
// request.
func newRawClient(t *testing.T, srv *Server, era string) *rawClient {
	t.Helper()
	ctx := testCtx(t, 10*time.Second)
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	c := &rawClient{t: t, conn: conn, era: era}
	if era != statelessEra {
		if _, werr := c.call("initialize", map[string]any{"protocolVersion": era, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "1"}}); werr != nil {
			t.Fatalf("initialize: %v", werr)
		}
		if err := conn.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// wireResponse is a response as the server wrote it.
type wireResponse struct {
	raw    []byte          // the whole message
	result json.RawMessage // nil for an error
	err    *jsonrpc.Error  // nil for a result
}

// call sends method with params (a 2026-07-28 client's _meta added) and
// returns the response, or the error of a failed exchange.
func (c *rawClient) call(method string, params map[string]any) (wireResponse, error) {
	c.t.Helper()
	ctx := testCtx(c.t, 10*time.Second)
	if params == nil {
		params = map[string]any{}
	}
	if c.era == statelessEra {
		params["_meta"] = era2026Meta
	}
	p, err := json.Marshal(params)
	if err != nil {
		return wireResponse{}, err
	}
	c.next++
	id, err := jsonrpc.MakeID(float64(c.next))
	if err != nil {
		return wireResponse{}, err
	}
	if err := c.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: p}); err != nil {
		return wireResponse{}, err
	}
	for {
		msg, err := c.conn.Read(ctx)
		if err != nil {
			return wireResponse{}, err
		}
		resp, ok := msg.(*jsonrpc.Response)
		if !ok || resp.ID != id {
			continue // a notification, or a request of the server's
		}
		raw, err := jsonrpc.EncodeMessage(resp)
		if err != nil {
			return wireResponse{}, err
		}
		out := wireResponse{raw: raw, result: resp.Result}
		if resp.Error != nil {
			var we *jsonrpc.Error
			b, _ := json.Marshal(resp.Error)
			if err := json.Unmarshal(b, &we); err != nil {
				return wireResponse{}, err
			}
			out.err, out.result = we, nil
		}
		return out, nil
	}
}

// mustCall is call that fails the test on a failed exchange.
func (c *rawClient) mustCall(method string, params map[string]any) wireResponse {
	c.t.Helper()
	r, err := c.call(method, params)
	if err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
	return r
}

var (
	schemaOnce sync.Once
	schema2026 *jsonschema.Schema
	schemaErr  error
)

// validate2026 checks a whole JSON-RPC message the server wrote in answer
// to method against the 2026-07-28 schema, as the conformance suite does:
// a result against <Method>Result when the schema defines the method (the
// Skills extension's methods are not in it), and the message against
// JSONRPCResultResponse or JSONRPCErrorResponse.
func validate2026(t *testing.T, method string, msg []byte) {
	t.Helper()
	schemaOnce.Do(func() {
		data, err := os.ReadFile(filepath.Join("testdata", "schema-2026-07-28.json"))
		if err != nil {
			schemaErr = err
			return
		}
		schemaErr = json.Unmarshal(data, &schema2026)
	})
	if schemaErr != nil {
		t.Fatal(schemaErr)
	}
	var m map[string]any
	if err := json.Unmarshal(msg, &m); err != nil {
		t.Fatal(err)
	}
	check := func(def string, v any) {
		t.Helper()
		s := *schema2026
		s.Ref = "#/$defs/" + def
		rs, err := s.Resolve(&jsonschema.ResolveOptions{BaseURI: "mcp://draft/schema.json"})
		if err != nil {
			t.Fatalf("schema %s: %v", def, err)
		}
		if err := rs.Validate(v); err != nil {
			t.Errorf("%s: %s is not a valid %s: %v\n%s", method, "the message", def, err, msg)
		}
	}
	if _, ok := m["error"]; ok {
		check("JSONRPCErrorResponse", m)
		return
	}
	if def := resultDef(method); def != "" {
		check(def, m["result"])
	}
	check("JSONRPCResultResponse", m)
}

// resultDef is the schema definition of method's result, as the
// conformance suite finds it: the Request whose method is method, with
// Request replaced by Result; "" when the schema has none.
func resultDef(method string) string {
	for name, d := range schema2026.Defs {
		if !strings.HasSuffix(name, "Request") || d.Properties == nil || d.Properties["method"] == nil {
			continue
		}
		if c := d.Properties["method"].Const; c != nil && *c == method {
			res := strings.TrimSuffix(name, "Request") + "Result"
			if _, ok := schema2026.Defs[res]; ok {
				return res
			}
		}
	}
	return ""
}

// TestResultsCarryResultType sends every method the server answers to
// it as a 2026-07-28 client and validates each response against that
// revision's schema: every result carries resultType (and the list and
// read results their cache fields).
func TestResultsCarryResultType(t *testing.T) {
	srv, r := wireFixture(t)
	skill := r.SkillURI()
	folder := strings.TrimSuffix(skill, "/SKILL.md")
	c := newRawClient(t, srv, statelessEra)
	tests := []struct {
		method string
		params map[string]any
	}{
		{"server/discover", nil},
		{"tools/list", nil},
		{"tools/call", map[string]any{"name": ToolName, "arguments": map[string]any{"name": "pdf"}}},
		{"tools/call", map[string]any{"name": ToolName, "arguments": map[string]any{}}},
		{"tools/call", map[string]any{"name": ToolSkillsList, "arguments": map[string]any{}}},
		{"tools/call", map[string]any{"name": ToolSkillsSearch, "arguments": map[string]any{"query": "pdf"}}},
		{"tools/call", map[string]any{"name": ToolSources, "arguments": map[string]any{}}},
		{"prompts/list", nil},
		{"prompts/get", map[string]any{"name": "pdf"}},
		{"resources/list", nil},
		{"resources/templates/list", nil},
		{"resources/read", map[string]any{"uri": skill}},
		{"resources/read", map[string]any{"uri": folder + "/references/empty.txt"}},
		{"skills/list", nil},
		{"skills/get", map[string]any{"uri": skill}},
		{"resources/directory/read", map[string]any{"uri": folder}},
		{"resources/directory/read", map[string]any{"uri": folder + "/references"}},
	}
	for _, tt := range tests {
		name := tt.method
		if a, ok := tt.params["name"].(string); ok {
			name += " " + a
		}
		t.Run(name, func(t *testing.T) {
			resp := c.mustCall(tt.method, tt.params)
			if resp.err != nil {
				t.Fatalf("%s: error %d %q, want a result", tt.method, resp.err.Code, resp.err.Message)
			}
			var res struct {
				ResultType *string `json:"resultType"`
				TTLMs      *int64  `json:"ttlMs"`
				CacheScope string  `json:"cacheScope"`
			}
			if err := json.Unmarshal(resp.result, &res); err != nil {
				t.Fatal(err)
			}
			if res.ResultType == nil || *res.ResultType != "complete" {
				t.Errorf("%s: resultType missing or not \"complete\":\n%s", tt.method, resp.raw)
			}
			// The extension's results carry the cache fields of the
			// results they stand beside (resources/list, resources/read),
			// which the MCP Inspector requires of them.
			if strings.HasPrefix(tt.method, "skills/") || tt.method == "resources/directory/read" {
				if res.TTLMs == nil || *res.TTLMs != time.Minute.Milliseconds() || res.CacheScope != "private" {
					t.Errorf("%s: ttlMs and cacheScope missing or not the server's (60000, private):\n%s", tt.method, resp.raw)
				}
			}
			// A file's bytes are never fresh past the answer: the
			// server reads them (and checks them against what was
			// judged) at every read.
			if tt.method == "resources/read" && (res.TTLMs == nil || *res.TTLMs != 0 || res.CacheScope != "private") {
				t.Errorf("%s: ttlMs and cacheScope missing or not 0, private:\n%s", tt.method, resp.raw)
			}
			validate2026(t, tt.method, resp.raw)
		})
	}
}

// TestResourceNotFoundByEra reads a missing file, an unknown skill and a
// URI of no scheme the server serves, and lists a missing folder and an
// unknown skill: "resource not found" is -32002 in 2025-11-25 and -32602
// in 2026-07-28 (SEP-2164), with the URI in data.
func TestResourceNotFoundByEra(t *testing.T) {
	srv, r := wireFixture(t)
	folder := strings.TrimSuffix(r.SkillURI(), "/SKILL.md")
	for _, tt := range []struct {
		era  string
		code int64
	}{{"2025-11-25", -32002}, {statelessEra, jsonrpc.CodeInvalidParams}} {
		t.Run(tt.era, func(t *testing.T) {
			c := newRawClient(t, srv, tt.era)
			for _, uri := range []string{folder + "/references/nope.md", "skill://claude/nope/SKILL.md", "test://nonexistent"} {
				resp := c.mustCall("resources/read", map[string]any{"uri": uri})
				if resp.err == nil || resp.err.Code != tt.code || resp.err.Message != "Resource not found" {
					t.Errorf("resources/read %s: %s, want error %d \"Resource not found\"", uri, resp.raw, tt.code)
					continue
				}
				var data struct{ URI string }
				if err := json.Unmarshal(resp.err.Data, &data); err != nil || data.URI != uri {
					t.Errorf("resources/read %s: data %s, want {\"uri\": %q}", uri, resp.err.Data, uri)
				}
				if tt.era == statelessEra {
					validate2026(t, "resources/read", resp.raw)
				}
			}
			// A directory read of a missing folder, or of an unknown
			// skill, is "resource not found" by the same rule.
			for _, uri := range []string{folder + "/nope", "skill://claude/nope"} {
				resp := c.mustCall("resources/directory/read", map[string]any{"uri": uri})
				if resp.err == nil || resp.err.Code != tt.code || !strings.HasPrefix(resp.err.Message, "Resource not found") {
					t.Errorf("resources/directory/read %s: %s, want error %d \"Resource not found\"", uri, resp.raw, tt.code)
				}
			}
		})
	}
}

// TestDirectoryReadEmptyFile lists a folder holding an empty file: its
// size, 0, is on the wire, as for any other file.
func TestDirectoryReadEmptyFile(t *testing.T) {
	srv, r := wireFixture(t)
	refs := strings.TrimSuffix(r.SkillURI(), "/SKILL.md") + "/references"
	for _, era := range []string{"2025-11-25", statelessEra} {
		t.Run(era, func(t *testing.T) {
			resp := newRawClient(t, srv, era).mustCall("resources/directory/read", map[string]any{"uri": refs})
			var res struct {
				Resources []map[string]any `json:"resources"`
			}
			if resp.err != nil || json.Unmarshal(resp.result, &res) != nil {
				t.Fatalf("resources/directory/read %s: %s", refs, resp.raw)
			}
			sizes := map[string]any{}
			for _, c := range res.Resources {
				sizes[c["name"].(string)] = c["size"]
			}
			if want := map[string]any{"empty.txt": 0.0, "guide.md": 8.0}; !cmp.Equal(sizes, want) {
				t.Errorf("sizes %v, want %v:\n%s", sizes, want, resp.raw)
			}
		})
	}
}
