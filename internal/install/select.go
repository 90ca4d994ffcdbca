package install

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/filters"
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
	recs := records(cands)
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

// records returns the records of cands, in order, with their ids: each
// candidate's own, or for a candidate built by hand one made as Discover
// makes it (provider source; a plugin's skill named plugin:name).
func records(cands []Candidate) []*pipeline.Record {
	recs := make([]*pipeline.Record, len(cands))
	for i, c := range cands {
		recs[i] = c.record
		if recs[i] == nil {
			recs[i] = &pipeline.Record{Name: c.Name, Agent: sourceAgent, Dir: c.Dir,
				Location: pipeline.LocationCustom, Kind: pipeline.KindCustom}
			if c.Plugin != "" {
				recs[i].Name = c.Plugin + ":" + c.Name
				recs[i].Plugin = &pipeline.PluginInfo{Plugin: c.Plugin}
			}
		}
	}
	pipeline.AssignIDs(recs)
	return recs
}

// Select returns the skills of o that s chooses: the named ones, else
// every one --all, --include or --exclude leaves, else the only one. Any
// other case is an error: a *ChooseError for several skills and no
// choice, or a name the source does not offer (with suggestions) or
// offers several skills under.
//
// A name designates a skill of the source as a name designates a skill
// of the machine (pipeline.Snapshot.Lookup): its name, plugin:name,
// @plugin:name or id (source:pdf), case ignored.
func Select(source string, o *Offer, s Selection) ([]Candidate, error) {
	cands, err := Filter(o.Candidates, s.Include, s.Exclude)
	if err != nil {
		return nil, err
	}
	if len(s.Names) > 0 {
		recs := records(o.Candidates)
		snap := pipeline.NewSnapshot(recs, recs, nil, nil, nil)
		var out []Candidate
		for _, n := range s.Names {
			f, err := snap.Lookup(n, pipeline.TypeSkill)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", source, nameError(n, o.Candidates, recs, err))
			}
			c := o.Candidates[slices.Index(recs, f.Record)]
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

// nameError words Lookup's error for name among the candidates with the
// names the user gives, rather than ids: a suggestion by the candidate's
// name, as ChooseError lists it, and the skills an ambiguous name
// designates by their plugin:name.
func nameError(name string, cands []Candidate, recs []*pipeline.Record, err error) error {
	at := func(id string) int {
		return slices.IndexFunc(recs, func(r *pipeline.Record) bool { return strings.EqualFold(r.ID, id) })
	}
	var nf *pipeline.NotFoundError
	var amb *pipeline.AmbiguousError
	switch {
	case errors.As(err, &nf):
		var names []string
		for _, id := range nf.Suggestions {
			if i := at(id); i >= 0 {
				names = append(names, cands[i].Name)
			}
		}
		if len(names) > 0 {
			return fmt.Errorf("no skill named %q; did you mean %s?", name, strings.Join(names, ", "))
		}
		for _, c := range cands {
			names = append(names, c.Name)
		}
		return fmt.Errorf("no skill named %q; it offers %s", name, strings.Join(names, ", "))
	case errors.As(err, &amb):
		var names []string
		for _, id := range amb.Candidates {
			if i := at(id); i >= 0 {
				names = append(names, recs[i].Name)
			}
		}
		return fmt.Errorf("%q is ambiguous: it names several of its skills (%s); name one of them", name, strings.Join(names, ", "))
	}
	return err
}
