// Package search ranks skills against a free-text query. Every
// whitespace-separated token of the query must match somewhere: in the id,
// the name, the description, or (when asked) the body. A token also matches
// a name word within a small edit distance, so typos still find the skill.
// Matches in the name count most, then the id, the description and the
// body.
package search

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agnivade/levenshtein"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/skillmd"
)

// Options tune a search.
type Options struct {
	// Content also searches SKILL.md bodies and fills Hit.Snippet.
	Content bool
	// SnippetLen is the snippet width in characters (default 120).
	SnippetLen int
}

// Hit is one matching record.
type Hit struct {
	Record *pipeline.Record
	Score  int
	// Snippet is text around the first body match (Content only).
	Snippet string
}

// Scores per token, by where it matched.
const (
	scoreNameExact  = 100
	scoreNamePrefix = 70
	scoreNameSub    = 50
	scoreIDSub      = 40
	scoreNameTypo   = 30
	scoreDescWord   = 25
	scoreDescSub    = 15
	scoreBody       = 8
)

// Tokens splits a query into lower-cased tokens.
func Tokens(query string) []string { return strings.Fields(strings.ToLower(query)) }

// Rank returns the records matching every token of query, best first; ties
// keep the input order. A blank query matches nothing.
func Rank(records []*pipeline.Record, query string, opt Options) []Hit {
	toks := Tokens(query)
	if len(toks) == 0 {
		return nil
	}
	if opt.SnippetLen <= 0 {
		opt.SnippetLen = 120
	}
	var hits []Hit
	for _, r := range records {
		var body string
		if opt.Content {
			body = readBody(r.File)
		}
		h, ok := score(r, toks, body, opt.SnippetLen)
		if ok {
			hits = append(hits, h)
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	return hits
}

func score(r *pipeline.Record, toks []string, body string, width int) (Hit, bool) {
	name := strings.ToLower(r.Name)
	short := strings.ToLower(r.ShortName())
	id := strings.ToLower(r.ID)
	desc := strings.ToLower(r.Description)
	lbody := strings.ToLower(body)
	words := nameWords(name)
	h := Hit{Record: r}
	for _, t := range toks {
		best := 0
		note := func(s int) {
			if s > best {
				best = s
			}
		}
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
		if best < scoreNameTypo && typo(t, words) {
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
		if body != "" {
			if i := strings.Index(lbody, t); i >= 0 {
				note(scoreBody)
				if h.Snippet == "" {
					h.Snippet = Snippet(body, i, len(t), width)
				}
			}
		}
		if best == 0 {
			return Hit{}, false
		}
		h.Score += best
	}
	return h, true
}

// nameWords splits a name into its words (on ':', '-', '_', '.', space).
func nameWords(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool { return r == ':' || r == '-' || r == '_' || r == '.' || r == ' ' })
}

// typo reports whether t is within a small edit distance of a word: one
// edit for tokens of 4 to 7 characters, two for longer ones.
func typo(t string, words []string) bool {
	n := utf8.RuneCountInString(t)
	if n < 4 {
		return false
	}
	limit := 1
	if n >= 8 {
		limit = 2
	}
	for _, w := range words {
		if abs(utf8.RuneCountInString(w)-n) > limit {
			continue
		}
		if levenshtein.ComputeDistance(t, w) <= limit {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func wordStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// Snippet returns about width characters of text around the match at byte
// offset i of length n, with white space folded and "…" where it was cut.
func Snippet(text string, i, n, width int) string {
	// Offsets come from a lower-cased copy; clamp in case case mapping
	// changed byte lengths.
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

// readBody returns the Markdown body of a SKILL.md, or "" when it cannot be
// read.
func readBody(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	if h, err := skillmd.ReadHead(bytes.NewReader(b)); err == nil && h.BodyOffset <= len(b) {
		return string(b[h.BodyOffset:])
	}
	return string(b)
}
