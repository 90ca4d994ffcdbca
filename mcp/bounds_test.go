package mcp

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArgumentCaps: a prompt name over MaxNameArg, and a URI over
// MaxURIArg for resources/read, skills/get and resources/directory/read,
// are refused with -32602 saying how long they are, in a short message;
// at the cap they are looked up as usual (and not found).
func TestArgumentCaps(t *testing.T) {
	recs := makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})
	srv := New(snapOf(recs), Options{Logger: discard()})
	cs := skillsClient(t, srv, "2025-11-25")
	ctx := testCtx(t, 20*time.Second)
	uri := func(n int) string {
		base := "skill://claude/pdf/"
		return base + strings.Repeat("u", n-len(base))
	}
	calls := map[string]func(arg string) error{
		"prompts/get": func(name string) error {
			_, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name})
			return err
		},
		"resources/read": func(u string) error {
			_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: u})
			return err
		},
		"skills/get": func(u string) error {
			_, err := getSkill(ctx, cs, u)
			return err
		},
		"resources/directory/read": func(u string) error {
			_, err := readDir(ctx, cs, u)
			return err
		},
	}
	for method, call := range calls {
		t.Run(method, func(t *testing.T) {
			at, over := uri(MaxURIArg), uri(MaxURIArg+1)
			if method == "prompts/get" {
				at, over = strings.Repeat("p", MaxNameArg), strings.Repeat("p", MaxNameArg+1)
			}
			err := call(over)
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "bytes long, over the") ||
				len(we.Message) > 300 {
				t.Errorf("over the cap: %v, want a short -32602 saying it is too long", err)
			}
			if err := call(at); err == nil || strings.Contains(err.Error(), "bytes long, over the") {
				t.Errorf("at the cap: %v, want an ordinary lookup error", err)
			}
		})
	}
}
