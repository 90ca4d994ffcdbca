package provenance_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/provenance/provenancetest"
)

// BenchmarkVerify measures what verifying one skill's signature costs,
// for each way of signing and a skill of 3 and of 100 files: Verify with
// the skill's manifest built (as every caller has it: the files are
// hashed once for the manifest, not again here), the signature file read,
// parsed and checked, and the statement compared with the files. The
// Verifier is built once, as a command or server does (see
// BenchmarkNewVerifier).
func BenchmarkVerify(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{3, 100} {
		for _, way := range []struct {
			name   string
			format string
			sign   func(b *testing.B, dir, format string) provenance.Config
		}{
			{"keyless-oms", provenance.FormatOMS, func(b *testing.B, dir, format string) provenance.Config {
				return provenance.Config{TrustedRoot: provenancetest.Sign(b, dir, provenancetest.Options{Format: format})}
			}},
			{"keyless-sigstore", provenance.FormatSigstore, func(b *testing.B, dir, format string) provenance.Config {
				return provenance.Config{TrustedRoot: provenancetest.Sign(b, dir, provenancetest.Options{Format: format})}
			}},
			{"key-oms", provenance.FormatOMS, func(b *testing.B, dir, format string) provenance.Config {
				return provenance.Config{Keys: []string{provenancetest.SignKey(b, dir, provenancetest.Options{Format: format})}}
			}},
			{"certificate-oms", provenance.FormatOMS, func(b *testing.B, dir, format string) provenance.Config {
				return provenance.Config{Keys: []string{provenancetest.SignCert(b, dir, provenancetest.Options{Format: format})}}
			}},
		} {
			b.Run(fmt.Sprintf("files=%d/%s", n, way.name), func(b *testing.B) {
				dir := writeSkill(b, "pdf")
				for i := 3; i < n; i++ {
					write(b, filepath.Join(dir, "references", fmt.Sprintf("part-%03d.md", i)), fmt.Sprintf("Part %d of the guide.\n", i))
				}
				cfg := way.sign(b, dir, way.format)
				v := verifier(b, cfg)
				files := build(b, dir)
				if len(files) != n+1 {
					b.Fatalf("%d files, want %d and the signature", len(files), n)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := provenance.Verify(ctx, dir, files, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkNewVerifier measures building a Verifier from the shipped
// trusted root: once per command or server.
func BenchmarkNewVerifier(b *testing.B) {
	state := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := provenance.NewVerifier(provenance.Config{StateDir: state}); err != nil {
			b.Fatal(err)
		}
	}
}
