package security

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ccski/ccski/internal/filestamp"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// The bounds of one skill's scan. The walk is the one of every skill's
// files (manifest.Walk): it stops at manifest.MaxFiles files or folders
// and notes the other manifest limits, and does not enter folders more
// than manifest.MaxDepth deep; the reads stop at maxText bytes of a text
// file and at maxTotal for the skill. The skill file is read first, up to
// maxTotal. Whatever a bound leaves unread is an incomplete-scan finding.
const (
	maxText   = manifest.MaxFileBytes
	headSize  = 8 << 10  // what tells a binary file from text
	smallFile = 64 << 10 // read whole at once; a larger file head first
)

// entry is one file of the skill folder the scan reads: a regular file,
// or a symlink inside it to a regular file.
type entry struct {
	manifest.Entry
	// direct is set for a skill file that is a symlink out of the
	// folder: it is read at Real, as the agents read it, not through the
	// folder.
	direct bool
}

// link is a symlink of the skill folder that leads outside it.
type link struct {
	rel, target string
}

// walked is what the walk of a skill folder found.
type walked struct {
	dir       string // as given
	skillFile string // the skill file's name in dir
	files     []entry
	links     []link
	limit     *manifest.LimitError
	err       error // the folder itself could not be read
	// incomplete says what the walk left out (a folder too deep or
	// unreadable), one line each, for incomplete-scan.
	incomplete []string
}

// listSkill lists a skill folder; tests replace it to make the listing
// fail, which file permissions cannot do for root.
var listSkill = manifest.Walk.List

// walkSkill lists the skill folder dir with the walk that decides what a
// skill's files are (manifest.Walk, see the manifest package): its files,
// the skill file first, whatever limit stops the walk, and the symlinks
// that lead out of it. l remembers folder listings between walks (nil
// reads every folder). It reads no file.
func walkSkill(dir, skillFile string, l *manifest.Listings) *walked {
	w := &walked{dir: dir, skillFile: skillFile}
	lst, err := listSkill(manifest.Walk{First: skillFile, Listings: l}, dir)
	if err != nil {
		w.err = err
		// The folder could not be listed, but its skill file may still be
		// read, as discovery and the agents read it: scan that file, and
		// say that nothing else was read, so that block refuses it.
		full := filepath.Join(dir, skillFile)
		if st, lerr := os.Lstat(full); lerr == nil && (st.Mode().IsRegular() || st.Mode()&fs.ModeSymlink != 0) {
			if w.direct(full, skillFile); len(w.files) > 0 {
				w.incomplete = append(w.incomplete, fmt.Sprintf("the skill folder could not be listed (%v): only %s was read", err, skillFile))
			}
		}
		return w
	}
	w.limit = lst.Limit
	for _, e := range lst.Entries {
		switch {
		case e.Kind == manifest.KindFile:
			w.files = append(w.files, entry{Entry: e})
		case e.Path == skillFile:
			w.direct(filepath.Join(dir, skillFile), skillFile)
		case e.Outside:
			w.links = append(w.links, link{rel: e.Path, target: e.Link})
		}
	}
	for _, o := range lst.Omitted {
		where := o.Path + "/"
		if o.Path == "" {
			where = "the skill folder"
		}
		why := fmt.Sprintf("could not be read (%v)", o.Err)
		if errors.Is(o.Err, manifest.ErrTooDeep) {
			why = fmt.Sprintf("is more than %d folders deep", manifest.MaxDepth)
		}
		w.incomplete = append(w.incomplete, where+" "+why+": its files were not read")
	}
	// The skill file first: it is read before any budget is spent.
	slices.SortStableFunc(w.files, func(a, b entry) int {
		switch {
		case a.Path == skillFile && b.Path != skillFile:
			return -1
		case b.Path == skillFile && a.Path != skillFile:
			return 1
		}
		return 0
	})
	return w
}

// direct lists the skill file, the symlink full that the walk records
// rather than follows, as what it leads to, wherever that is: discovery
// and the agents read it through the link (validate's symlinked-skill
// says so).
func (w *walked) direct(full, rel string) {
	target, err := filepath.EvalSymlinks(full)
	if err != nil {
		return
	}
	st, err := os.Stat(target)
	if err != nil || !st.Mode().IsRegular() {
		return
	}
	w.files = append(w.files, entry{Entry: manifest.Entry{Path: rel, Kind: manifest.KindFile, Real: target, Info: st},
		direct: true})
}

