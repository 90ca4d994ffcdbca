package install

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/httpfetch"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/skillindex"
	"github.com/ccski/ccski/pipeline"
)

// This file materialises the HTTP sources: a well-known skills index
// (the Agent Skills Discovery RFC: v0.2.0's index lists each skill's
// artifact, a SKILL.md or an archive, with its sha256: digest; v0.1.0's
// lists each skill's files, without digests) and an archive URL. An
// index is offered from itself (each skill's name and description in
// root/<name>/SKILL.md), and only the artifacts of the skills installed
// are downloaded (fetchEntry, through widen), within a total per index
// (indexTotalFactor). Every artifact is downloaded whole and checked
// against its digest (the index's, and for a restore the lock's) before
// anything of it is written, then written or unpacked into a temporary
// folder that the rest of install reads as it reads a local folder:
// root/<name>/ for each skill of an index, the archive's contents for an
// archive.

// fetched is what materialising an HTTP source learnt besides its files.
type fetched struct {
	// digests are the artifact digests by the skill folder's path in the
	// root ("." for an archive's root): what the lock records as Commit.
	digests map[string]string
	// warnings are entries skipped: an unknown type, an artifact that
	// failed (failed holds why, by skill name).
	warnings []string
	failed   map[string]error
	// tmp is the folder to remove on Close.
	tmp string
	// index is, for an index source, what fetchEntry downloads a skill
	// that is installed from.
	index *indexFetch
}

// commitOf is the digest the lock records for the skill at rel: its
// index entry's, or the archive's.
func (f *fetched) commitOf(rel string) string {
	if f == nil {
		return ""
	}
	if d, ok := f.digests[rel]; ok {
		return d
	}
	first, _, _ := strings.Cut(rel, "/")
	if d, ok := f.digests[first]; ok {
		return d
	}
	return f.digests["."]
}

// materializeHTTP downloads src into a new temporary folder. want, for
// an archive, is the digest it must have (the lock's), checked before it
// is unpacked.
func (in *Installer) materializeHTTP(src Source, want string) (root string, f *fetched, err error) {
	if in.HTTP == nil {
		return "", nil, errors.New("HTTP sources need an HTTP client")
	}
	tmp, err := os.MkdirTemp(in.HTTP.TempDir, "ccski-http-")
	if err != nil {
		return "", nil, fmt.Errorf("a temporary folder for %s: %w", src.URL, err)
	}
	f = &fetched{digests: map[string]string{}, failed: map[string]error{}, tmp: tmp}
	root = filepath.Join(tmp, "src")
	switch src.Kind {
	case KindArchive:
		err = in.fetchArchive(src.URL, want, root, f)
	default:
		err = in.fetchIndex(src.URL, root, f)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, err
	}
	return root, f, nil
}

// fetchArchive downloads the archive u, checks it against want (when
// set) and unpacks it into root.
func (in *Installer) fetchArchive(u, want, root string, f *fetched) error {
	p := report.NewProgress(in.HTTP.Progress, "downloading", 1)
	defer p.Done()
	d, err := in.HTTP.get(in.Ctx, u, p)
	if err != nil {
		return err
	}
	got := d.digest()
	if want != "" && got != want {
		return fmt.Errorf("archive %s has digest %s, not the %s ccski.lock records: its bytes changed since it was "+
			"installed; nothing of it was written (run `ccski update` to take the new archive if you trust it)", u, got, want)
	}
	f.digests["."] = got
	return unpack(d.data, u, root, in.HTTP.Limits)
}

