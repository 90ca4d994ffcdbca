package mcp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolInputErrorsAreToolResults calls every tool with arguments its
// input schema refuses: since 2025-11-25 (SEP-1303) each is a tool
// result with isError set and a message saying what to send, which the
// model reads and acts on, not a JSON-RPC error; a tool the server does
// not have stays a protocol error.
func TestToolInputErrorsAreToolResults(t *testing.T) {
	srv, _ := wireFixture(t)
	tests := []struct {
		name string
		tool string
		args any
		has  string // the message names what is wrong
	}{
		{"skill without arguments", ToolName, nil, `"name"`},
		{"skill without name", ToolName, map[string]any{}, `missing required argument "name"`},
		{"skill with a number name", ToolName, map[string]any{"name": 5}, `"name" must be a string`},
		{"skill with a null name", ToolName, map[string]any{"name": nil}, `"name" must be a string`},
		{"skill with an empty name", ToolName, map[string]any{"name": ""}, `"name" must not be empty`},
		{"skill with a blank name", ToolName, map[string]any{"name": " \t "}, `"name" must not be empty`},
		{"skill with another key", ToolName, map[string]any{"skill": "pdf"}, `unknown argument "skill"`},
		{"skill with an extra key", ToolName, map[string]any{"name": "pdf", "args": "--fast"}, "apply any arguments yourself"},
		{"skill with arguments not an object", ToolName, []any{"pdf"}, "must be an object"},
		{"skill with a name over the cap", ToolName, map[string]any{"name": strings.Repeat("p", MaxNameArg+1)}, "over the 1024-byte limit"},
		{"skills_search without query", ToolSkillsSearch, map[string]any{}, "query"},
		{"skills_search with a number limit too big", ToolSkillsSearch, map[string]any{"query": "pdf", "limit": MaxSearchLimit + 1}, "limit"},
		{"skills_list with a bad includeBody", ToolSkillsList, map[string]any{"includeBody": "yes"}, "includeBody"},
		{"sources with an unknown key", ToolSources, map[string]any{"x": 1}, "x"},
		{"ask without a question", ToolAsk, map[string]any{"sources": []string{"claude"}}, "question"},
	}
	for _, pv := range protocolVersions {
		t.Run(pvName(pv), func(t *testing.T) {
			ctx := testCtx(t, 20*time.Second)
			cs := connect(t, srv, pv, nil)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tt.tool, Arguments: tt.args})
					if err != nil {
						t.Fatalf("a protocol error %v, want a tool result with isError", err)
					}
					text := resultText(t, res)
					if !res.IsError || !strings.Contains(text, tt.has) {
						t.Errorf("isError %v %q, want isError saying %q", res.IsError, text, tt.has)
					}
				})
			}
			_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("an unknown tool: %v, want a -32602 protocol error", err)
			}
		})
	}
}
