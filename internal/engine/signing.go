package engine

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/pipeline"
)

// SigningOptions say what every Snapshot does with the signatures skills
// carry (package provenance).
type SigningOptions struct {
	// Verifier holds the trusted material signatures are verified
	// against; nil verifies nothing (and, with Require, serves nothing).
	Verifier *provenance.Verifier
	// Require drops, before the filter stages, every record whose
	// signature does not verify or that carries none (the stage
	// SignedStageName), and keeps what was verified of each signed skill
	// as the gate pipeline.GateSigned judged it: a server serves those
	// bytes and no others. It is mcp.require_signed.
	Require bool
}

// SignedStageName is the name of the stage of mcp.require_signed, as
// pipeline.Drop.Stage gives it.
const SignedStageName = "signature"

// SetSigning sets what every later Snapshot does with signatures: with a
// Verifier, it verifies the signature every skill that carries one (a
// signature file discovery found at the top of its folder,
// pipeline.Record.SignatureFile) against its files (its manifest, package
// manifest) and puts its records' signature in Snapshot.Signatures; a
// skill without one is unsigned (Snapshot.SignatureOf), and nothing of it
// is read; with Require it also keeps
// every record without a verified signature from the view. A signature is
// verified once per state of a skill's files: the result is kept by the
// skill's manifest digest (every file's path, size and digest), so that a
// rescan verifies only the skills whose files changed, unless
// DisableCache was called. Setting another Verifier forgets the results.
func (e *Engine) SetSigning(o SigningOptions) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if o.Verifier != e.signing.opts.Verifier {
		e.signing.results = nil
	}
	e.signing.opts = o
}

// signingOptions returns what SetSigning set.
func (e *Engine) signingOptions() SigningOptions {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.signing.opts
}

// signing runs signature verification inside Snapshot, as SetSigning
// asks.
type signing struct {
	opts  SigningOptions
	cache *manifest.Cache
	// results are the verifications done, by manifest digest
	// (manifestKey); gen is the current generation, and an entry no
	// snapshot of this generation used is forgotten.
	results map[string]verification
	gen     uint64
	// verified counts the calls to provenance.Verify (tests read it).
	verified int
}

// verification is the outcome of verifying one state of a skill's files.
type verification struct {
	signer *provenance.Signer
	err    error
	gen    uint64
}

