package git

import (
	"context"
	"io/fs"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/scan"
	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// skill is a SKILL.md of name saying body.
func skill(name, body string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n" + body + "\n"
}

// provider builds the provider for o with its cache in a temporary folder
// and a clock the test moves.
func provider(t *testing.T, clock *time.Time, o *Options) *Git {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	g := p.(*Git)
	g.cacheDir = filepath.Join(testfs.TempDir(t), "cache")
	g.now = func() time.Time { return *clock }
	return g
}

func plan(t *testing.T, g *Git) providers.Plan {
	t.Helper()
	p, err := g.Plan(context.Background(), providers.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// diag returns the plan's diagnostic of code, or fails the test.
func diag(t *testing.T, p providers.Plan, code string) pipeline.Diagnostic {
	t.Helper()
	for _, d := range p.Diagnostics {
		if d.Code == code {
			return d
		}
	}
	t.Fatalf("diagnostics %+v hold no %s", p.Diagnostics, code)
	return pipeline.Diagnostic{}
}

// read returns the file rel of the plan's only root.
func read(t *testing.T, p providers.Plan, rel string) string {
	t.Helper()
	if len(p.Roots) != 1 {
		t.Fatalf("roots = %+v, want one", p.Roots)
	}
	data, err := os.ReadFile(filepath.Join(p.Roots[0].Path, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("the served checkout: %v", err)
	}
	return string(data)
}

// TestPlanClonesAndFollowsTheRef: the first plan clones the repository
// and serves its commit whole (files besides SKILL.md included); a plan
// within the interval fetches nothing; past it, a new commit is checked
// out into a new folder while the old one is left as it was.
func TestPlanClonesAndFollowsTheRef(t *testing.T) {
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	first := repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v1"), "skills/pdf/references/api.md": "API v1",
		"README.md": "not served"})
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	g := provider(t, &clock, &Options{URL: URL(repo.URL), Path: "skills", Interval: time.Minute})
	p := plan(t, g)
	root := p.Roots[0]
	if root.Kind != pipeline.KindRemote || root.Provider != Name || root.Agent != Name || !strings.HasPrefix(root.Path, g.cacheDir) ||
		filepath.Base(root.Path) != "skills" {
		t.Errorf("root = %+v, want the skills folder of a checkout in the cache", root)
	}
	if got := read(t, p, "pdf/references/api.md"); got != "API v1" {
		t.Errorf("api.md = %q, want the commit's bytes", got)
	}
	if d := diag(t, p, CodeSynced); !strings.Contains(d.Message, first) || !strings.Contains(d.Message, "2026-11-28 09:00:00 UTC") {
		t.Errorf("%s says %q, want the commit %s and when it was fetched", CodeSynced, d.Message, first)
	}

	second := repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v2"), "skills/docx/SKILL.md": skill("docx", "new")})
	clock = clock.Add(30 * time.Second) // within the interval: not fetched
	if p2 := plan(t, g); p2.Roots[0].Path != root.Path || !strings.Contains(diag(t, p2, CodeSynced).Message, first) {
		t.Errorf("within the interval the plan moved to %s, want %s at %s", p2.Roots[0].Path, root.Path, first)
	}
	clock = clock.Add(time.Minute)
	p3 := plan(t, g)
	if p3.Roots[0].Path == root.Path || !strings.Contains(diag(t, p3, CodeSynced).Message, second) {
		t.Fatalf("past the interval: root %s, %+v; want a new checkout of %s", p3.Roots[0].Path, p3.Diagnostics, second)
	}
	if got := read(t, p3, "docx/SKILL.md"); got != skill("docx", "new") {
		t.Errorf("the new commit's docx = %q", got)
	}
	// The checkout served before is never written: a scan reading it
	// sees the first commit whole.
	if got, err := os.ReadFile(filepath.Join(root.Path, "pdf", "SKILL.md")); err != nil || string(got) != skill("pdf", "v1") {
		t.Errorf("the previous checkout's SKILL.md = %q, %v; want the first commit's bytes", got, err)
	}
	if _, err := os.Stat(filepath.Join(root.Path, "docx")); err == nil {
		t.Error("the previous checkout holds the new commit's docx: it was updated in place")
	}
	// One round later the previous checkout is gone, the one served stays.
	repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v3")})
	clock = clock.Add(2 * time.Minute)
	p4 := plan(t, g)
	if _, err := os.Stat(filepath.Dir(root.Path)); err == nil {
		t.Errorf("the checkout of %s is still there two commits later", first)
	}
	if got := read(t, p4, "pdf/SKILL.md"); got != skill("pdf", "v3") {
		t.Errorf("pdf = %q, want v3", got)
	}
}

// TestPlanMarksACommitMove: once a commit is served, a plan's manifests
// (what a watching server rescans on) hold the file served, not
// state.json, which every fetch rewrites; a fetch that finds the same
// commit leaves served as it was, one that checks out a new commit
// rewrites it, so that the server rescans when, and only when, the commit
// it serves moves, rather than at its next periodic rescan.
func TestPlanMarksACommitMove(t *testing.T) {
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	first := repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v1")})
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	g := provider(t, &clock, &Options{URL: URL(repo.URL), Path: "skills", Interval: time.Minute})
	p := plan(t, g)
	var served string
	for _, f := range p.Manifests {
		if filepath.Base(f) == "state.json" {
			t.Errorf("manifests %v hold state.json once a commit is served: every fetch would rescan", p.Manifests)
		}
		if filepath.Base(f) == servedFile {
			served = f
		}
	}
	if served == "" {
		t.Fatalf("manifests %v: no file a fetch that moves the commit rewrites", p.Manifests)
	}
	stamp := func() (string, os.FileInfo) {
		t.Helper()
		data, err := os.ReadFile(served)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(served)
		if err != nil {
			t.Fatal(err)
		}
		return string(data), fi
	}
	data, fi := stamp()
	if !strings.HasPrefix(data, first+" ") {
		t.Errorf("served = %q, want the commit %s", data, first)
	}
	// Past the interval, the same commit: fetched, served untouched.
	clock = clock.Add(2 * time.Minute)
	plan(t, g)
	if again, fi2 := stamp(); again != data || !os.SameFile(fi, fi2) || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("a fetch of the same commit rewrote served (%q): a watching server would rescan for nothing", again)
	}
	second := repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v2")})
	clock = clock.Add(2 * time.Minute)
	plan(t, g)
	if moved, fi3 := stamp(); !strings.HasPrefix(moved, second+" ") || os.SameFile(fi, fi3) {
		t.Errorf("served after the commit moved = %q, want %s written anew", moved, second)
	}
}

// TestPlanKeepsTheLastGoodCommit: a fetch that fails (the repository
// gone, then a ref that no longer exists) keeps serving the last good
// checkout, with a warning naming the error and the commit; the next try
// waits for the interval.
func TestPlanKeepsTheLastGoodCommit(t *testing.T) {
	base := testfs.TempDir(t)
	repo := gitfetchtest.New(t, base)
	good := repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "good")})
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	g := provider(t, &clock, &Options{URL: URL(repo.URL), Interval: time.Minute})
	served := plan(t, g).Roots[0].Path

	if err := os.Rename(repo.Bare, repo.Bare+".moved"); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Hour)
	p := plan(t, g)
	if len(p.Roots) != 1 || p.Roots[0].Path != served || read(t, p, "pdf/SKILL.md") != skill("pdf", "good") {
		t.Fatalf("roots = %+v, want the last good checkout %s", p.Roots, served)
	}
	d := diag(t, p, CodeFetchFailed)
	if d.Severity != pipeline.SeverityWarning || !strings.Contains(d.Message, "not found") || !strings.Contains(d.Message, good) ||
		!strings.Contains(d.Message, "fetched at 2026-11-28 09:00:00 UTC") {
		t.Errorf("%s = %+v, want a warning naming the error, the commit served and when", CodeFetchFailed, d)
	}
	if !strings.Contains(diag(t, p, CodeSynced).Message, good) {
		t.Errorf("the plan does not say it serves %s", good)
	}
	// Within the interval after the failure: no new try, the warning stays.
	if err := os.Rename(repo.Bare+".moved", repo.Bare); err != nil {
		t.Fatal(err)
	}
	repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "newer")})
	clock = clock.Add(30 * time.Second)
	p = plan(t, g)
	if p.Roots[0].Path != served {
		t.Error("a plan within the interval after a failure fetched again")
	}
	diag(t, p, CodeFetchFailed)
	// Past it: fetched, and the warning is gone.
	clock = clock.Add(time.Minute)
	p = plan(t, g)
	if read(t, p, "pdf/SKILL.md") != skill("pdf", "newer") {
		t.Error("the repository back: the new commit is not served")
	}
	for _, d := range p.Diagnostics {
		if d.Code == CodeFetchFailed {
			t.Errorf("the warning outlived the failure: %+v", d)
		}
	}
}

