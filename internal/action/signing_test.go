package action

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestSignServer: a signing configuration that does not load fails a
// server under mcp.require_signed (which would otherwise serve nothing
// without saying why), naming the key; without the setting the server
// starts and verifies nothing.
func TestSignServer(t *testing.T) {
	b := newBox(t)
	missing := filepath.Join(b.root, "no-such-root.json")
	testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "signing: {trusted_root: " + missing + "}\n"})
	c := b.config(t)
	e, err := c.Engine()
	if err != nil {
		t.Fatal(err)
	}
	var buf strings.Builder
	log := slog.New(slog.NewTextHandler(&buf, nil))
	err = signServer(c, e, true, false, log)
	if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "signing.trusted_root") {
		t.Fatalf("under require_signed: err = %v, want a usage error naming signing.trusted_root", err)
	}
	if err := signServer(c, e, false, false, log); err != nil {
		t.Fatalf("without require_signed: %v", err)
	}
	if !strings.Contains(buf.String(), "signatures not verified") {
		t.Errorf("the failure is not logged: %q", buf.String())
	}
	snap, _, err := e.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Signatures != nil {
		t.Errorf("signatures verified without a verifier: %v", snap.Signatures)
	}
}