// class says which rules read a file.
type class uint8

const (
	classText     class = 1 << iota // not binary: the text rules read it
	classSkill                      // the skill file (SKILL.md)
	classMarkdown                   // rendered Markdown: .md, .markdown, .mdx
	classDoc                        // instructions the agent reads: Markdown, .txt, .rst, .adoc
	classScript                     // a script or source file: by extension or #! line
	classLegal                      // LICENSE, NOTICE, COPYING ... (see legal): only the Unicode and binary rules read it
)

// extension classes, lower case.
var (
	markdownExt = set(".md", ".markdown", ".mdx")
	docExt      = set(".txt", ".rst", ".adoc", ".text")
	scriptExt   = set(".sh", ".bash", ".zsh", ".fish", ".ksh", ".ps1", ".psm1", ".bat", ".cmd", ".py", ".js",
		".mjs", ".cjs", ".ts", ".mts", ".cts", ".rb", ".pl", ".pm", ".php", ".lua", ".go", ".rs", ".java", ".kt",
		".swift", ".r", ".jl", ".applescript", ".scpt", ".vbs", ".nu", ".awk")
	scriptNames = set("makefile", "dockerfile", "justfile", "rakefile", "gemfile")
	// binaryExt files are read only as far as their magic number.
	binaryExt = set(".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tif", ".tiff", ".pdf", ".zip",
		".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar", ".woff", ".woff2", ".ttf", ".otf", ".eot",
		".mp3", ".mp4", ".m4a", ".wav", ".ogg", ".flac", ".mov", ".avi", ".webm", ".sqlite", ".db", ".docx",
		".xlsx", ".pptx", ".odt", ".psd", ".pyc", ".class", ".parquet")
	// legalNames are the base names (without a text extension) of
	// licence-like files, matched whole: a name that only starts like one
	// (license-check.sh, HISTORY.md, changes.sh) is read by every rule.
	legalNames = set("license", "licence", "copying", "copying.lesser", "notice", "authors", "contributors",
		"third_party_notices", "thirdpartynotices", "third-party-notices", "unlicense", "license-mit",
		"license-apache", "license-apache-2.0")
	legalExt = set("", ".txt", ".md", ".markdown", ".rst")
)

// legal reports whether base (lower case) names a licence-like file.
func legal(base string) bool {
	ext := path.Ext(base)
	return legalNames[base] || legalExt[ext] && legalNames[strings.TrimSuffix(base, ext)]
}

// classify classes a file by its name; the content adds classText and
// classScript for a #! line.
func classify(rel, skillFile string) class {
	base := strings.ToLower(path.Base(rel))
	ext := path.Ext(base)
	var c class
	switch {
	case rel == skillFile:
		c = classSkill | classMarkdown | classDoc
	case markdownExt[ext]:
		c = classMarkdown | classDoc
	case docExt[ext]:
		c = classDoc
	case scriptExt[ext] || scriptNames[base]:
		c = classScript
	}
	if rel != skillFile && c&classScript == 0 && legal(base) {
		c = classLegal
	}
	return c
}

// file is one file of the skill being checked.
type file struct {
	rel   string
	class class
	mode  fs.FileMode
	// data is the file's first maxText bytes for a text file, its first
	// headSize bytes for a binary one.
	data []byte
	// cut is true when the file holds more than data.
	cut bool
	// digest is what Scanner.Digests records of the file (see
	// wholeDigest); "" when not hashed, or when no digest stands for
	// what the rules read.
	digest string
	// hashed counts the bytes digest stands for.
	hashed int64
	// hits are the anchors the matcher found, computed on first use.
	hits     []hit
	hitsDone bool
	// fences are the [start, end) ranges of fenced code blocks, for
	// Markdown, computed on first use.
	fences     [][2]int
	fencesDone bool
	// closing remembers, by tag name, whether the file holds </name>.
	closing map[string]bool
}

