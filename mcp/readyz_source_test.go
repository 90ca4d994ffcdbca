package mcp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
)

// TestReadyzWaitsForSources: a snapshot holding a source that has nothing
// to serve yet (pipeline.CodeSourceNotReady: providers.git before its
// first checkout) keeps /readyz at 503, naming the provider and not the
// source's address, and ccski_ready at 0; the next snapshot without it
// makes the server ready.
func TestReadyzWaitsForSources(t *testing.T) {
	srv := New(nil, Options{Logger: discard()})
	ts := opsServer(t, srv.Handler(HTTPOptions{}))
	snap := snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"}))
	snap.Diagnostics = append(snap.Diagnostics, pipeline.Diagnostic{Severity: pipeline.SeverityInfo,
		Code: pipeline.CodeSourceNotReady, Provider: "git", Path: "https://git.example.com/secret.git",
		Message: "no skills from https://git.example.com/secret.git yet: the first fetch is still running"})
	srv.Update(snap)
	code, body := probe(t, ts.URL+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "providers.git") || strings.Contains(body, "example.com") {
		t.Errorf("GET /readyz with a source not ready = %d %q, want 503 naming providers.git and not its address", code, body)
	}
	if srv.Ready() {
		t.Error("Ready() = true with a source not ready")
	}
	srv.Update(snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "git", name: "pdf", desc: "PDF files"})))
	if code, body := probe(t, ts.URL+"/readyz"); code != http.StatusOK || body != "ready" {
		t.Errorf("GET /readyz once the source is in = %d %q, want 200 ready", code, body)
	}
}