// TestPlanErrors: a ref or a path the repository does not have, and a
// repository that cannot be read, plan no root and say why clearly.
func TestPlanErrors(t *testing.T) {
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "x")})
	for _, tc := range []struct {
		name string
		o    Options
		want []string
	}{
		{"bad ref", Options{URL: URL(repo.URL), Ref: "nosuch"}, []string{`ref "nosuch" not found`, "give an existing branch, tag or full commit hash"}},
		{"bad path", Options{URL: URL(repo.URL), Path: "skills"}, []string{"has no folder skills", "providers.git.path"}},
		{"no repository", Options{URL: URL(repo.URL + ".none")}, []string{"not found: check the URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Now()
			p := plan(t, provider(t, &clock, &tc.o))
			d := diag(t, p, CodeFetchFailed)
			if len(p.Roots) != 0 || !strings.Contains(d.Message, "no skills from") {
				t.Errorf("plan = %+v, want no root and %s", p, CodeFetchFailed)
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Message, w) {
					t.Errorf("%s says %q, want %q in it", CodeFetchFailed, d.Message, w)
				}
			}
		})
	}
}

// TestPlanFollowsATagAndACommit: ref names a tag or a full commit hash.
func TestPlanFollowsATagAndACommit(t *testing.T) {
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	first := repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "v1")})
	repo.Tag("v1", first)
	repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "v2")})
	for _, ref := range []string{"v1", first} {
		clock := time.Now()
		p := plan(t, provider(t, &clock, &Options{URL: URL(repo.URL), Ref: ref}))
		if got := read(t, p, "pdf/SKILL.md"); got != skill("pdf", "v1") {
			t.Errorf("ref %s: pdf = %q, want v1", ref, got)
		}
	}
}

