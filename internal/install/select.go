package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/suggest"
	"github.com/ccski/ccski/pipeline"
)

// Selection is what the user chose among a source's skills.
type Selection struct {
	// Names are skill names (or plugin:name) given as arguments.
	Names []string
	// All takes every skill Include and Exclude leave.
	All bool
	// Include and Exclude are filter tokens, in the grammar of ccski's
	// --include and --exclude (see package filters); the source's skills
	// have the provider "source" and, from a marketplace, their plugin.
	Include, Exclude []string
}

// ChooseError is the error for a source that offers several skills when
// none was chosen: the user must name some, or use --all, --include or -i.
type ChooseError struct {
	Source     string
	Candidates []Candidate
}

func (e *ChooseError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s offers %d skills: name the ones to install, or use --all, --include or -i:", e.Source, len(e.Candidates))
	for _, c := range e.Candidates {
		b.WriteString("\n  " + c.Name)
		if c.Plugin != "" {
			b.WriteString(" (plugin " + c.Plugin + ")")
		}
	}
	return b.String()
}

// Filter returns the candidates Include and Exclude leave, in order.
// With neither it returns them all.
func Filter(cands []Candidate, include, exclude []string) ([]Candidate, error) {
	if len(include) == 0 && len(exclude) == 0 {
		return cands, nil
	}
	recs := make([]*pipeline.Record, len(cands))
	for i := range cands {
		recs[i] = cands[i].record
		if recs[i] == nil { // a candidate built by hand
			recs[i] = &pipeline.Record{Name: cands[i].Name, Agent: sourceAgent, Dir: cands[i].Dir,
				Location: pipeline.LocationCustom, Kind: pipeline.KindCustom}
			if cands[i].Plugin != "" {
				recs[i].Plugin = &pipeline.PluginInfo{Plugin: cands[i].Plugin}
			}
		}
	}
	pipeline.AssignIDs(recs)
	inc := include
	if len(inc) == 0 {
		inc = []string{"all"}
	}
	stages, err := filters.Build(filters.Settings{State: filters.StateAll, Include: inc, Exclude: exclude,
		Providers: []string{sourceAgent}}, recs)
	if err != nil {
		return nil, err
	}
	kept, _ := pipeline.Run(stages, recs)
	var out []Candidate
	for i, r := range recs {
		if slices.Contains(kept, r) {
			out = append(out, cands[i])
		}
	}
	return out, nil
}

// Select returns the skills of o that s chooses: the named ones, else
// every one --all, --include or --exclude leaves, else the only one. Any
// other case is an error: a *ChooseError for several skills and no
// choice, or a name the source does not offer (with suggestions).
func Select(source string, o *Offer, s Selection) ([]Candidate, error) {
	cands, err := Filter(o.Candidates, s.Include, s.Exclude)
	if err != nil {
		return nil, err
	}
	if len(s.Names) > 0 {
		var out []Candidate
		for _, n := range s.Names {
			c, err := lookup(o.Candidates, n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", source, err)
			}
			if !slices.ContainsFunc(out, func(x Candidate) bool { return x.Name == c.Name }) {
				out = append(out, c)
			}
		}
		return out, nil
	}
	filtered := len(s.Include) > 0 || len(s.Exclude) > 0
	switch {
	case len(cands) == 0:
		return nil, fmt.Errorf("%s: --include and --exclude leave none of its %d skills", source, len(o.Candidates))
	case s.All || filtered || len(cands) == 1:
		return cands, nil
	}
	return nil, &ChooseError{Source: source, Candidates: cands}
}

// lookup finds the candidate a name names: its name or plugin:name, case
// ignored.
func lookup(cands []Candidate, name string) (Candidate, error) {
	for _, c := range cands {
		if strings.EqualFold(c.Name, name) || c.Plugin != "" && strings.EqualFold(c.Plugin+":"+c.Name, name) {
			return c, nil
		}
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.Name
	}
	msg := fmt.Sprintf("no skill named %q", name)
	if s := suggest.Names(name, names, 3); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	} else {
		msg += "; it offers " + strings.Join(names, ", ")
	}
	return Candidate{}, fmt.Errorf("%s", msg)
}
