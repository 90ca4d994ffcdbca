package pipeline

// Stage is one step of the pipeline. It receives the records that survived
// the previous stages, in order, and returns those it keeps, in the order it
// wants them, plus a Drop for every record it removes. A stage never edits a
// record.
type Stage interface {
	Name() string
	Apply(in []*Record) (out []*Record, dropped []Drop)
}

// Screen is implemented by a stage that drops records by the user's
// choice alone, one record at a time, such as an exclude filter. Run asks
// it about every record an earlier stage dropped as a copy of another, so
// that such a copy is never served by name when the user's filters would
// have hidden it too.
type Screen interface {
	// Bars returns the reason the stage would drop r, as a Drop reason,
	// or "" when it would keep r.
	Bars(r *Record) string
}

// Drop says why a stage removed a record.
type Drop struct {
	Record *Record
	// Stage is the name of the stage that dropped the record; Run fills it.
	Stage string
	// Reason is a sentence a person can act on.
	Reason string
	// By is the record that won, when the record lost a dedupe.
	By *Record
	// Barred is set by Run for a record that lost a dedupe (By is set)
	// and that a later Screen stage would have dropped too: that stage's
	// reason, such as "excluded by --exclude pdf".
	Barred string
}

// Loadable reports whether the dropped record may still be served when a
// name designates it exactly: it lost a dedupe to another copy (the user
// hid nothing), and no user filter would hide it either. Records dropped
// by the user's choices (state, include, exclude) are not.
func (d Drop) Loadable() bool { return d.By != nil && d.Barred == "" }

// Explain says why the record is hidden: the reason, and the filter that
// would hide it too when there is one. The CLI and the MCP server both
// show it.
func (d Drop) Explain() string {
	if d.Barred != "" {
		return d.Reason + "; also " + d.Barred
	}
	return d.Reason
}

// Run applies the stages in order and returns the surviving records and
// every drop, in the order they happened. Each input record ends up either
// in out or in exactly one Drop. A record that lost a dedupe is then shown
// to every later stage that is a Screen, and Barred notes the first that
// would drop it.
func Run(stages []Stage, in []*Record) (out []*Record, dropped []Drop) {
	out = in
	for i, s := range stages {
		var d []Drop
		out, d = s.Apply(out)
		for j := range d {
			if d[j].Stage == "" {
				d[j].Stage = s.Name()
			}
			if d[j].By != nil {
				d[j].Barred = bars(stages[i+1:], d[j].Record)
			}
		}
		dropped = append(dropped, d...)
	}
	return out, dropped
}

// bars returns the reason of the first of stages that is a Screen and
// would drop r, or "".
func bars(stages []Stage, r *Record) string {
	for _, s := range stages {
		if sc, ok := s.(Screen); ok {
			if why := sc.Bars(r); why != "" {
				return why
			}
		}
	}
	return ""
}
