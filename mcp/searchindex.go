package mcp

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ccski/ccski/internal/search"
	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// bodyIndex is the body index skills_search answers from (search.Index):
// built from the file Options.SearchIndex names (what the last run saved),
// updated for each snapshot by reading only the files whose stamp
// changed, and saved again when it changed. While skills_search is
// served, Update brings it up to date in the background; a search waits
// for the index of its snapshot.
type bodyIndex struct {
	mu     sync.Mutex
	file   string // Options.SearchIndex
	loaded bool   // whether file was read (once, the first time)
	ix     *search.Index
	snap   *pipeline.Snapshot // the snapshot ix indexes; nil before the first search
	// built is set once an index was built: refresh reads it without
	// mu, which a build holds for as long as it reads, so that a
	// snapshot's update never waits for a build.
	built atomic.Bool
	// bg runs the builds refresh asks for (made by its first call).
	bgOnce sync.Once
	bg     *pipeline.Background
}

// index returns the body index of snap's skills, bringing it up to date
// first when it indexes another snapshot. It returns nil (a search then
// reads the bodies) when ctx ends first.
func (b *bodyIndex) index(ctx context.Context, snap *pipeline.Snapshot, log func(msg string, args ...any)) *search.Index {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.snap == snap {
		return b.ix
	}
	if !b.loaded && b.file != "" {
		b.loaded = true
		ix, err := search.LoadIndex(b.file)
		switch {
		case err == nil:
			b.ix = ix
		case !errors.Is(err, fs.ErrNotExist):
			log("search index not read: every skill's body is read again", "file", b.file, "err", err)
		}
	}
	ix, err := b.ix.Update(ctx, snap.Skills(), indexSource(snap))
	if err != nil {
		return nil
	}
	ix.Prime() // a server answers many queries: score only candidates
	b.ix, b.snap = ix, snap
	b.built.Store(true)
	if ix.Changed() && b.file != "" {
		if err := ix.SaveFile(b.file); err != nil {
			log("search index not saved: the next start reads every skill's body again", "file", b.file, "err", err)
		}
	}
	return ix
}

// refresh brings the index up to date for snap in the background when
// skills_search is served (served) or a search built it before, so that
// the first search after a start or a rescan finds it ready. The builds
// are a pipeline.Background's runs: one at a time, on the newest snapshot
// offered (a rescan every 30 s while a build or the security scan of
// 100,000 skills goes on for minutes kept every snapshot alive, one
// waiting goroutine each), and in turn with the server's other background
// work (the security scan, the trust recorder), whose memory they would
// otherwise add to their own. A search that comes first builds the index
// itself, without waiting for the turn.
func (b *bodyIndex) refresh(snap *pipeline.Snapshot, served bool, log func(msg string, args ...any)) {
	if !b.built.Load() && !served {
		return
	}
	b.bgOnce.Do(func() {
		b.bg = pipeline.NewBackground(0, func(snap *pipeline.Snapshot) { b.index(context.Background(), snap, log) })
	})
	b.bg.Offer(snap)
}

// indexSource is how the body index reads the bodies of snap's skills: as
// skills_search does (searchBody), and under a gate with the digests
// judged of each skill's own file as its salt, so that a file indexed
// under another judgement is read again.
func indexSource(snap *pipeline.Snapshot) search.Source {
	src := search.Source{Body: searchBody(snap)}
	if len(snap.Judged) > 0 {
		src.Salt = func(r *pipeline.Record) string {
			j := judgedOwn(snap, r)
			if j == nil {
				return ""
			}
			var b strings.Builder
			for i, f := range j.files {
				b.WriteString(string(j.gates[i]))
				b.WriteByte('=')
				b.WriteString(f.Digest)
				b.WriteByte(';')
			}
			return b.String()
		}
	}
	return src
}

// searchBody is the body of a skill a search reads (search.Options.Body):
// under a gate, only the bytes judged; nil without one (the file as it
// is).
func searchBody(snap *pipeline.Snapshot) func(r *pipeline.Record) string {
	if len(snap.Judged) == 0 {
		return nil
	}
	return func(r *pipeline.Record) string {
		data, more, err := readOwn(snap, r, search.MaxBody)
		if err != nil {
			return ""
		}
		if more {
			data = skillmd.TrimPartialRune(data)
		}
		return string(skillmd.Body(data))
	}
}
