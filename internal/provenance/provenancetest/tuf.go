package provenancetest

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"
)

// TUFRepo is a TUF repository made in a test and served on loopback:
// one ed25519 key for every role, consistent snapshots, one target
// (trusted_root.json).
type TUFRepo struct {
	// URL is the repository's base URL, http://127.0.0.1:<port>.
	URL string
	// Root is its root metadata (1.root.json), the trust anchor a client
	// is given.
	Root []byte
}

// ServeTUF writes a TUF repository whose trusted_root.json target holds
// target, and serves it on 127.0.0.1 (a port of 17100-17199) until the
// test ends; tamper, when set, replaces the target's bytes on disk after
// the metadata signed the genuine ones.
func ServeTUF(t testing.TB, target, tamper []byte) TUFRepo {
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
	var r TUFRepo
	r.Root = write("1.root.json", rootMD.ToBytes)
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
	r.URL = serveLoopback(t, http.FileServer(http.Dir(dir)))
	return r
}

// serveLoopback serves h on 127.0.0.1, on the first free port of
// 17100-17199, until the test ends.
func serveLoopback(t testing.TB, h http.Handler) string {
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