// TestPlanWithoutURL plans nothing and reads nothing.
func TestPlanWithoutURL(t *testing.T) {
	clock := time.Now()
	g := provider(t, &clock, defaultOptions())
	if p := plan(t, g); len(p.Roots)+len(p.Diagnostics)+len(p.Manifests) != 0 {
		t.Errorf("plan = %+v, want nothing", p)
	}
	if _, err := os.Stat(g.cacheDir); err == nil {
		t.Error("a provider without a URL made its cache folder")
	}
}

// TestNew checks the options New takes.
func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "default options", Options: defaultOptions()},
		{Name: "a repository", Options: &Options{URL: "https://git.example.com/skills.git", Ref: "main", Path: "skills/", Interval: time.Minute}},
		{Name: "scp-like", Options: &Options{URL: "git@git.example.com:org/skills.git"}},
		{Name: "ext transport", Options: &Options{URL: "ext::sh -c touch% /tmp/x"}, WantErr: []string{"providers.git.url", "not one ccski fetches"}},
		{Name: "a password", Options: &Options{URL: "https://u:pw@x/r.git"}, WantErr: []string{"password", "credential helper"}},
		{Name: "path leading out", Options: &Options{URL: "https://x/r.git", Path: "../x"}, WantErr: []string{"providers.git.path", "inside the repository"}},
		{Name: "absolute path", Options: &Options{URL: "https://x/r.git", Path: "/etc"}, WantErr: []string{"providers.git.path"}},
		{Name: "an option as ref", Options: &Options{URL: "https://x/r.git", Ref: "--upload-pack=x"}, WantErr: []string{"providers.git.ref"}},
		{Name: "a refspec as ref", Options: &Options{URL: "https://x/r.git", Ref: "a:refs/heads/b"}, WantErr: []string{"providers.git.ref"}},
		{Name: "negative interval", Options: &Options{URL: "https://x/r.git", Interval: -time.Second}, WantErr: []string{"providers.git.interval"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.git", "*git.Options"}},
	})
	for _, v := range []string{"", "skills", "a/b"} {
		if err := SubPath("").Check(v); err != nil {
			t.Errorf("SubPath.Check(%q) = %v", v, err)
		}
	}
	if err := URL("").Check(""); err != nil {
		t.Errorf(`URL.Check("") = %v, want nil: no repository`, err)
	}
}

