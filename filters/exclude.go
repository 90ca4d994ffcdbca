package filters

import "github.com/ccski/ccski/pipeline"

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
	sels := make([]selector, len(s.tokens))
	for i, t := range s.tokens {
		sels[i] = t.resolve(sc)
	}
	var out []*pipeline.Record
	var dropped []pipeline.Drop
next:
	for _, r := range in {
		for i, sel := range sels {
			if sel.match(r) {
				dropped = append(dropped, pipeline.Drop{Record: r,
					Reason: "excluded by --exclude " + s.tokens[i].text})
				continue next
			}
		}
		out = append(out, r)
	}
	return out, dropped
}