// apply verifies the signatures of the skill records and returns what
// each says, the stages to run (the signature stage first under
// Require), and under Require what the gate judged of every record. With
// no Verifier and no Require it returns nil and stages as they are.
func (g *signing) apply(ctx context.Context, records []*pipeline.Record, stages []pipeline.Stage, noCache bool) (
	map[*pipeline.Record]pipeline.Signature, []pipeline.Stage, *pipeline.Judgement) {
	if g.opts.Verifier == nil {
		if g.opts.Require { // nothing to verify with: nothing is served
			j := &pipeline.Judgement{Gate: pipeline.GateSigned}
			return nil, append([]pipeline.Stage{&signedStage{}}, stages...), j
		}
		return nil, stages, nil
	}
	if noCache || g.cache == nil {
		g.cache = manifest.NewCache()
	}
	if noCache || g.results == nil {
		g.results = map[string]verification{}
	}
	g.gen++
	found := map[*pipeline.Record]pipeline.Signature{}
	byDir := map[string]pipeline.Signature{}
	for _, r := range records {
		if r.IsCommand() {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		dir := r.RealDir
		if dir == "" {
			dir = r.Dir
		}
		if r.SignatureFile == "" { // discovery found no signature file: unsigned (Snapshot.SignatureOf)
			continue
		}
		sig, ok := byDir[dir]
		if !ok {
			sig = g.check(ctx, dir)
			byDir[dir] = sig
		}
		found[r] = sig
	}
	for k, v := range g.results {
		if v.gen != g.gen {
			delete(g.results, k)
		}
	}
	if !noCache {
		g.cache.Sweep()
	}
	if !g.opts.Require {
		return found, stages, nil
	}
	j := &pipeline.Judgement{Gate: pipeline.GateSigned, Files: map[*pipeline.Record]pipeline.JudgedFiles{}}
	for _, r := range records {
		j.Files[r] = nil // a command, an unsigned or an invalid skill: nothing is served
		if sig := found[r]; sig.Signed() {
			j.Files[r] = sig.Files
		}
	}
	return found, append([]pipeline.Stage{&signedStage{found: found}}, stages...), j
}

// check returns what the signature the skill folder dir carries says of
// its files: discovery found a signature file in it
// (pipeline.Record.SignatureFile), and the manifest names it again.
func (g *signing) check(ctx context.Context, dir string) pipeline.Signature {
	m, err := g.cache.Build(dir)
	if err != nil {
		return pipeline.Signature{State: pipeline.SignatureInvalid,
			Error: fmt.Sprintf("the skill's files could not be read to verify its signature: %v", err)}
	}
	file := provenance.Find(m.Files)
	if file == "" { // gone since discovery listed the folder
		return pipeline.Signature{State: pipeline.SignatureUnsigned}
	}
	invalid := func(err error) pipeline.Signature {
		return pipeline.Signature{State: pipeline.SignatureInvalid, File: file, Error: err.Error()}
	}
	key := manifestKey(m.Files)
	v, ok := g.results[key]
	if !ok {
		g.verified++
		signer, err := provenance.Verify(ctx, dir, m.Files, g.opts.Verifier)
		if err == nil && signer == nil { // the signature file is a recorded link, or went
			err = fmt.Errorf("signature %s of skill %s: the file was not found to verify", file, dir)
		}
		if err == nil {
			if f, ok := m.File(signer.File); !ok || f.Digest != signer.Bundle {
				// Verify read other bytes of the signature file than the
				// manifest hashed: it changed meanwhile. Not kept: the
				// next snapshot verifies again.
				return invalid(fmt.Errorf("signature %s of skill %s changed while it was verified", file, dir))
			}
		}
		v = verification{signer: signer, err: err}
		if err != nil && !errors.Is(err, provenance.ErrInvalid) {
			return invalid(err) // a file that could not be read, a check cut short: not a verdict to keep
		}
	}
	v.gen = g.gen
	g.results[key] = v
	if v.err != nil {
		return invalid(v.err)
	}
	s := v.signer
	return pipeline.Signature{State: pipeline.SignatureSigned, File: s.File, Files: judgedFiles(m.Files, s.Covered),
		Signer: &pipeline.Signer{Identity: s.Identity, Issuer: s.Issuer, Format: s.Format, Bundle: s.Bundle, File: s.File}}
}

// manifestKey is the digest of a skill's manifest: the SHA-256 of every
// file's path, size and digest, and every recorded link's target, in path
// order. Two states of a skill's files with one key are the same bytes,
// so a verification of one holds for the other.
func manifestKey(files []manifest.File) string {
	h := sha256.New()
	var buf []byte
	for _, f := range files {
		buf = buf[:0]
		buf = strconv.AppendQuote(buf, f.Path)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, f.Size, 10)
		buf = append(buf, ' ')
		buf = append(buf, f.Digest...)
		buf = append(buf, ' ')
		buf = strconv.AppendQuote(buf, f.Link)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	return manifest.FormatDigest(h.Sum(nil))
}

// judgedFiles are the files of a manifest a signature covers (covered,
// provenance.Signer.Covered), as a gate's judgement lists them: a file
// the signature does not cover (one an OMS signature's ignore_paths
// leaves out, an extra file under signing.strict: false) is not among
// them, so it is not served as signed; recorded links have no bytes to
// serve.
func judgedFiles(files []manifest.File, covered []string) pipeline.JudgedFiles {
	out := make(pipeline.JudgedFiles, 0, len(covered))
	for _, f := range files {
		if _, ok := slices.BinarySearch(covered, f.Path); ok && !f.IsLink() {
			out = append(out, pipeline.JudgedFile{Path: f.Path, Size: f.Size, Digest: f.Digest})
		}
	}
	return out
}

// signedStage is the stage of mcp.require_signed: it drops every record
// whose signature did not verify, with the reason, so that agents are
// neither listed nor served it. Like the trust stage it runs before the
// filter stages, so that the next copy of a dropped skill (a signed one)
// takes its place.
type signedStage struct {
	found map[*pipeline.Record]pipeline.Signature
}

func (s *signedStage) Name() string { return SignedStageName }

func (s *signedStage) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	var out []*pipeline.Record
	var drops []pipeline.Drop
	for _, r := range in {
		sig, ok := s.found[r]
		if !ok {
			sig = pipeline.Signature{State: pipeline.SignatureUnsigned}
		}
		if sig.Signed() {
			out = append(out, r)
			continue
		}
		drops = append(drops, pipeline.Drop{Record: r, Reason: pipeline.UnsignedReason(r, sig)})
	}
	return out, drops
}
