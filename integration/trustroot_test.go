package integration

// ccski trust-root update, the one command of signature verification that
// uses the network, against a TUF repository built by the test and served
// on loopback, and with --from FILE for a machine without the network.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// TestTrustRootUpdate refreshes the trusted root through TUF, runs again
// with nothing to change, refuses a tampered target, garbage given with
// --from and --from with --url (a usage error), keeping the root in force
// each time, then installs a good file with --from.
func TestTrustRootUpdate(t *testing.T) {
	home := t.TempDir()
	vars := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "TMPDIR=" + os.TempDir()}
	ccskiIn := func(args ...string) result { return runBinary(t, home, vars, args...) }
	rootJSON := provenancetest.Shared(t).RootJSON()
	repo := provenancetest.ServeTUF(t, rootJSON, nil)
	anchor := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(anchor, repo.Root, 0o644); err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(home, ".local", "state", "ccski", provenance.RootFile)

	r := ccskiIn("trust-root", "update", "--url", repo.URL, "--tuf-root", anchor, "--json")
	mustOK(t, r)
	var u provenance.RootUpdate
	decodeOnly(t, r, &u)
	if !u.Changed || u.Path != written || u.Source != repo.URL || len(u.Added) == 0 {
		t.Fatalf("update = %+v\n%s", u, r)
	}
	if b, err := os.ReadFile(written); err != nil || string(b) != string(rootJSON) {
		t.Fatalf("%s does not hold the target (err %v)", written, err)
	}

	r = ccskiIn("trust-root", "update", "--url", repo.URL, "--tuf-root", anchor)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("second run:\n%s", r)
	}

	tampered := provenancetest.ServeTUF(t, provenance.EmbeddedRoot(), []byte(strings.Replace(string(provenance.EmbeddedRoot()), "rekor", "r3kor", 1)))
	badAnchor := filepath.Join(t.TempDir(), "root.json")
	if err := os.WriteFile(badAnchor, tampered.Root, 0o644); err != nil {
		t.Fatal(err)
	}
	garbage := filepath.Join(t.TempDir(), "trusted_root.json")
	if err := os.WriteFile(garbage, []byte("<html>not a root</html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"tampered target", []string{"--url", tampered.URL, "--tuf-root", badAnchor}, 1, "hash verification failed"},
		{"garbage file", []string{"--from", garbage}, 1, "not a Sigstore trusted root"},
		{"--from with --url", []string{"--from", garbage, "--url", repo.URL}, 2, "does not go with --url"},
		{"another repository without its root", []string{"--url", repo.URL}, 1, "--tuf-root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ccskiIn(append([]string{"trust-root", "update"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("want exit %d naming %q\n%s", tc.code, tc.want, r)
			}
			if b, _ := os.ReadFile(written); string(b) != string(rootJSON) {
				t.Error("the root in force was replaced")
			}
		})
	}

	good := filepath.Join(t.TempDir(), "good.json")
	if err := os.WriteFile(good, provenance.EmbeddedRoot(), 0o644); err != nil {
		t.Fatal(err)
	}
	r = ccskiIn("trust-root", "update", "--from", good)
	mustOK(t, r)
	if !strings.Contains(r.stdout, "Updated the trusted root from "+good) || !strings.Contains(r.stdout, "+ transparency log https://rekor.sigstore.dev") {
		t.Errorf("--from a good file:\n%s", r)
	}
	if b, _ := os.ReadFile(written); string(b) != string(provenance.EmbeddedRoot()) {
		t.Error("--from did not write the file given")
	}
}