// fetchIndex finds the well-known index of site (v0.2.0 first, then
// v0.1.0) or reads the index.json it names, and offers its skills from
// the index itself: root/<name>/SKILL.md holds, until the skill is
// installed, the name and description its entry lists (what Discover
// offers). Nothing else is downloaded here: fetchEntry downloads the
// artifact of a skill that is installed, checked against its digest
// before anything of it is written, in its stead.
func (in *Installer) fetchIndex(site, root string, f *fetched) error {
	var candidates []string
	if hasSuffix(strings.ToLower(site), wellKnownIndexes) {
		candidates = []string{site}
	} else {
		for _, p := range wellKnownIndexes {
			candidates = append(candidates, strings.TrimSuffix(site, "/")+p)
		}
	}
	var d download
	var err error
	for _, c := range candidates {
		if d, err = in.HTTP.get(in.Ctx, c, nil); !errors.Is(err, errNotFound) {
			break
		}
	}
	if errors.Is(err, errNotFound) && len(candidates) > 1 {
		return fmt.Errorf("%s publishes no skills index (neither %s nor %s is there): give the URL of an "+
			"index.json, an archive or a git repository", site, wellKnownIndexes[0], wellKnownIndexes[1])
	}
	if err != nil {
		return err
	}
	if len(d.data) > skillindex.MaxIndexBytes {
		return fmt.Errorf("index %s has more than %d bytes", d.url, skillindex.MaxIndexBytes)
	}
	var doc skillindex.Doc
	if err := json.NewDecoder(bytes.NewReader(d.data)).Decode(&doc); err != nil {
		return fmt.Errorf("index %s is not a valid skills index (%v)", d.url, err)
	}
	base, err := url.Parse(d.url)
	if err != nil {
		return err
	}
	v1 := doc.Schema == ""
	if !v1 && doc.Schema != skillindex.SchemaV2 {
		return fmt.Errorf("index %s has $schema %q, a version of the Agent Skills Discovery RFC this ccski does not "+
			"read (it reads 0.2.0, and 0.1.0 without $schema): upgrade ccski", d.url, doc.Schema)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		return err
	}
	f.index = &indexFetch{url: d.url, base: base, v1: v1, root: root, entries: map[string]skillindex.Entry{},
		done: map[string]error{}}
	var first error
	for _, e := range doc.Skills {
		if !skillindex.ValidName(e.Name) {
			return fmt.Errorf("index %s lists a skill named %q, which is no valid skill name (lowercase letters, "+
				"digits and single hyphens, at most 64)", d.url, e.Name)
		}
		if _, dup := f.index.entries[e.Name]; dup {
			return fmt.Errorf("index %s lists skill %s twice", d.url, e.Name)
		}
		f.index.entries[e.Name] = e
		skip, err := f.index.check(e)
		switch {
		case skip != "":
			f.warnings = append(f.warnings, skip)
			continue
		case err != nil:
			// That skill is left out; the others are offered.
			f.failed[e.Name] = err
			f.warnings = append(f.warnings, "left out: "+err.Error())
			first = cmp.Or(first, err)
			continue
		}
		if !v1 {
			f.digests[e.Name] = e.Digest
		}
		if err := writeOffer(filepath.Join(root, e.Name), e); err != nil {
			return err
		}
	}
	if len(f.failed) == len(doc.Skills) && first != nil {
		return first // nothing to offer: say why
	}
	return nil
}

// indexFetch is what a materialised index holds until its skills are
// installed: its entries, and the bytes its artifacts brought so far.
type indexFetch struct {
	url  string
	base *url.URL
	v1   bool
	root string
	// entries are the index's entries by name; done holds the names
	// fetchEntry fetched, with why it failed.
	entries map[string]skillindex.Entry
	done    map[string]error
	// downloaded and unpacked count the bytes of the artifacts fetched,
	// against indexTotal.
	downloaded, unpacked int64
}

// indexTotalFactor bounds what the artifacts of one index bring in one
// run: at most that many times install.max_download downloaded, and
// install.max_unpacked written, in total. Each artifact is bounded by the
// limits themselves.
const indexTotalFactor = 16

// check returns why entry e is skipped (a type ccski does not install)
// or refused (a malformed digest or URL), before anything is downloaded.
func (ix *indexFetch) check(e skillindex.Entry) (skip string, err error) {
	if ix.v1 {
		if len(e.Files) == 0 || !slices.Contains(e.Files, pipeline.SkillFile) {
			return "", fmt.Errorf("index entry %s lists no SKILL.md among its files", e.Name)
		}
		return "", nil
	}
	if e.Type != skillindex.TypeSkillMD && e.Type != skillindex.TypeArchive {
		return fmt.Sprintf("skipped skill %s of the index: its type %q is none ccski installs (skill-md, archive)",
			e.Name, e.Type), nil
	}
	if !manifest.DigestForm.MatchString(e.Digest) {
		return "", fmt.Errorf("index entry %s has digest %q, not sha256: and 64 lowercase hex digits: ccski installs "+
			"nothing it cannot check", e.Name, e.Digest)
	}
	if _, err := resolve(ix.base, e.URL); err != nil {
		return "", fmt.Errorf("index entry %s: url %q: %w", e.Name, e.URL, err)
	}
	return "", nil
}

// writeOffer writes dir/SKILL.md with the name and description entry e
// lists: what is offered of the skill until fetchEntry replaces it with
// the skill's own files. JSON strings are YAML.
func writeOffer(dir string, e skillindex.Entry) error {
	name, _ := json.Marshal(e.Name)
	desc, _ := json.Marshal(e.Description)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, pipeline.SkillFile), fmt.Appendf(nil, "---\nname: %s\ndescription: %s\n---\n",
		name, desc), 0o644)
}

// fetchEntry replaces the offer of the index skill whose folder holds dir
// with the skill's files, once: its artifact downloaded and checked
// against the index's digest (v0.2.0), or the files its entry lists
// (v0.1.0, checked against the lock's digests by the caller). A skill
// that fails is left without a folder.
func (in *Installer) fetchEntry(ix *indexFetch, dir string) error {
	rel, err := filepath.Rel(ix.root, dir)
	if err != nil {
		return err
	}
	name, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if err, ok := ix.done[name]; ok {
		return err
	}
	e, ok := ix.entries[name]
	if !ok {
		return fmt.Errorf("%s is no skill of index %s", dir, ix.url)
	}
	folder := filepath.Join(ix.root, name)
	p := report.NewProgress(in.HTTP.Progress, "downloading", 1)
	err = os.RemoveAll(folder)
	if err == nil {
		if ix.v1 {
			err = in.fetchV1(ix, e, folder)
		} else {
			err = in.fetchV2(ix, e, folder)
		}
		p.Step(e.Name)
	}
	p.Done()
	if err != nil {
		if rerr := os.RemoveAll(folder); rerr != nil {
			return rerr
		}
	}
	ix.done[name] = err
	return err
}

