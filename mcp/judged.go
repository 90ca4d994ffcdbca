package mcp

// What a server under a gate serves. Under mcp.scan: block,
// mcp.require_trusted and mcp.require_signed the engine judges every
// skill's files when it builds a snapshot, and keeps what it judged: each
// file's path, size and the SHA-256 of the bytes the scan read, the trust
// store accepted or the signature was verified against
// (pipeline.Snapshot.Judged). Every answer that carries a skill file's
// bytes (the skill tool, resources/read, prompts/get, skills/get and
// skills/list, the optional tools, icons) reads the file once, hashes
// those bytes and compares them with what each gate covering the skill
// judged, then serves those same bytes: there is no window between the
// check and the read. A file changed since the judgement, or not among
// the files judged (added since, or one the scan could not read), is
// refused with an error naming the skill, the file and what to run. A
// server without a gate reads as it always did, and hashes nothing.

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/pipeline"
)

// judged is what the gates of a snapshot judged of one file of a record
// (judgedOf). A nil *judged stands for a record no gate covers: its
// methods then read and accept as a server without a gate does.
type judged struct {
	r   *pipeline.Record
	rel string // the file's path in the record's folder, '/'-separated
	// gates are the gates covering r, and files what each judged of the
	// file (the zero File when it judged none).
	gates []pipeline.Gate
	files []pipeline.JudgedFile
}

// judgedOf returns what snap's gates judged of the file rel
// ('/'-separated, in the folder of r's file) of r, or nil when no gate
// covers r.
func judgedOf(snap *pipeline.Snapshot, r *pipeline.Record, rel string) *judged {
	if snap == nil || len(snap.Judged) == 0 {
		return nil
	}
	var j *judged
	for _, g := range snap.Judged {
		files, ok := g.Of(r)
		if !ok {
			continue
		}
		if j == nil {
			j = &judged{r: r, rel: path.Clean(rel)}
		}
		f, _ := files.File(j.rel)
		j.gates = append(j.gates, g.Gate)
		j.files = append(j.files, f)
	}
	return j
}

// ownFile is the path, in its folder, of a record's own file: SKILL.md
// (.SKILL.md when disabled), or a command's file.
func ownFile(r *pipeline.Record) string { return filepath.Base(r.File) }

// judgedOwn is judgedOf r's own file.
func judgedOwn(snap *pipeline.Snapshot, r *pipeline.Record) *judged {
	return judgedOf(snap, r, ownFile(r))
}

// size returns the size every gate judged the file to have, or the
// refusal when one judged no such file.
func (j *judged) size() (int64, error) {
	for i, f := range j.files {
		if f.Digest == "" {
			return 0, j.refuse(i, false)
		}
	}
	return j.files[0].Size, nil
}

// check returns nil when data, the whole file as read, are the bytes
// every gate covering the record judged; else the refusal
// (*unjudgedError). Without a gate it accepts any bytes and hashes
// nothing.
func (j *judged) check(data []byte) error {
	if j == nil {
		return nil
	}
	digest := ""
	for i, f := range j.files {
		if f.Digest == "" {
			return j.refuse(i, false)
		}
		if int64(len(data)) != f.Size {
			return j.refuse(i, true)
		}
		if digest == "" {
			digest = manifest.Digest(data)
		}
		if digest != f.Digest {
			return j.refuse(i, true)
		}
	}
	return nil
}

// prefix returns the first n bytes of the open file f (st is its stat),
// and whether more follow, as safefile.Prefix does. For a judged file it
// reads the whole file, no further than the size judged, and returns the
// beginning of it only when the whole is the bytes judged: a file whose
// size is not the one judged is refused without being read.
func (j *judged) prefix(f *os.File, st fs.FileInfo, n int64) ([]byte, bool, error) {
	if j == nil {
		return safefile.Prefix(f, st, n)
	}
	size, err := j.size()
	if err != nil {
		return nil, false, err
	}
	if st.Size() != size {
		return nil, false, j.refuse(0, true)
	}
	data, more, err := safefile.Prefix(f, st, size)
	switch {
	case err != nil:
		return nil, false, err
	case more: // it grew while it was read
		return nil, false, j.refuse(0, true)
	}
	if err := j.check(data); err != nil {
		return nil, false, err
	}
	if int64(len(data)) > n {
		return data[:n], true, nil
	}
	return data, false, nil
}

// readOwn reads the first n bytes of r's own file, and whether more
// follow, as safefile.ReadPrefix does; under a gate only when the whole
// file is the bytes judged (see judged.prefix).
func readOwn(snap *pipeline.Snapshot, r *pipeline.Record, n int64) ([]byte, bool, error) {
	j := judgedOwn(snap, r)
	if j == nil {
		return safefile.ReadPrefix(r.File, n)
	}
	f, st, err := safefile.Open(r.File)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	return j.prefix(f, st, n)
}

// entryJudged returns nil when every file of a skills/list entry of r
// (files, sorted by path) is what each gate covering r judged: the entry
// then lists no file that resources/read would refuse, and its
// frontmatter, whose digest is that of the bytes it was parsed from, is
// the one judged. The other digests come from the manifest cache, keyed
// by each file's stat (see manifest.Cache): enough for a listing, which
// carries no file's bytes; resources/read checks the bytes it serves.
func entryJudged(snap *pipeline.Snapshot, r *pipeline.Record, files []manifest.File) error {
	if snap == nil || len(snap.Judged) == 0 {
		return nil
	}
	for _, g := range snap.Judged {
		judged, ok := g.Of(r)
		if !ok {
			continue
		}
		for _, f := range files {
			jf, ok := judged.File(f.Path)
			if !ok || jf.Digest != f.Digest || jf.Size != f.Size {
				return newUnjudged(r, f.Path, g.Gate, ok)
			}
		}
	}
	return nil
}

