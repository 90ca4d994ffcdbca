package remote

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// upstreamFiles are the files of the upstream's one skill, up/pdf.
func upstreamFiles() map[string]map[string]string {
	return map[string]map[string]string{"up/pdf": {
		"SKILL.md":          "---\nname: pdf\ndescription: Read PDFs.\n---\nUse it.\n",
		"references/api.md": "API\n",
	}}
}

// provider builds the provider for servers with its cache in a temporary
// folder and a clock the test moves.
func provider(t *testing.T, clock *time.Time, servers ...string) *Remote {
	t.Helper()
	o := defaultOptions()
	for _, s := range servers {
		o.Servers = append(o.Servers, Server(s))
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r := p.(*Remote)
	r.cacheDir = t.TempDir()
	r.now = func() time.Time { return *clock }
	return r
}

func plan(t *testing.T, r *Remote) providers.Plan {
	t.Helper()
	p, err := r.Plan(context.Background(), providers.Env{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// codes lists the diagnostics' codes.
func codes(p providers.Plan) []string {
	var out []string
	for _, d := range p.Diagnostics {
		out = append(out, d.Code)
	}
	return out
}

func TestPlanServesACheckedCopyUntilItsTTL(t *testing.T) {
	up := skillsexttest.Start(t, upstreamFiles())
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	r := provider(t, &clock, up.URL())
	p := plan(t, r)
	if len(p.Roots) != 1 || len(p.Roots[0].Skills) != 1 {
		t.Fatalf("roots = %+v, want one root of one skill", p.Roots)
	}
	root := p.Roots[0]
	if root.Kind != pipeline.KindRemote || root.Provider != Name || !strings.HasPrefix(root.Path, r.cacheDir) {
		t.Errorf("root = %+v, want a remote root in the cache", root)
	}
	for rel, want := range upstreamFiles()["up/pdf"] {
		got, err := os.ReadFile(filepath.Join(root.Path, root.Skills[0], rel))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want the upstream's bytes %q", rel, got, err, want)
		}
	}
	if c := codes(p); len(c) != 1 || c[0] != CodeFetched {
		t.Errorf("diagnostics %v, want %s", c, CodeFetched)
	}

	clock = clock.Add(59 * time.Second) // within ttlMs: no fetch
	if p2 := plan(t, r); up.Lists != 1 || p2.Roots[0].Path != root.Path {
		t.Errorf("within the TTL: %d listings, root %s; want 1 and the same copy", up.Lists, p2.Roots[0].Path)
	}
	clock = clock.Add(2 * time.Second) // past it: fetched again
	up.Set("up/pdf", "references/api.md", "API v2\n")
	p3 := plan(t, r)
	if up.Lists != 2 {
		t.Fatalf("past the TTL: %d listings, want 2", up.Lists)
	}
	if got, _ := os.ReadFile(filepath.Join(p3.Roots[0].Path, p3.Roots[0].Skills[0], "references", "api.md")); string(got) != "API v2\n" {
		t.Errorf("after the refresh api.md = %q, want the new bytes", got)
	}
}

func TestPlanKeepsTheLastGoodCopy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(u *skillsexttest.Server)
		why    string
	}{
		{"down", func(u *skillsexttest.Server) { u.Close() }, "could not be read"},
		{"a changed byte", func(u *skillsexttest.Server) { u.Listed["skill://up/pdf/SKILL.md"] = "---\nname: pdf\n---\n" }, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := skillsexttest.Start(t, upstreamFiles())
			clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
			r := provider(t, &clock, up.URL())
			good := plan(t, r).Roots[0]
			tc.break_(up)
			clock = clock.Add(time.Hour)
			p := plan(t, r)
			if len(p.Roots) != 1 || p.Roots[0].Path != good.Path {
				t.Fatalf("roots = %+v, want the last good copy %s", p.Roots, good.Path)
			}
			if got, _ := os.ReadFile(filepath.Join(good.Path, good.Skills[0], "SKILL.md")); string(got) != upstreamFiles()["up/pdf"]["SKILL.md"] {
				t.Errorf("the last good copy changed: %q", got)
			}
			if len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != CodeUnreachable ||
				!strings.Contains(p.Diagnostics[0].Message, "fetched at 2026-11-28 09:00:00 UTC") ||
				!strings.Contains(p.Diagnostics[0].Message, tc.why) {
				t.Errorf("diagnostics = %+v, want %s saying %q and when the copy was fetched", p.Diagnostics, CodeUnreachable, tc.why)
			}
			// The next plan within the retry delay does not ask again,
			// and still says so.
			lists := up.Lists
			clock = clock.Add(retryAfter / 2)
			p = plan(t, r)
			if up.Lists != lists || len(p.Roots) != 1 || len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != CodeUnreachable {
				t.Errorf("a plan right after a failure asked the server again (%d listings, %d before) or lost the warning: %+v",
					up.Lists, lists, p)
			}
		})
	}
}

