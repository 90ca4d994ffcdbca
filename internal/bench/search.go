package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ccski/ccski/internal/fixture"
)

// searchQueries are what the skills_search rows ask, in turn: words of
// names, descriptions and bodies (the fixture's bodies repeat "step",
// "read", "input", "lorem ipsum" and CJK words), a typo, and words no
// skill holds, which every body must be checked for.
var searchQueries = []string{"skill-00042", "handles task", "lorem", "check input", "skil-00100", "kubernetes",
	"step write result", "文档", "データ 変換", "nothing-like-it", "ipsum", "use when"}

// searchCalls is the number of timed skills_search calls per session.
const searchCalls = 60

// searchKeys are the rows searchRows fills.
var searchKeys = []string{"search-first", "search-p50", "search-p99", "search-p50-base", "search-p99-base", "search-rss", "search-rss-base"}

// searchRows measures skills_search: -runs sessions of `ccski mcp --tools
// skills_search`, each idle after tools/list (the body index is built in
// the background then), one search (the first, its own row), then
// searchCalls searches one at a time (p50, p99 over every run), and the
// peak resident set at the end. With a baseline build, its session runs
// right after each of ccski's, with its own cache folder.
func (s *suite) searchRows(ctx context.Context, t *fixture.Tree, env []string, res *sizeResult) error {
	baseEnv := childEnv(t, s.state(res.N, "baseline"))
	var first, lat, hwm, bLat, bHWM []float64
	var baseErr error
	for range s.cfg.Runs {
		f, l, h, err := searchSession(ctx, s.ccski, t, env)
		if err != nil {
			return err
		}
		first, lat, hwm = append(first, f), append(lat, l...), append(hwm, h)
		if s.baseline != "" && baseErr == nil {
			_, l, h, err := searchSession(ctx, s.baseline, t, baseEnv)
			if err != nil {
				baseErr = fmt.Errorf("baseline %s: %w", s.baseRev, err)
				continue
			}
			bLat, bHWM = append(bLat, l...), append(bHWM, h)
		}
	}
	nan := math.NaN()
	res.metric("search-first").set(median(first), nan)
	res.metric("search-p50").set(percentile(lat, 0.5), nan)
	res.metric("search-p99").set(percentile(lat, 0.99), nan)
	res.metric("search-rss").set(median(hwm), nan)
	if s.baseline != "" {
		if baseErr != nil {
			return &phaseError{[]string{"search-p50-base", "search-p99-base", "search-rss-base"}, baseErr}
		}
		res.metric("search-p50-base").set(percentile(lat, 0.5), percentile(bLat, 0.5))
		res.metric("search-p99-base").set(percentile(lat, 0.99), percentile(bLat, 0.99))
		res.metric("search-rss-base").set(median(hwm), median(bHWM))
	}
	return nil
}

// searchSession is one session of searchRows with the binary bin: the
// first search (ms), the timed ones (ms) and the peak resident set (MiB).
func searchSession(ctx context.Context, bin string, t *fixture.Tree, env []string) (float64, []float64, float64, error) {
	srv, err := startServer(ctx, bin, t, env, "--tools", "skills_search")
	if err != nil {
		return 0, nil, 0, err
	}
	defer srv.close()
	if _, err := srv.cs.ListTools(ctx, nil); err != nil {
		return 0, nil, 0, fmt.Errorf("tools/list: %w", err)
	}
	if _, _, err := waitIdle(ctx, srv.pid()); err != nil {
		return 0, nil, 0, err
	}
	search := func(q string) (float64, error) {
		start := time.Now()
		r, err := srv.cs.CallTool(ctx, &sdk.CallToolParams{Name: "skills_search", Arguments: map[string]any{"query": q}})
		took := ms(time.Since(start))
		if err == nil && r.IsError {
			err = errors.New("tool error")
		}
		if err != nil {
			return 0, fmt.Errorf("skills_search %q: %w", q, err)
		}
		return took, nil
	}
	first, err := search(searchQueries[0])
	if err != nil {
		return 0, nil, 0, err
	}
	lat := make([]float64, 0, searchCalls)
	for i := range searchCalls {
		took, err := search(searchQueries[(i+1)%len(searchQueries)])
		if err != nil {
			return 0, nil, 0, err
		}
		lat = append(lat, took)
	}
	hwm := statusKiB(srv.pid(), "VmHWM") / 1024
	return first, lat, hwm, srv.close()
}
