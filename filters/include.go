package filters

import (
	"fmt"
	"strings"

	"github.com/ccski/ccski/pipeline"
)

// include keeps the records selected by ordered tokens.
type include struct {
	tokens []Token
	prio   *Priority
	scope  *scope // nil: derived from the input
}

// Include returns the stage that keeps the union of each token's selection,
// in token order. An empty list means the single token auto; a nil prio
// means the default ranking. Tokens that dedupe (auto, auto:<glob>, a bare
// name) keep only the priority winner of each skill within their own
// selection. Providers and record ids are taken from the stage's input;
// Build instead fixes them from the whole scan.
func Include(tokens []Token, prio *Priority) pipeline.Stage {
	return newInclude(tokens, prio, nil)
}

func newInclude(tokens []Token, prio *Priority, sc *scope) *include {
	if len(tokens) == 0 {
		tokens = []Token{{text: "auto", sel: selector{dedupe: true}}}
	}
	if prio == nil {
		prio = defaultPriority()
	}
	return &include{tokens: tokens, prio: prio, scope: sc}
}

// Name returns "include".
func (*include) Name() string { return "include" }

// Apply selects records token by token. The output is in order of first
// selection; a deduping token puts each winner where the first copy of its
// skill was. A record no token kept is dropped: with its winner when it
// lost a dedupe, otherwise as not selected.
func (s *include) Apply(in []*pipeline.Record) ([]*pipeline.Record, []pipeline.Drop) {
	sc := s.scope
	if sc == nil {
		sc = newScope(in, nil, nil)
	}
	kept := map[*pipeline.Record]bool{}
	lostTo := map[*pipeline.Record]*pipeline.Record{}
	var out []*pipeline.Record
	for _, t := range s.tokens {
		sel := t.resolve(sc)
		picked := sel.selectFrom(in)
		if sel.dedupe {
			var lost map[*pipeline.Record]*pipeline.Record
			picked, lost = autoDedupe(picked, s.prio)
			for r, w := range lost {
				if lostTo[r] == nil {
					lostTo[r] = w
				}
			}
		}
		for _, r := range picked {
			if !kept[r] {
				kept[r] = true
				out = append(out, r)
			}
		}
	}
	var dropped []pipeline.Drop
	for _, r := range in {
		if kept[r] {
			continue
		}
		if w := lostTo[r]; w != nil {
			dropped = append(dropped, pipeline.Drop{Record: r, By: w,
				Reason: fmt.Sprintf("shadowed by %s (%s)", w.ID, s.prio.Explain(w, r))})
			continue
		}
		dropped = append(dropped, pipeline.Drop{Record: r,
			Reason: "not selected by --include " + joinTokens(s.tokens)})
	}
	return out, dropped
}

// joinTokens writes tokens as one comma-separated flag value.
func joinTokens(tokens []Token) string {
	texts := make([]string, len(tokens))
	for i, t := range tokens {
		texts[i] = t.text
	}
	return strings.Join(texts, ",")
}
