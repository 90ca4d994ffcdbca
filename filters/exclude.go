package filters

import "github.com/ccski/ccski/pipeline"

var _ pipeline.Screen = (*exclude)(nil)

// exclude drops the records any token matches.
type exclude struct {
	tokens []Token
	scope  *scope // nil: derived from the input
}

// Exclude returns the stage that drops every record matched by any of the
// tokens. It never dedupes: auto means the same as all, and a bare name
// removes every copy of that skill and nothing else. Providers and record
// ids are taken from the stage's input; Build instead fixes them from the
// whole scan.
func Exclude(tokens []Token) pipeline.Stage { return &exclude{tokens: tokens} }

// Name returns "exclude".
func (*exclude) Name() string { return "exclude" }

// Apply drops each record matched by a token, naming the first such token.
func (s *exclude) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	if len(s.tokens) == 0 {
		return in, nil
	}
	sc := s.scope
	if sc == nil {
		sc = newScope(in)
	}
	sels := s.selectors(sc)
	var out []*pipeline.Record
	var dropped []pipeline.Drop
	for _, r := range in {
		if why := s.reason(sels, r); why != "" {
			dropped = append(dropped, pipeline.Drop{Record: r, Reason: why})
			continue
		}
		out = append(out, r)
	}
	return out, dropped
}

// Bars says whether Apply would drop r, and why, for a record an earlier
// stage dropped as a copy of another (see pipeline.Screen). A stage built
// by Exclude, without the whole scan, reads the tokens against r alone.
func (s *exclude) Bars(r *pipeline.Record) string {
	if len(s.tokens) == 0 {
		return ""
	}
	sc := s.scope
	if sc == nil {
		sc = newScope([]*pipeline.Record{r})
	}
	return s.reason(s.selectors(sc), r)
}

// selectors resolves the tokens for a scan.
func (s *exclude) selectors(sc *scope) []selector {
	sels := make([]selector, len(s.tokens))
	for i, t := range s.tokens {
		sels[i] = t.resolve(sc)
	}
	return sels
}

// reason names the first token whose selector matches r, or is "".
func (s *exclude) reason(sels []selector, r *pipeline.Record) string {
	for i, sel := range sels {
		if sel.match(r) {
			return "excluded by --exclude " + s.tokens[i].text
		}
	}
	return ""
}
