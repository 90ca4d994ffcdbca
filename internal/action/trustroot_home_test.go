package action

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/provenance"
)

// TestVerifierAccountHome: under a managed config's signature rule, the
// Verifier reads the refreshed root from the account's home folder
// (AccountHome), never from Home ($HOME); it fails when that folder is
// not known or relative, unless the managed config names a trusted root.
func TestVerifierAccountHome(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(root, provenance.EmbeddedRoot(), 0o644); err != nil {
		t.Fatal(err)
	}
	account, env := t.TempDir(), t.TempDir()
	// $HOME's state folder holds a root that does not parse: read, it
	// would fail the Verifier.
	if err := os.MkdirAll(filepath.Join(env, ".local", "state", "ccski"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(env, ".local", "state", "ccski", provenance.RootFile), []byte("not a root"), 0o644); err != nil {
		t.Fatal(err)
	}
	config := func(accountHome, trustedRoot string) *Config {
		ld := &configs.Loaded{ManagedSigning: true, Sources: map[string]string{}}
		ld.Config.Signing.TrustedRoot = trustedRoot
		return &Config{Process: Process{Cwd: env, Home: env, AccountHome: accountHome, Getenv: func(string) string { return "" }}, Loaded: ld}
	}
	for _, tc := range []struct {
		name, accountHome, trustedRoot string
		wantErr                        string // "" for a Verifier
	}{
		{"account home, no root file", account, "", ""},
		{"unknown home", "", "", "not known"},
		{"relative home", ".", "", "not known"},
		{"unknown home, managed root", "", root, ""},
	} {
		v, err := config(tc.accountHome, tc.trustedRoot).Verifier()
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.wantErr)
		case tc.trustedRoot != "" && err == nil && v.RootSource() != root:
			t.Errorf("%s: root from %s, want %s", tc.name, v.RootSource(), root)
		}
	}

	if runtime.GOOS == "windows" {
		return
	}
	// The account's refreshed root, once others may write it, is refused.
	state := filepath.Join(account, ".local", "state", "ccski")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(state, provenance.RootFile)
	if err := os.WriteFile(file, provenance.EmbeddedRoot(), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := config(account, "").Verifier(); err != nil || v.RootSource() != file {
		t.Errorf("the account's root: got %v, want it read from %s", err, file)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, err := config(account, "").Verifier(); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("a root others may write: got %v, want an error naming %s", err, file)
	}
}
