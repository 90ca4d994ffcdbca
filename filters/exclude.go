package filters

import (
	"fmt"

	"github.com/ccski/ccski/pipeline"
)

// exclude drops the records any token matches.
type exclude struct {
	tokens []Token
	scope  *scope // nil: derived from the input
}

// Exclude returns the stage that drops every record matched by any of the
// tokens. It never dedupes: auto means the same as all, and a bare name
// removes every copy of that skill and nothing else. A record in the same
// folder as a dropped one (a skill reached through a symlinked root, see
// PathDedupe) is the same skill, not another copy: it is dropped too.
// Providers and record ids are taken from the stage's input; Build
// instead fixes them from the whole scan.
func Exclude(tokens []Token) pipeline.Stage { return &exclude{tokens: tokens} }

// Name returns "exclude".
func (*exclude) Name() string { return "exclude" }

// Apply drops each record matched by a token, naming the first such token,
// and each record in the folder of a record so dropped, naming that record
// too.
func (s *exclude) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	if len(s.tokens) == 0 {
		return in, nil
	}
	sc := s.scope
	if sc == nil {
		sc = newScope(in, nil, nil)
	}
	sels := make([]selector, len(s.tokens))
	for i, t := range s.tokens {
		sels[i] = t.resolve(sc)
	}
	matched := map[*pipeline.Record]int{}    // record -> the token that matched it
	folders := map[string]*pipeline.Record{} // folder key -> the first matched record there
	for _, r := range in {
		if i := firstMatch(sels, r); i >= 0 {
			matched[r] = i
			if k, _ := folderKey(r); k != "" && folders[k] == nil {
				folders[k] = r
			}
		}
	}
	var out []*pipeline.Record
	var dropped []pipeline.Drop
	for _, r := range in {
		if i, ok := matched[r]; ok {
			dropped = append(dropped, pipeline.Drop{Record: r, Reason: "excluded by --exclude " + s.tokens[i].text})
			continue
		}
		if k, what := folderKey(r); k != "" && folders[k] != nil {
			twin := folders[k]
			dropped = append(dropped, pipeline.Drop{Record: r, Reason: fmt.Sprintf("excluded by --exclude %s (same %s as %s)",
				s.tokens[matched[twin]].text, what, twin.ID)})
			continue
		}
		out = append(out, r)
	}
	return out, dropped
}

// firstMatch returns the index of the first of sels that matches r, or -1.
func firstMatch(sels []selector, r *pipeline.Record) int {
	for i, sel := range sels {
		if sel.match(r) {
			return i
		}
	}
	return -1
}
