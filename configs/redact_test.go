package configs

import (
	"testing"

	"github.com/ccski/ccski/providers/all"
	"github.com/google/go-cmp/cmp"
)

func TestIsSecret(t *testing.T) {
	for key, want := range map[string]bool{
		"mcp.auth_token": true, "providers.x.api_key": true, "providers.x.client_secret": true,
		"providers.x.Password": true, "auth_token": true,
		"mcp.port": false, "mcp.host": false, "limits.max_depth": false, "providers.claude.home": false,
		"mcp.tools": false,
	} {
		if got := IsSecret(key); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestRedact checks that a set secret is replaced in both the nested and
// the flat view, an unset one is left as it is, and nothing else changes.
func TestRedact(t *testing.T) {
	cfg := Default(all.Registry())
	cfg.MCP.AuthToken = "s3cret-value"
	cfg.MCP.Port = 4000
	tree, keys := Redact(cfg.Tree())
	if got := tree["mcp"].(map[string]any)["auth_token"]; got != RedactedValue {
		t.Errorf("tree mcp.auth_token = %v, want %s", got, RedactedValue)
	}
	if got := tree["mcp"].(map[string]any)["port"]; got != 4000 {
		t.Errorf("tree mcp.port = %v, want 4000", got)
	}
	if d := cmp.Diff([]string{"mcp.auth_token"}, keys); d != "" {
		t.Errorf("redacted keys (-want +got):\n%s", d)
	}
	if cfg.Tree()["mcp"].(map[string]any)["auth_token"] != "s3cret-value" {
		t.Error("Redact changed its input")
	}
	flat, keys := Redact(cfg.Flat())
	if flat["mcp.auth_token"] != RedactedValue || len(keys) != 1 {
		t.Errorf("flat mcp.auth_token = %v (keys %v), want %s", flat["mcp.auth_token"], keys, RedactedValue)
	}
	want := cfg.Flat()
	want["mcp.auth_token"] = RedactedValue
	if d := cmp.Diff(want, flat); d != "" {
		t.Errorf("flat (-want +got):\n%s", d)
	}

	unset, keys := Redact(Default(all.Registry()).Flat())
	if unset["mcp.auth_token"] != "" || len(keys) != 0 {
		t.Errorf("an unset token reads %q (keys %v); want it shown unset", unset["mcp.auth_token"], keys)
	}
}

func TestValues(t *testing.T) {
	for key, want := range map[string][]string{
		"mcp.transport": {"stdio", "http", "sse"},
		"state":         {"enabled", "disabled", "all"},
		"mcp.tools":     {"skills_list", "skills_search", "sources", "ask"},
		"mcp.port":      nil,
		"no.such.key":   nil,
	} {
		if d := cmp.Diff(want, Values(all.Registry(), key)); d != "" {
			t.Errorf("Values(%q) (-want +got):\n%s", key, d)
		}
	}
}
