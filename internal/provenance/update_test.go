package provenance_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// tufRepo is a TUF repository made in the test and served on loopback:
// one ed25519 key for every role, consistent snapshots, one target
// (trusted_root.json).
type tufRepo struct {
	dir  string
	root []byte // 1.root.json, the trust anchor
	url  string
}

// newTUFRepo writes a TUF repository whose trusted_root.json target holds
// target, and serves it; tamper, when set, replaces the target's bytes on
// disk after the metadata signed the genuine ones.
func newTUFRepo(t *testing.T, target, tamper []byte) *tufRepo {
	t.Helper()
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signature.LoadSigner(priv, crypto.Hash(0))
	if err != nil {
		t.Fatal(err)
	}
	key, err := metadata.KeyFromPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	expires := time.Now().AddDate(0, 0, 7)
	rootMD := metadata.Root(expires)
	for _, role := range []string{"root", "targets", "snapshot", "timestamp"} {
		if err := rootMD.Signed.AddKey(key, role); err != nil {
			t.Fatal(err)
		}
	}
	targets := metadata.Targets(expires)
	tf, err := metadata.TargetFile().FromBytes("trusted_root.json", target, "sha256")
	if err != nil {
		t.Fatal(err)
	}
	targets.Signed.Targets["trusted_root.json"] = tf
	snapshot := metadata.Snapshot(expires)
	timestamp := metadata.Timestamp(expires)
	for _, sign := range []func(signature.Signer) (*metadata.Signature, error){rootMD.Sign, targets.Sign, snapshot.Sign, timestamp.Sign} {
		if _, err := sign(signer); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name string, b func(bool) ([]byte, error)) []byte {
		data, err := b(true)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		return data
	}
	r := &tufRepo{dir: dir}
	r.root = write("1.root.json", rootMD.ToBytes)
	write("1.targets.json", targets.ToBytes)
	write("1.snapshot.json", snapshot.ToBytes)
	write("timestamp.json", timestamp.ToBytes)
	if err := os.MkdirAll(filepath.Join(dir, "targets"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(target)
	body := target
	if tamper != nil {
		body = tamper
	}
	if err := os.WriteFile(filepath.Join(dir, "targets", hex.EncodeToString(sum[:])+".trusted_root.json"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	r.url = serveLoopback(t, http.FileServer(http.Dir(dir)))
	return r
}

// serveLoopback serves h on 127.0.0.1, on the first free port of
// 17100-17199, until the test ends.
func serveLoopback(t *testing.T, h http.Handler) string {
	t.Helper()
	for port := 17100; port < 17200; port++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return "http://" + ln.Addr().String()
	}
	t.Fatal("no free port in 17100-17199")
	return ""
}

// TestUpdateRootTUF refreshes the trusted root from a TUF repository
// served on loopback: the new root is written and then in force (a skill
// signed by the test Sigstore verifies with no signing.trusted_root); a
// second run changes nothing; a target whose bytes the metadata does not
// vouch for, and a target that is no trusted root, are refused and the
// root in force is kept.
func TestUpdateRootTUF(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	rootJSON := provenancetest.Shared(t).RootJSON()
	repo := newTUFRepo(t, rootJSON, nil)

	// Before: a signed skill does not verify with the shipped root.
	dir := writeSkill(t, "pdf")
	provenancetest.Shared(t).Sign(t, dir, provenancetest.Options{Identity: "alice@example.com"})
	if _, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{StateDir: state})); !errors.Is(err, provenance.ErrInvalid) {
		t.Fatalf("with the shipped root: err = %v, want ErrInvalid", err)
	}

	u, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: repo.url, TUFRoot: repo.root})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Changed || u.Previous != "the trusted root ccski ships" || u.Source != repo.url || u.Path != filepath.Join(state, provenance.RootFile) {
		t.Fatalf("update = %+v", u)
	}
	if len(u.Added) == 0 || len(u.Removed) == 0 {
		t.Errorf("added %q, removed %q: want both (the test root shares nothing with the shipped one)", u.Added, u.Removed)
	}
	got, err := os.ReadFile(u.Path)
	if err != nil || string(got) != string(rootJSON) {
		t.Fatalf("written root differs from the target (err %v)", err)
	}
	s, err := provenance.Verify(ctx, dir, build(t, dir), verifier(t, provenance.Config{StateDir: state}))
	if err != nil || s.Identity != "alice@example.com" {
		t.Fatalf("with the updated root: signer %v, err %v", s, err)
	}

	again, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: repo.url, TUFRoot: repo.root})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || len(again.Added)+len(again.Removed) != 0 {
		t.Errorf("second update = %+v, want no change", again)
	}

	for _, tc := range []struct {
		name string
		repo *tufRepo
		want string
	}{
		{"tampered target", newTUFRepo(t, provenance.EmbeddedRoot(), []byte(strings.Replace(string(provenance.EmbeddedRoot()), "rekor", "r3kor", 1))), "trusted_root.json"},
		{"not a trusted root", newTUFRepo(t, []byte(`{"mediaType": "text/plain"}`), nil), "not a Sigstore trusted root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, URL: tc.repo.url, TUFRoot: tc.repo.root})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if b, _ := os.ReadFile(u.Path); string(b) != string(rootJSON) {
				t.Error("the root in force was replaced")
			}
		})
	}
}

// TestUpdateRootFrom installs a trusted root from a file (a machine
// without the network): garbage, an empty root and a missing file are
// refused with an error naming what is wrong, and the root in force is
// kept; a good file is written.
func TestUpdateRootFrom(t *testing.T) {
	ctx := context.Background()
	state := t.TempDir()
	files := t.TempDir()
	put := func(name, body string) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := put("good.json", string(provenancetest.Shared(t).RootJSON()))
	u, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, From: good})
	if err != nil || !u.Changed || u.Source != good {
		t.Fatalf("update from %s: %+v, %v", good, u, err)
	}
	for _, tc := range []struct {
		name, from, want string
	}{
		{"garbage", put("garbage.json", "\x00\x01not json"), "not a Sigstore trusted root"},
		{"truncated", put("truncated.json", string(provenance.EmbeddedRoot()[:400])), "not a Sigstore trusted root"},
		{"no authority", put("empty.json", `{"mediaType": "application/vnd.dev.sigstore.trustedroot+json;version=0.1"}`), "no certificate authority"},
		{"missing", filepath.Join(files, "nope.json"), "nope.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provenance.UpdateRoot(ctx, provenance.UpdateRequest{StateDir: state, From: tc.from})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one naming %q", err, tc.want)
			}
			if b, _ := os.ReadFile(u.Path); string(b) != string(provenancetest.Shared(t).RootJSON()) {
				t.Error("the root in force was replaced")
			}
		})
	}
}
