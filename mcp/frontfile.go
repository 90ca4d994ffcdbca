package mcp

// The frontmatter of each SKILL.md, kept beside the digests in
// skills.bin. A restarted server stated every file against the digests
// it loaded, but still read and parsed every SKILL.md for its frontmatter
// (the fronts cache, by digest, was the process's own): most of the CPU
// of the first listing after a restart. The frontmatter is a function of
// the bytes the digest names and of the parser, so it is kept by digest
// with the build of ccski that parsed it: the frontmatter of a file
// written by another build is not used (its digests are), and every
// SKILL.md is read again.

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/ccski/ccski/internal/binenc"
	"github.com/ccski/ccski/internal/manifest"
)

// parserBuild names the build of ccski whose parser wrote the frontmatter
// kept: its module version, or its VCS revision (and whether the tree was
// modified), "(devel)" without either.
var parserBuild = func() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	id := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			id += " " + s.Key + "=" + s.Value
		}
	}
	return id
}()

// frontsTable is the table of the frontmatter kept: one row "build" with
// parserBuild, then one row per SKILL.md digest with its size, its
// frontmatter as JSON and its name, or why it cannot be listed. rows are
// the entries to write (the map gets the build row); into receives the
// entries read, unless another build wrote them.
func frontsTable(rows map[string]*frontEntry, into map[string]*frontEntry) binenc.Table {
	const build = "build"
	if rows != nil {
		rows[build] = nil
	}
	t := &frontRows{into: into}
	t.Rows = binenc.Rows[*frontEntry]{
		Rows: rows,
		Put: func(e *binenc.Encoder, f *frontEntry) {
			if f == nil { // the build row
				e.String(parserBuild)
				return
			}
			e.Uvarint(uint64(f.size))
			if f.err != nil {
				e.Byte(1)
				e.String(f.err.Error())
				return
			}
			e.Byte(0)
			e.String(string(f.json))
			e.String(f.name)
		},
		Get: func(d *binenc.Decoder, key string) *frontEntry {
			if key == build {
				t.stale = d.Slice() != parserBuild
				return nil
			}
			if !manifest.DigestForm.MatchString(key) {
				d.Fail(fmt.Errorf("frontmatter of %q, which is not a digest: %w", key, binenc.ErrCorrupt))
				return nil
			}
			// Copies: the decoder's strings share the whole file.
			f := &frontEntry{size: int64(d.Uvarint())}
			switch d.Byte() {
			case 0:
				f.json, f.name = []byte(d.Slice()), strings.Clone(d.Slice())
			case 1:
				f.err = errors.New(strings.Clone(d.Slice()))
			default:
				d.Fail(fmt.Errorf("frontmatter of %s: %w", key, binenc.ErrCorrupt))
			}
			return f
		},
	}
	return t
}

// frontRows is the frontmatter table; once the whole file decoded, its
// entries go to into, unless stale (another build wrote them).
type frontRows struct {
	binenc.Rows[*frontEntry]
	into  map[string]*frontEntry
	stale bool
}

func (t *frontRows) DecodeTable(d *binenc.Decoder) func() {
	keep := t.Rows.DecodeTable(d)
	return func() {
		keep()
		if t.into == nil || t.stale {
			return
		}
		for k, f := range t.Rows.Rows {
			if f != nil {
				t.into[k] = f
			}
		}
	}
}
