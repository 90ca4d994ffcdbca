package search

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"github.com/ccski/ccski/internal/skillmd"
	"github.com/ccski/ccski/pipeline"
)

// refRank is Rank as it was before any index (2f4ae9a without Options.
// Index): every record scored in turn, names, ids and descriptions
// lower-cased per query, bodies read when a token matched nothing else.
// The tests compare Rank, with and without an Index, against it.
func refRank(records []*pipeline.Record, query string, opt Options) (hits []Hit, total int) {
	toks := Tokens(query)
	if len(toks) == 0 {
		return nil, 0
	}
	if opt.SnippetLen <= 0 {
		opt.SnippetLen = 120
	}
	type rk struct {
		Hit
		bodyRead bool
	}
	var found []rk
	for _, r := range records {
		if h, bodyRead, ok := refScore(r, toks, opt); ok {
			found = append(found, rk{h, bodyRead})
		}
	}
	if len(found) == 0 {
		return nil, 0
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Score > found[j].Score })
	total = len(found)
	if opt.Limit > 0 && total > opt.Limit {
		found = found[:opt.Limit]
	}
	hits = make([]Hit, len(found))
	for i, f := range found {
		if opt.Content && !f.bodyRead {
			body := opt.body(f.Record)
			f.Snippet = refSnippet(body, strings.ToLower(body), toks, opt.SnippetLen)
		}
		hits[i] = f.Hit
	}
	return hits, total
}

func refScore(r *pipeline.Record, toks []string, opt Options) (h Hit, bodyRead, ok bool) {
	name, short, id := strings.ToLower(r.Name), strings.ToLower(r.ShortName()), strings.ToLower(r.ID)
	desc := strings.ToLower(r.Description)
	var alias, aliasShort string
	if r.Alias != "" {
		alias, aliasShort = strings.ToLower(r.Alias), strings.ToLower(r.ShortAlias())
	}
	best := make([]int, len(toks))
	missing := false
	for i, t := range toks {
		best[i] = refMeta(t, name, short, id, desc)
		if alias != "" {
			best[i] = max(best[i], refMeta(t, alias, aliasShort, id, desc))
		}
		if best[i] == 0 {
			if !opt.Content {
				return Hit{}, false, false
			}
			missing = true
		}
	}
	h = Hit{Record: r}
	if missing {
		body := opt.body(r)
		if body == "" {
			return Hit{}, false, false
		}
		lbody := strings.ToLower(body)
		for i, t := range toks {
			if best[i] == 0 {
				if !strings.Contains(lbody, t) {
					return Hit{}, false, false
				}
				best[i] = scoreBody
			}
		}
		h.Snippet = refSnippet(body, lbody, toks, opt.SnippetLen)
		bodyRead = true
	}
	for _, b := range best {
		h.Score += b
	}
	return h, bodyRead, true
}

func refMeta(t, name, short, id, desc string) int {
	best := 0
	note := func(s int) { best = max(best, s) }
	switch {
	case short == t || name == t:
		note(scoreNameExact)
	case strings.HasPrefix(short, t) || strings.HasPrefix(name, t):
		note(scoreNamePrefix)
	case strings.Contains(name, t):
		note(scoreNameSub)
	}
	if strings.Contains(id, t) {
		note(scoreIDSub)
	}
	if best < scoreNameTypo && refTypo(t, name) {
		note(scoreNameTypo)
	}
	if best < scoreDescWord {
		if i := strings.Index(desc, t); i >= 0 {
			if wordStart(desc, i) {
				note(scoreDescWord)
			} else {
				note(scoreDescSub)
			}
		}
	}
	return best
}

func refTypo(t, name string) bool {
	n := utf8.RuneCountInString(t)
	if n < 4 {
		return false
	}
	limit := 1
	if n >= 8 {
		limit = 2
	}
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return r < utf8.RuneSelf && nameSeparator(byte(r)) }) {
		if abs(utf8.RuneCountInString(w)-n) <= limit && levenshtein.ComputeDistance(t, w) <= limit {
			return true
		}
	}
	return false
}

func refSnippet(body, lbody string, toks []string, width int) string {
	if body == "" {
		return ""
	}
	for _, t := range toks {
		if i := strings.Index(lbody, t); i >= 0 {
			return Snippet(body, i, len(t), width)
		}
	}
	return ""
}

// refSnippetText is Snippet as it was: the whole text decoded to runes.
func refSnippetText(text string, i, n, width int) string {
	i = min(max(i, 0), len(text))
	n = min(max(n, 0), len(text)-i)
	runes := []rune(text)
	start := utf8.RuneCountInString(text[:i])
	end := start + utf8.RuneCountInString(text[i:i+n])
	from := max(0, start-(width-(end-start))/2)
	to := min(len(runes), from+width)
	from = max(0, min(from, to-width))
	s := skillmd.FoldSpace(string(runes[from:to]))
	if from > 0 {
		s = "…" + s
	}
	if to < len(runes) {
		s += "…"
	}
	return s
}