// TestPlanStampsTheCommitTime: every file and folder of a checkout bears
// the commit's time, not the time this machine wrote it, so that two
// replicas checking out one commit rank copies of a name alike (the
// newer SKILL.md wins a tie).
func TestPlanStampsTheCommitTime(t *testing.T) {
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	commit := repo.Commit(map[string]string{"a/pdf/SKILL.md": skill("pdf", "A"), "b/pdf/SKILL.md": skill("pdf", "B"),
		"b/pdf/references/x.md": "x", "b/pdf/link.md": "-> ../../a/pdf/SKILL.md"})
	sec, err := strconv.ParseInt(repo.Git(repo.Bare, "show", "-s", "--format=%ct", commit), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	want := time.Unix(sec, 0)
	var trees []map[string]time.Time
	for range 2 { // two replicas, each its own cache
		clock := time.Now()
		root := plan(t, provider(t, &clock, &Options{URL: URL(repo.URL)})).Roots[0].Path
		times := map[string]time.Time{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Type()&fs.ModeSymlink != 0 {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			times[rel] = fi.ModTime()
			if !fi.ModTime().Equal(want) {
				t.Errorf("%s: time %v, want the commit's %v", rel, fi.ModTime(), want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, times)
	}
	if len(trees[0]) < 6 || !maps.EqualFunc(trees[0], trees[1], time.Time.Equal) {
		t.Errorf("two checkouts of one commit differ: %v and %v", trees[0], trees[1])
	}
}

// scanned returns the real paths of the SKILL.md files a scan of the
// plan's roots reads, as discovery scans them.
func scanned(t *testing.T, p providers.Plan) []string {
	t.Helper()
	var out []string
	for _, r := range scan.Scan(context.Background(), p.Roots, scan.DefaultOptions()).Records {
		real, err := filepath.EvalSymlinks(r.File)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, real)
	}
	return out
}

// TestPlanStaysInTheCheckout: a commit's symlink that leads out of the
// repository (skills/up -> a folder elsewhere on the machine) serves
// nothing from there: the link is not checked out, and a root is bounded
// to its checkout (pipeline.Root.Within), so a link in a checkout that
// holds one anyway (an older ccski's) is not followed either. A path
// that is itself such a link plans no root and says why.
func TestPlanStaysInTheCheckout(t *testing.T) {
	base := testfs.TempDir(t)
	outside := filepath.Join(base, "outside")
	testfs.Write(t, outside, map[string]string{"secret/SKILL.md": skill("secret-outside", "TOP SECRET")})
	repo := gitfetchtest.New(t, base)
	repo.Commit(map[string]string{"skills/pdf/SKILL.md": skill("pdf", "v1"), "skills/up": "-> " + outside,
		"skills/rel": "-> ../../outside", "skills2": "-> " + outside, "skills/in": "-> pdf"})

	clock := time.Now()
	g := provider(t, &clock, &Options{URL: URL(repo.URL), Path: "skills"})
	p := plan(t, g)
	if len(p.Roots) != 1 || p.Roots[0].Within == "" {
		t.Fatalf("roots = %+v, want one bounded to its checkout", p.Roots)
	}
	cache, err := filepath.EvalSymlinks(g.cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	files := scanned(t, p)
	for _, f := range files {
		if !strings.HasPrefix(f, cache+string(filepath.Separator)) {
			t.Errorf("discovery reads %s, outside the cache %s", f, cache)
		}
	}
	if len(files) != 1 {
		t.Errorf("discovery reads %v, want pdf's SKILL.md only (in -> pdf is the same folder)", files)
	}
	root := p.Roots[0].Path
	for _, link := range []string{"up", "rel"} {
		if _, err := os.Lstat(filepath.Join(root, link)); err == nil {
			t.Errorf("the checkout holds skills/%s, a link leading out of it", link)
		}
	}
	if target, err := os.Readlink(filepath.Join(root, "in")); err != nil || target != "pdf" {
		t.Errorf("skills/in = %q, %v; want the link inside the repository kept", target, err)
	}

	// A checkout holding a link out anyway: the bound keeps the scan in.
	if err := os.Symlink(outside, filepath.Join(root, "old")); err != nil {
		t.Fatal(err)
	}
	for _, f := range scanned(t, plan(t, g)) {
		if strings.Contains(f, "secret") {
			t.Errorf("discovery reads %s through a link of the checkout", f)
		}
	}
	// The path itself a link out: no root.
	if err := os.Rename(root, root+".real"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, root); err != nil {
		t.Fatal(err)
	}
	p = plan(t, g)
	if d := diag(t, p, CodeFetchFailed); len(p.Roots) != 0 || !strings.Contains(d.Message, "providers.git.path skills") ||
		!strings.Contains(d.Message, "leads outside the repository") {
		t.Errorf("plan = %+v, want no root and a warning that the path leads outside", p)
	}

	// A path that is a link in the commit: never checked out, said so.
	g2 := provider(t, &clock, &Options{URL: URL(repo.URL), Path: "skills2"})
	p = plan(t, g2)
	if d := diag(t, p, CodeFetchFailed); len(p.Roots) != 0 || !strings.Contains(d.Message, "no folder skills2") {
		t.Errorf("plan = %+v, want no root and a warning naming skills2", p)
	}
}

// hangingServer listens on 127.0.0.1 and accepts connections it never
// answers: a git server that does not answer. It returns a git:// URL of
// it, the count of connections accepted, and cut, which closes the
// listener and the connections (also when the test ends).
func hangingServer(t *testing.T) (url string, accepted *atomic.Int32, cut func()) {
	t.Helper()
	var ln net.Listener
	var err error
	for port := 18410; port < 18430; port++ {
		if ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int32
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			n.Add(1)
		}
	}()
	cut = func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
	t.Cleanup(cut)
	return "git://" + ln.Addr().String() + "/skills.git", &n, cut
}

// planBackground plans for a server (providers.Env.Background); it fails
// the test when the plan does not return while the fetch hangs.
func planBackground(t *testing.T, g *Git) providers.Plan {
	t.Helper()
	done := make(chan providers.Plan, 1)
	go func() {
		p, err := g.Plan(context.Background(), providers.Env{Getenv: func(string) string { return "" }, Background: true})
		if err != nil {
			t.Error(err)
		}
		done <- p
	}()
	select {
	case p := <-done:
		return p
	case <-time.After(time.Minute): // a safety net far above firstWait, below git's own timeout
		t.Fatal("a server's plan waits for a git server that does not answer")
		return providers.Plan{}
	}
}

// TestPlanFetchesInTheBackground: a server's plans never wait for a git
// server that does not answer (the first waits firstWait at most) and
// say the source is not ready while nothing was checked out; a failure
// with no checkout is recorded, so that the plans within the back-off do
// not try again.
func TestPlanFetchesInTheBackground(t *testing.T) {
	url, accepted, cut := hangingServer(t)
	clock := time.Now()
	g := provider(t, &clock, &Options{URL: URL(url), Interval: time.Hour})
	g.firstWait = 10 * time.Millisecond
	t.Cleanup(g.wait)
	for i := range 3 {
		p := planBackground(t, g)
		if d := diag(t, p, pipeline.CodeSourceNotReady); len(p.Roots) != 0 || !strings.Contains(d.Message, "first fetch is still running") {
			t.Errorf("plan %d = %+v, want no root and the source not ready", i, p)
		}
		if !slices.ContainsFunc(p.Manifests, func(f string) bool { return filepath.Base(f) == "state.json" }) {
			t.Errorf("plan %d manifests = %v, want state.json: a watching server rescans when the fetch ends", i, p.Manifests)
		}
	}
	for accepted.Load() == 0 { // git connects a moment after the first plan
		time.Sleep(10 * time.Millisecond)
	}
	cut()
	g.wait()
	tried := accepted.Load()
	clock = clock.Add(30 * time.Minute) // within the back-off (the interval)
	for range 2 {
		p := planBackground(t, g)
		g.wait()
		d := diag(t, p, CodeFetchFailed)
		diag(t, p, pipeline.CodeSourceNotReady)
		if len(p.Roots) != 0 || !strings.Contains(d.Message, "no skills from "+url) || !strings.Contains(d.Message, "no commit was ever checked out") {
			t.Errorf("plan after the failure = %+v, want no root and the failure", p)
		}
	}
	if n := accepted.Load(); n != tried {
		t.Errorf("the git server was tried %d times, then %d: a failure with no checkout is not backed off", tried, n)
	}
}

// TestPlanKeepsACheckoutInUse: a checkout another provider (another
// process: a server that does not rescan) planned last is not removed by
// this one's fetches, however many; once that provider plans a newer one,
// the next fetch removes it.
func TestPlanKeepsACheckoutInUse(t *testing.T) {
	if !safefile.CanLock {
		t.Skip("files cannot be locked here: a checkout in use is not told apart")
	}
	repo := gitfetchtest.New(t, testfs.TempDir(t))
	repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "A")})
	clock := time.Now()
	server := provider(t, &clock, &Options{URL: URL(repo.URL), Interval: time.Minute})
	cli := provider(t, &clock, &Options{URL: URL(repo.URL), Interval: time.Minute})
	cli.cacheDir = server.cacheDir
	t.Cleanup(func() {
		for _, g := range []*Git{server, cli} {
			if g.release != nil {
				g.release()
			}
		}
	})
	a := plan(t, server).Roots[0].Path // the whole repository: the checkout itself
	for _, body := range []string{"B", "C", "D"} {
		repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", body)})
		clock = clock.Add(2 * time.Minute)
		if got := read(t, plan(t, cli), "pdf/SKILL.md"); got != skill("pdf", body) {
			t.Fatalf("pdf = %q, want %s", got, body)
		}
		if got, err := os.ReadFile(filepath.Join(a, "pdf", "SKILL.md")); err != nil || string(got) != skill("pdf", "A") {
			t.Fatalf("after commit %s the checkout the server serves reads %q, %v; want it kept", body, got, err)
		}
	}
	if b := plan(t, server).Roots[0].Path; b == a { // the server rescans: it moves to the newest
		t.Fatalf("the server still serves %s", a)
	}
	repo.Commit(map[string]string{"pdf/SKILL.md": skill("pdf", "E")})
	clock = clock.Add(2 * time.Minute)
	plan(t, cli)
	if _, err := os.Stat(a); err == nil {
		t.Errorf("the checkout %s is still there once no one serves it", a)
	}
	if _, err := os.Stat(a + inUse); err == nil {
		t.Errorf("its %s file is still there", inUse)
	}
}
