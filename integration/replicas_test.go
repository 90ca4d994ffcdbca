package integration

// Stateless replicas: three `ccski mcp --transport http` processes over
// copies of one tree, behind a round-robin reverse proxy, serve a
// 2026-07-28 client exactly what one of them serves alone, page by page:
// cursors carry no state of the process that gave them, and skill paths,
// URIs, digests and the order of every list are the tree's alone. A
// 2025-era session lives in the process that created it, so it needs
// affinity on Mcp-Session-Id (README, "Several replicas").

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
)

// roundRobin is a reverse proxy on loopback that sends each request to the
// next replica in turn, or, with affinity, a request carrying an
// Mcp-Session-Id to the replica whose answer gave that id (as a load
// balancer's sticky sessions on the header do).
type roundRobin struct {
	URL      string
	targets  []*url.URL
	next     atomic.Int64
	hits     []atomic.Int64
	affinity bool
	mu       sync.Mutex
	sessions map[string]int
}

// startRoundRobin starts the proxy on a port of loopback the kernel picks,
// so that runs in parallel (other packages, other worktrees) never clash.
func startRoundRobin(t *testing.T, affinity bool, backends ...*httpServer) *roundRobin {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rr := &roundRobin{URL: "http://" + ln.Addr().String(), hits: make([]atomic.Int64, len(backends)),
		affinity: affinity, sessions: map[string]int{}}
	for _, b := range backends {
		u, err := url.Parse(b.base)
		if err != nil {
			t.Fatal(err)
		}
		rr.targets = append(rr.targets, u)
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			i := -1
			if id := pr.In.Header.Get("Mcp-Session-Id"); rr.affinity && id != "" {
				rr.mu.Lock()
				if n, ok := rr.sessions[id]; ok {
					i = n
				}
				rr.mu.Unlock()
			}
			if i < 0 {
				i = int(rr.next.Add(1)-1) % len(rr.targets)
			}
			rr.hits[i].Add(1)
			pr.SetURL(rr.targets[i])
			pr.Out.Header.Set("X-Replica", strconv.Itoa(i))
		},
		ModifyResponse: func(r *http.Response) error {
			if id := r.Header.Get("Mcp-Session-Id"); id != "" {
				i, _ := strconv.Atoi(r.Request.Header.Get("X-Replica"))
				rr.mu.Lock()
				rr.sessions[id] = i
				rr.mu.Unlock()
			}
			return nil
		},
		FlushInterval: -1, // SSE answers go through as they come
		// A client closing a finished SSE answer is no error of the proxy.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rr
}