// failure is why the skill at rel of the index was left out, or nil.
func (f *fetched) failure(rel string) error {
	if f == nil {
		return nil
	}
	name, _, _ := strings.Cut(rel, "/")
	return f.failed[name]
}

// resolve resolves ref against the index URL base, as RFC 3986 says.
func resolve(base *url.URL, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	u := base.ResolveReference(r).String()
	return u, httpfetch.CheckURL(u)
}

// take counts a downloaded artifact of n bytes against the index's
// total, refusing it past indexTotalFactor times install.max_download.
func (ix *indexFetch) take(name string, n int64, lim Limits) error {
	total := indexTotalFactor * lim.MaxDownload
	if ix.downloaded+n > total {
		return fmt.Errorf("skill %s: its artifact takes what index %s brings in this run past %d bytes in total "+
			"(%d times install.max_download): refused, nothing of it was written; install fewer skills at a time",
			name, ix.url, total, indexTotalFactor)
	}
	ix.downloaded += n
	return nil
}

// unpackLimits are the limits of the next artifact of the index: its
// unpacked bytes bounded by what is left of the index's total too.
func (ix *indexFetch) unpackLimits(lim Limits) Limits {
	lim = lim.withDefaults()
	lim.MaxUnpacked = min(lim.MaxUnpacked, indexTotalFactor*lim.MaxUnpacked-ix.unpacked)
	return lim
}

// fetchV2 fetches the artifact of a v0.2.0 entry, checks its digest, and
// writes it into dir: a SKILL.md, or an archive with SKILL.md at its
// root, unpacked.
func (in *Installer) fetchV2(ix *indexFetch, e skillindex.Entry, dir string) error {
	u, err := resolve(ix.base, e.URL)
	if err != nil {
		return fmt.Errorf("index entry %s: url %q: %w", e.Name, e.URL, err)
	}
	d, err := in.HTTP.get(in.Ctx, u, nil)
	if err != nil {
		return fmt.Errorf("skill %s: %w", e.Name, err)
	}
	if got := d.digest(); got != e.Digest {
		return fmt.Errorf("skill %s: %s has digest %s, not the %s its index lists: refused, nothing of it was "+
			"written (the artifact or the index changed, or was tampered with)", e.Name, u, got, e.Digest)
	}
	lim := in.HTTP.Limits.withDefaults()
	if err := ix.take(e.Name, int64(len(d.data)), lim); err != nil {
		return err
	}
	if e.Type == skillindex.TypeArchive {
		up, err := unpackCounted(d.data, u, dir, ix.unpackLimits(lim))
		ix.unpacked += up
		if err != nil {
			return err
		}
		if st, err := os.Lstat(filepath.Join(dir, pipeline.SkillFile)); err != nil || !st.Mode().IsRegular() {
			return fmt.Errorf("skill %s: archive %s holds no SKILL.md at its root, where the Agent Skills Discovery "+
				"RFC puts it", e.Name, u)
		}
		return nil
	}
	up := &unpacker{name: "index entry " + e.Name, dest: dir, lim: ix.unpackLimits(lim)}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	err = up.write(pipeline.SkillFile, filepath.Join(dir, pipeline.SkillFile), 0o644, bytes.NewReader(d.data))
	ix.unpacked += up.bytes
	return err
}

// fetchV1 fetches the files a v0.1.0 entry lists from
// /.well-known/skills/<name>/ into dir. They have no digests in the index:
// the lock's record of each file's digest is what a restore checks.
func (in *Installer) fetchV1(ix *indexFetch, e skillindex.Entry, dir string) error {
	lim := in.HTTP.Limits.withDefaults()
	if len(e.Files) > lim.MaxFiles {
		return fmt.Errorf("index entry %s lists %d files, over the limit of %d (install.max_files)", e.Name, len(e.Files), lim.MaxFiles)
	}
	up := &unpacker{name: "index entry " + e.Name, dest: dir, lim: ix.unpackLimits(lim)}
	defer func() { ix.unpacked += up.bytes }()
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	for _, file := range e.Files {
		dst, err := up.target(file)
		if err != nil {
			return err
		}
		if dst == "" || strings.HasSuffix(file, "/") {
			return up.refuse(file, "is no file path")
		}
		u, err := resolve(ix.base, e.Name+"/"+manifest.EscapePath(file))
		if err != nil {
			return fmt.Errorf("index entry %s: file %q: %w", e.Name, file, err)
		}
		d, err := in.HTTP.get(in.Ctx, u, nil)
		if err != nil {
			return fmt.Errorf("skill %s: %w", e.Name, err)
		}
		if err := ix.take(e.Name, int64(len(d.data)), lim); err != nil {
			return err
		}
		if err := up.write(file, dst, 0o644, bytes.NewReader(d.data)); err != nil {
			return err
		}
	}
	return nil
}
