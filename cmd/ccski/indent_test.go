package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// indentCases are values whose JSON has every kind of token, punctuation
// and escapes inside strings, and empty and nested objects and arrays.
func indentCases() []any {
	return []any{
		nil, true, 12.5, "plain", `q"uo\te{[,:]}`, "tab\tnew\nline \\ end\\", "ünïcode ✓ <&>",
		[]any{}, map[string]any{}, []any{[]any{}, map[string]any{}, []any{1, []any{2, []any{3}}}},
		map[string]any{"a": map[string]any{"b": []any{"c", map[string]any{}, `"}]`}}, "": "", `k"\`: []any{nil}},
		struct {
			Name  string            `json:"name"`
			Tags  []string          `json:"tags"`
			Meta  map[string]string `json:"meta,omitempty"`
			Empty []int             `json:"empty"`
		}{"x", []string{"a,b", "c:d"}, map[string]string{"z": "{", "y": "\\\""}, []int{}},
	}
}

// TestAppendIndentedMatchesJSONIndent checks that appendIndented gives the
// bytes json.Indent gives, which json.Encoder's SetIndent writes.
func TestAppendIndentedMatchesJSONIndent(t *testing.T) {
	for i, v := range indentCases() {
		var compact bytes.Buffer
		enc := json.NewEncoder(&compact)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		src := bytes.TrimSuffix(compact.Bytes(), []byte("\n"))
		for _, pi := range [][2]string{{"  ", "  "}, {"", "\t"}, {">", ""}} {
			var want bytes.Buffer
			if err := json.Indent(&want, src, pi[0], pi[1]); err != nil {
				t.Fatal(err)
			}
			if got := appendIndented([]byte("before"), src, pi[0], pi[1]); !bytes.Equal(got, append([]byte("before"), want.Bytes()...)) {
				t.Errorf("case %d, prefix %q indent %q:\n got %s\nwant %s", i, pi[0], pi[1], got, want.Bytes())
			}
		}
	}
}

// TestEncodeJSONItemsMatchesEncoder checks encodeJSONItems against what
// it replaced: json.Encoder with SetIndent("  ", "  ") per item.
func TestEncodeJSONItemsMatchesEncoder(t *testing.T) {
	items := indentCases()
	for _, first := range []bool{true, false} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("  ", "  ")
		enc.SetEscapeHTML(false)
		for i := range items {
			if i > 0 || !first {
				want.WriteString(",\n  ")
			}
			if err := enc.Encode(items[i]); err != nil {
				t.Fatal(err)
			}
			want.Truncate(want.Len() - 1)
		}
		got, err := encodeJSONItems(items, first)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("first=%v:\n got %s\nwant %s", first, got.Bytes(), want.Bytes())
		}
	}
}

// BenchmarkEncodeJSONItems measures one chunk of 256 records of list
// --json: compact then appendIndented (now), and json.Encoder's
// SetIndent (before).
//
//	go test -run '^$' -bench EncodeJSONItems -benchmem ./cmd/ccski/
func BenchmarkEncodeJSONItems(b *testing.B) {
	items := make([]recordJSON, 256)
	for i := range items {
		items[i] = recordJSON{}
		items[i].Name = fmt.Sprintf("skill-%05d", i)
		items[i].ID = "claude:" + items[i].Name
		items[i].Description = strings.Repeat("Handles a task, step by step: write, check. ", 3)
	}
	b.Run("appendIndented", func(b *testing.B) {
		for b.Loop() {
			if _, err := encodeJSONItems(items, true); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoder-indent", func(b *testing.B) {
		for b.Loop() {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("  ", "  ")
			enc.SetEscapeHTML(false)
			for i := range items {
				if i > 0 {
					buf.WriteString(",\n  ")
				}
				if err := enc.Encode(items[i]); err != nil {
					b.Fatal(err)
				}
				buf.Truncate(buf.Len() - 1)
			}
		}
	})
}