// crawl connects to endpoint as a 2026-07-28 client and returns, in order,
// every answer of: tools/list, every page of skills/list and of
// resources/list, skills/get of every skill listed, resources/read of every
// file of every manifest, and resources/directory/read of every skill's
// folder. Each answer is its JSON, with the page or URI it answers.
func crawl(ctx context.Context, endpoint, token string) ([]string, error) {
	c := sdk.NewClient(&sdk.Implementation{Name: "ccski-replicas", Version: "0"}, nil)
	for _, err := range []error{
		sdk.AddSendingCustomMethod[*extListParams, *extListResult](c, "skills/list"),
		sdk.AddSendingCustomMethod[*extGetParams, *extGetResult](c, "skills/get"),
		sdk.AddSendingCustomMethod[*extDirParams, *extDirResult](c, "resources/directory/read"),
	} {
		if err != nil {
			return nil, err
		}
	}
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: tokenClient(token)}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer cs.Close()
	if pv := cs.InitializeResult().ProtocolVersion; pv != "2026-07-28" {
		return nil, fmt.Errorf("negotiated %s, want the stateless 2026-07-28", pv)
	}
	var out []string
	add := func(what string, v any, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out = append(out, what+" "+string(b))
		return nil
	}
	tools, err := cs.ListTools(ctx, nil)
	if err := add("tools/list", tools, err); err != nil {
		return nil, err
	}
	var skills []*extEntry
	p := &extListParams{}
	for {
		res, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", p)
		if err := add("skills/list cursor="+p.Cursor, res, err); err != nil {
			return nil, err
		}
		skills = append(skills, res.Skills...)
		if res.NextCursor == "" {
			break
		}
		p = &extListParams{Cursor: res.NextCursor}
	}
	rp := &sdk.ListResourcesParams{}
	for {
		res, err := cs.ListResources(ctx, rp)
		if err := add("resources/list cursor="+rp.Cursor, res, err); err != nil {
			return nil, err
		}
		if res.NextCursor == "" {
			break
		}
		rp = &sdk.ListResourcesParams{Cursor: res.NextCursor}
	}
	if len(skills) < 200 {
		return nil, fmt.Errorf("%d skills listed, want the tree's 200 and more", len(skills))
	}
	for _, e := range skills {
		got, err := sdk.CallCustomMethod[*extGetParams, *extGetResult](ctx, cs, "skills/get", &extGetParams{URI: e.URI})
		if err := add("skills/get "+e.URI, got, err); err != nil {
			return nil, err
		}
		for _, f := range e.Resources {
			res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: f.URI})
			if err := add("resources/read "+f.URI, res, err); err != nil {
				return nil, err
			}
		}
		folder := e.URI[:len(e.URI)-len("/SKILL.md")]
		dir, err := sdk.CallCustomMethod[*extDirParams, *extDirResult](ctx, cs, "resources/directory/read", &extDirParams{URI: folder})
		if err := add("resources/directory/read "+folder, dir, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// replicaMachine is a copy of the test machine with 210 more skills, so
// that skills/list takes several pages, and, when repoURL is set, the
// skills of that git repository (providers.git), synced into the copy's
// own cache.
func replicaMachine(t *testing.T, repoURL string) *machine.Machine {
	t.Helper()
	m := newMachine(t)
	addManySkills(t, m, 210)
	if repoURL != "" {
		cfg := filepath.Join(m.Home, ".config", "ccski", "config.yaml")
		data, err := os.ReadFile(cfg)
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), "providers:\n", "providers:\n  git:\n    url: "+repoURL+"\n", 1))
		if err := os.WriteFile(cfg, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// orgRepo is the organisation's repository the replicas sync: two
// copies of one name in two folders, which the pipeline ranks by the
// newer SKILL.md, and a skill with references.
func orgRepo(t *testing.T) string {
	t.Helper()
	repo := gitfetchtest.New(t, t.TempDir())
	repo.Commit(map[string]string{
		"team-a/review/SKILL.md":          gitSkill("review", "Team A's review."),
		"team-b/review/SKILL.md":          gitSkill("review", "Team B's review."),
		"team-b/release/SKILL.md":         gitSkill("release", "Cut a release."),
		"team-b/release/references/ci.md": "CI steps.",
		"team-b/release/scripts/tag.sh":   "#!/bin/sh\ngit tag \"$1\"\n",
	})
	return repo.URL
}

// TestReplicasBehindRoundRobin starts three replicas, each over its own
// copy of one tree (written at different times, in different folders) and
// its own clone of one git repository (providers.git), all with one token, behind a round-robin proxy, and checks that a
// 2026-07-28 client crawling through the proxy, each request on the next
// replica, gets every answer a single replica gives, byte for byte.
func TestReplicasBehindRoundRobin(t *testing.T) {
	const token = "replica-token-of-the-organisation"
	repo := orgRepo(t)
	var replicas []*httpServer
	for range 3 {
		m := replicaMachine(t, repo)
		replicas = append(replicas, startHTTPUnder(t, m, nil, nil,
			"--transport", "http", "--auth-token", token))
	}
	// A load balancer sends traffic to a replica once /readyz says so
	// (the Deployment's readiness probe): here, once its first checkout
	// of the repository is served.
	for i, r := range replicas {
		var code int
		var body string
		if !waitUntil(refreshBudget, func() bool {
			code, body, _ = get(r.base, "/readyz", "")
			return code == 200
		}) {
			t.Fatalf("replica %d: /readyz = %d %q\nstderr:\n%s", i, code, body, r.stderr)
		}
	}
	ctx := mcpContext(t)
	single, err := crawl(ctx, replicas[0].base+"/mcp", token)
	if err != nil {
		t.Fatalf("one replica alone: %v\nstderr:\n%s", err, replicas[0].stderr)
	}
	rr := startRoundRobin(t, false, replicas...)
	spread, err := crawl(ctx, rr.URL+"/mcp", token)
	if err != nil {
		t.Fatalf("through the round robin: %v", err)
	}
	if !slices.ContainsFunc(single, func(a string) bool { return strings.HasPrefix(a, "skills/get skill://git/release/SKILL.md ") }) {
		t.Errorf("the replicas do not serve the organisation's repository (providers.git)\nstderr:\n%s", replicas[0].stderr)
	}
	if diff := cmp.Diff(single, spread); diff != "" {
		t.Errorf("the replicas behind the round robin answer otherwise than one replica (-one +three):\n%s", diff)
	}
	for i := range rr.hits {
		if n := rr.hits[i].Load(); n < int64(len(spread))/4 {
			t.Errorf("replica %d served %d of the %d answers: the round robin did not spread them", i, n, len(spread))
		}
	}
	t.Logf("%d answers, requests per replica: %d %d %d", len(spread), rr.hits[0].Load(), rr.hits[1].Load(), rr.hits[2].Load())
}

// TestReplicasNeedAffinityFor2025Sessions: a 2025-era session lives in
// the replica that created it. Spread round-robin, its next request
// reaches a replica that does not know its Mcp-Session-Id and is refused;
// with affinity on the header, as the README tells operators to set up,
// the session works.
func TestReplicasNeedAffinityFor2025Sessions(t *testing.T) {
	const token = "replica-token-of-the-organisation"
	m := replicaMachine(t, "")
	var replicas []*httpServer
	for range 3 {
		replicas = append(replicas, startHTTPUnder(t, m, nil, nil,
			"--transport", "http", "--auth-token", token))
	}
	ctx := mcpContext(t)
	session := func(rr *roundRobin) error {
		tr := &sdk.StreamableClientTransport{Endpoint: rr.URL + "/mcp", HTTPClient: tokenClient(token)}
		cs, err := extClient(t).Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		defer cs.Close()
		if cs.ID() == "" {
			return errors.New("a 2025-11-25 client got no session")
		}
		for range 6 {
			if _, err := sdk.CallCustomMethod[*extListParams, *extListResult](ctx, cs, "skills/list", &extListParams{}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := session(startRoundRobin(t, false, replicas...)); err == nil {
		t.Error("a 2025-11-25 session spread over three replicas worked: the README's affinity note would be wrong")
	} else {
		t.Logf("without affinity: %v", err)
	}
	if err := session(startRoundRobin(t, true, replicas...)); err != nil {
		t.Errorf("a 2025-11-25 session with affinity on Mcp-Session-Id: %v", err)
	}
}