func TestPlanWithoutAnyCopy(t *testing.T) {
	up := skillsexttest.Start(t, upstreamFiles())
	up.Close()
	clock := time.Now()
	r := provider(t, &clock, up.URL())
	p := plan(t, r)
	if len(p.Roots) != 0 || len(p.Diagnostics) != 1 || p.Diagnostics[0].Code != CodeUnreachable {
		t.Errorf("plan = %+v, want no root and a warning", p)
	}
}

// TestNew checks the options New takes: configs has checked each server
// (Server.Check), and one a configuration built by hand gives unchecked
// is refused with the same error.
func TestNew(t *testing.T) {
	providertest.CheckNew(t, New, Name, []providertest.NewCase{
		{Name: "nil options"},
		{Name: "default options", Options: defaultOptions()},
		{Name: "servers", Options: &Options{Servers: []Server{"https://skills.example/mcp", "http://127.0.0.1:3801/mcp"}}},
		{Name: "not http", Options: &Options{Servers: []Server{"ftp://x/mcp"}}, WantErr: []string{"providers.remote.servers", "http://"}},
		{Name: "a password", Options: &Options{Servers: []Server{"https://u:pw@x/mcp"}}, WantErr: []string{"password"}},
		{Name: "options of another provider", Options: &struct{}{}, WantErr: []string{"providers.remote", "*remote.Options"}},
	})
	if err := Server("").Check("x"); err == nil {
		t.Error(`Server.Check("x") = nil, want an error`)
	}
}

// TestPlanCapsTheTTL: an upstream's ttlMs cannot pin its copy for longer
// than maxTTL; past it the server is read again.
func TestPlanCapsTheTTL(t *testing.T) {
	up := skillsexttest.Start(t, upstreamFiles())
	up.TTLMs = 10 * 365 * 24 * 3600 * 1000 // ten years
	clock := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	r := provider(t, &clock, up.URL())
	p := plan(t, r)
	if len(p.Diagnostics) != 1 || !strings.Contains(p.Diagnostics[0].Message, "fresh for "+maxTTL.String()) {
		t.Errorf("diagnostics %+v, want the copy fresh for %v", p.Diagnostics, maxTTL)
	}
	clock = clock.Add(maxTTL + time.Second)
	plan(t, r)
	if up.Lists != 2 {
		t.Errorf("%d listings once maxTTL passed, want 2: the server's ttlMs pinned its copy", up.Lists)
	}
}

// TestReadStateRefusesPathsLeadingOut: a state.json whose skill paths
// lead out of the copy is no state (the server is fetched again).
func TestReadStateRefusesPathsLeadingOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "gen-1"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"up/pdf", "../../etc", "/abs", `up\..\x`} {
		st := &state{URL: "http://127.0.0.1:1/mcp", Gen: "gen-1", Skills: []string{p}}
		if err := writeState(dir, st); err != nil {
			t.Fatal(err)
		}
		got := readState(dir, st.URL)
		if ok := p == "up/pdf"; (got != nil) != ok {
			t.Errorf("readState with skill path %q = %+v, want ok=%v", p, got, ok)
		}
	}
}

// TestEachServerGetsItsOriginsToken: of two servers listed, the one whose
// origin the user's tokens name gets its token on every request; the
// other, listed beside it, gets none (providers.remote.token went to
// both).
func TestEachServerGetsItsOriginsToken(t *testing.T) {
	private := skillsexttest.Start(t, upstreamFiles())
	public := skillsexttest.Start(t, upstreamFiles())
	clock := time.Now()
	r := provider(t, &clock, private.URL(), public.URL())
	env := providers.Env{Getenv: func(string) string { return "" },
		Tokens: map[string]string{strings.TrimSuffix(private.URL(), "/mcp"): "s3cret"}}
	if _, err := r.Plan(context.Background(), env); err != nil {
		t.Fatal(err)
	}
	for up, want := range map[*skillsexttest.Server]string{private: "Bearer s3cret", public: ""} {
		up.Lock()
		if len(up.Auth) == 0 {
			t.Errorf("%s got no request", up.URL())
		}
		for _, got := range up.Auth {
			if got != want {
				t.Errorf("%s got Authorization %q, want %q", up.URL(), got, want)
			}
		}
		up.Unlock()
	}
}
