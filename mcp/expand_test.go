package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/pipeline"
)

// TestExpandLimit: expand stops as soon as the text passes the limit, and
// gives the text whole when it stays within it.
func TestExpandLimit(t *testing.T) {
	tests := []struct {
		name, template, input string
		limit                 int
		want                  string
		ok                    bool
	}{
		{"within", "a $ARGUMENTS b", "xyz", 9, "a xyz b", true},
		{"exactly at", "a $ARGUMENTS b", "xyz", 7, "a xyz b", true},
		{"over", "a $ARGUMENTS b", "xyz", 6, "", false},
		{"repeated past it", strings.Repeat("$ARGUMENTS", 1000), strings.Repeat("i", 1000), 100000, "", false},
		{"positional past it", strings.Repeat("$1 ", 1000), strings.Repeat("i", 1000), 100000, "", false},
		{"no placeholder over it", strings.Repeat("t", 10), "x", 5, "", false},
		{"no limit", strings.Repeat("$1", 3), "ab", -1, "ababab", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := expand(tt.template, tt.input, tt.limit)
			if got != tt.want || ok != tt.ok {
				t.Errorf("expand = %.40q, %v; want %.40q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestPromptExpansionBomb: a command file that repeats $ARGUMENTS a
// hundred thousand times, asked for with a 100 KB input, is refused with
// -32602 instead of growing to 10 GB; the same command with a short input
// is served.
func TestPromptExpansionBomb(t *testing.T) {
	dir := t.TempDir()
	file := dir + "/bomb.md"
	writeFile(t, file, []byte("---\ndescription: Bomb.\n---\n"+strings.Repeat("$ARGUMENTS", 100000)+"\n"))
	recs := []*pipeline.Record{{Type: pipeline.TypeCommand, Name: "bomb", Description: "Bomb.", Agent: "claude",
		Location: pipeline.LocationUser, Root: dir, Dir: dir, File: file}}
	pipeline.AssignIDs(recs)
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 30*time.Second)
	cs := connect(t, srv, "", nil)
	var name string
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(res.Prompts) != 1 {
		t.Fatalf("prompts/list: %v %+v", err, res)
	}
	name = res.Prompts[0].Name
	get := func(ctx context.Context, input string) (*sdk.GetPromptResult, error) {
		return cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: map[string]string{PromptArgument: input}})
	}
	_, err = get(ctx, strings.Repeat("i", MaxPromptInput))
	var we *jsonrpc.Error
	if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams || !strings.Contains(we.Message, "give a shorter input") {
		t.Fatalf("a 100 KB input: %v, want -32602 saying the prompt would be too large", err)
	}
	got, err := get(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	if text := got.Messages[0].Content.(*sdk.TextContent).Text; len(text) != 100001 {
		t.Errorf("a short input gave %d bytes, want 100001", len(text))
	}
}

// FuzzExpand: whatever the template and input, Expand returns; every
// placeholder adds at most the input's length; text without a '$' is
// returned as it is; and under a limit the text is either whole and
// within it, or refused.
func FuzzExpand(f *testing.F) {
	f.Add("Fix $ARGUMENTS; then $1 and $ARGUMENTS[2].", `"a b" c 'd e' $ARGUMENTS`, 64)
	f.Add("$$$ARGUMENTS[999]$9$0${x}", "\"unclosed 'quote", 3)
	f.Fuzz(func(t *testing.T, template, input string, limit int) {
		out := Expand(template, input)
		if !strings.Contains(template, "$") && out != template {
			t.Fatalf("a template without $ changed: %q -> %q", template, out)
		}
		if bound := len(template) + strings.Count(template, "$")*len(input); len(out) > bound {
			t.Fatalf("%d bytes out of a %d-byte template and a %d-byte input: over %d", len(out), len(template), len(input), bound)
		}
		limit %= 1 << 16
		got, ok := expand(template, input, limit)
		switch {
		case limit < 0 && (!ok || got != out):
			t.Fatalf("no limit: %q, %v; want %q", got, ok, out)
		case limit >= 0 && ok != (len(out) <= limit):
			t.Fatalf("limit %d, text of %d bytes: ok %v", limit, len(out), ok)
		case ok && got != out:
			t.Fatalf("under a limit the text changed: %q, want %q", got, out)
		}
	})
}