// judgedChild returns, under snap's gates, whether resources/directory/read
// lists a child of r's folder (p, '/'-separated): a file every gate
// covering r judged, or a folder holding one; a file added since the
// judgement is not listed, as it is not served. It returns nil when no
// gate covers r: every child is listed.
func judgedChild(snap *pipeline.Snapshot, r *pipeline.Record) func(p string, folder bool) bool {
	if snap == nil || len(snap.Judged) == 0 {
		return nil
	}
	var all []pipeline.JudgedFiles
	for _, g := range snap.Judged {
		if files, ok := g.Of(r); ok {
			all = append(all, files)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return func(p string, folder bool) bool {
		for _, files := range all {
			if !folder {
				if _, ok := files.File(p); !ok {
					return false
				}
				continue
			}
			// The paths inside the folder sort together, right after
			// p+"/".
			i, _ := slices.BinarySearchFunc(files, p+"/", func(f pipeline.JudgedFile, t string) int { return strings.Compare(f.Path, t) })
			if i == len(files) || !strings.HasPrefix(files[i].Path, p+"/") {
				return false
			}
		}
		return true
	}
}

// unjudgedError refuses a file whose bytes are not the ones a gate
// judged: changed since, or not among the files it judged.
type unjudgedError struct {
	id, dir, rel string
	gate         pipeline.Gate
	changed      bool // else not among the files judged
	// never says why the scan judges the file at no scan, or is "" (see
	// neverJudged).
	never string
}

func (j *judged) refuse(i int, changed bool) *unjudgedError {
	return newUnjudged(j.r, j.rel, j.gates[i], changed)
}

// newUnjudged is the refusal of r's file rel (in the folder of r's file)
// by gate.
func newUnjudged(r *pipeline.Record, rel string, gate pipeline.Gate, changed bool) *unjudgedError {
	e := &unjudgedError{id: r.ID, dir: r.Dir, rel: rel, gate: gate, changed: changed}
	if gate == pipeline.GateScan && !changed {
		e.never = neverJudged(filepath.Dir(r.File), rel)
	}
	return e
}

// neverJudged says why the security scan leaves the file rel of the
// folder dir out of what it judged at every scan, so that a rescan does
// not serve it: a file larger than it hashes, or one reached through a
// symlinked folder inside the skill (the walk records the link, never
// follows it). It returns "" for any other file (added since the scan).
func neverJudged(dir, rel string) string {
	at := dir
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		at = filepath.Join(at, part)
		st, err := os.Lstat(at)
		switch {
		case err != nil:
			return ""
		case st.Mode()&fs.ModeSymlink != 0 && i < len(parts)-1:
			return fmt.Sprintf("is reached through the symbolic link %s inside the skill, which the security scan "+
				"does not follow", path.Join(parts[:i+1]...))
		case i == len(parts)-1 && st.Mode().IsRegular() && st.Size() > security.MaxJudgedFile:
			return fmt.Sprintf("is larger than the %s the security scan reads of a file", safefile.Size(security.MaxJudgedFile))
		}
	}
	return ""
}

func (e *unjudgedError) Error() string {
	if e.gate == pipeline.GateSigned {
		what := "is not among the files its signature covers"
		if e.changed {
			what = "changed after its signature was verified"
		}
		return fmt.Sprintf("skill %s: %s %s, and mcp.require_signed is on, so it is not served: "+
			"restore the files its publisher signed (ccski update, or install it again); this server verifies it "+
			"again at its next rescan (within a second with the file watcher, else at the next refresh or a restart)",
			e.id, e.rel, what)
	}
	if e.gate == pipeline.GateTrust {
		what := "is not among the files you trusted"
		if e.changed {
			what = "changed after you trusted the skill"
		}
		return fmt.Sprintf("skill %s: %s %s, and mcp.require_trusted is on, so it is not served: "+
			"review the skill, then run ccski trust %s; this server serves it again after its next rescan "+
			"(mcp.refresh_interval) or a restart", e.id, e.rel, what, e.id)
	}
	if e.never != "" {
		return fmt.Sprintf("skill %s: %s %s, so the scan never checks it, and mcp.scan is block, so it is not served "+
			"(a rescan does not change that): move the file out of the skill folder (or, for a link, put the "+
			"folder itself in its place), or serve the skill under mcp.scan: warn", e.id, e.rel, e.never)
	}
	what := "is not among the files the security scan checked"
	if e.changed {
		what = "changed after the security scan checked it"
	}
	return fmt.Sprintf("skill %s: %s %s, and mcp.scan is block, so it is not served: "+
		"run ccski scan %s to check it now; this server serves it again once a rescan finds it clean "+
		"(within a second with the file watcher, else at the next refresh or a restart)", e.id, e.rel, what, e.dir)
}

// asUnjudged returns err's refusal, if it is one.
func asUnjudged(err error) (*unjudgedError, bool) {
	var u *unjudgedError
	ok := errors.As(err, &u)
	return u, ok
}