func (f *file) is(c class) bool { return f.class&c != 0 }

// readFile reads the file e of the skill into buf (reused), as much as
// the rules need: the head of a binary file, up to maxText bytes of a
// text file. budget is what the skill may still read; the bytes read are
// returned. cls is the file's class (classify). With hash, the file's
// digest is recorded too (see wholeDigest).
func readFile(root *os.Root, e entry, skillFile string, cls class, buf []byte, budget int64, hash bool) (*file, []byte, int64, error) {
	f := &file{rel: e.Path, class: cls, mode: e.Info.Mode()}
	var fh *os.File
	var st fs.FileInfo
	var err error
	if e.direct {
		fh, st, err = safefile.Open(e.Real)
	} else {
		fh, st, err = safefile.OpenIn(root, filepath.FromSlash(e.Path))
	}
	if err != nil {
		return nil, buf, 0, err
	}
	defer fh.Close()
	f.mode = st.Mode()
	size := st.Size()
	limit := int64(headSize)
	ext := strings.ToLower(path.Ext(e.Path))
	switch {
	case e.Path == skillFile:
		limit = max(budget, headSize) // the whole skill file, up to the skill's budget
	case !binaryExt[ext]:
		limit = min(int64(maxText), max(budget, headSize))
	}
	want := min(limit, size)
	// A small file is read in one go, as large as its stat says; a larger
	// one first as its head, and in full only when the head is text.
	first := want
	if size > smallFile {
		first = min(want, headSize)
	}
	data, err := readInto(buf[:0], fh, first)
	if err != nil {
		return nil, buf, 0, err
	}
	binary := binaryExt[ext] || bytes.IndexByte(data[:min(len(data), headSize)], 0) >= 0
	if !binary && int64(len(data)) == first && first < want {
		if data, err = readInto(data, fh, want); err != nil {
			return nil, buf, 0, err
		}
	}
	f.data = data
	f.cut = int64(len(data)) < st.Size()
	if !binary {
		f.class |= classText
		if bytes.HasPrefix(data, []byte("#!")) {
			f.class = f.class&^classLegal | classScript // a script is never skipped as licence-like
		}
	}
	if hash {
		if f.digest, f.hashed, err = wholeDigest(f, fh); err != nil {
			return nil, buf, 0, err
		}
	}
	return f, data, int64(len(data)), nil
}

// maxDigest is the largest file the scan records a digest of: the most
// of a skill file it reads.
const maxDigest = maxTotal

// wholeDigest returns the digest (manifest.Digest) of the file f, whose
// data were read from r, and the bytes it stands for: what a gated server
// serves of the file must have it (pipeline.Judgement). A file read whole
// is the bytes read: were it to grow after its stat, the digest is of
// what the rules read, and the grown file is not served. A text file cut
// at a read limit has none (the rules did not read its rest; the scan
// reports it incomplete). A binary file, whose head alone the rules read,
// has the digest of its whole content: the rest is read through the hash
// and not kept.
func wholeDigest(f *file, r io.Reader) (string, int64, error) {
	n := int64(len(f.data))
	switch {
	case !f.cut:
		return manifest.Digest(f.data), n, nil
	case f.is(classText):
		return "", 0, nil
	}
	h := sha256.New()
	h.Write(f.data)
	rest, err := io.Copy(h, io.LimitReader(r, maxDigest-n+1))
	if err != nil {
		return "", 0, err
	}
	if n+rest > maxDigest {
		return "", 0, nil
	}
	return manifest.FormatDigest(h.Sum(nil)), n + rest, nil
}

// readInto appends the file's bytes to buf until it holds limit bytes or
// the file ends.
func readInto(buf []byte, r io.Reader, limit int64) ([]byte, error) {
	if int64(cap(buf)) < limit {
		nb := make([]byte, len(buf), limit)
		copy(nb, buf)
		buf = nb
	}
	for int64(len(buf)) < limit {
		n, err := r.Read(buf[len(buf):limit])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// racy reports whether a file's time is too recent to trust for the
// cache: a same-size rewrite within the file system's clock tick would go
// unseen (see manifest).
func racy(mtime, now time.Time) bool { return now.Sub(mtime) < filestamp.Window }
