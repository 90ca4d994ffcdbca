package pipeline

// Stage is one step of the pipeline. It receives the records that survived
// the previous stages, in order, and returns those it keeps, in the order it
// wants them, plus a Drop for every record it removes. A stage never edits a
// record.
type Stage interface {
	Name() string
	Apply(in []*Record) (out []*Record, dropped []Drop)
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
}

// Loadable reports whether the dropped record may still be served when a
// name designates it exactly: it lost a dedupe to another copy, so the
// user hid nothing. The filters drop what the user's choices hide (state,
// exclude, include) before they dedupe, so a copy that lost a dedupe
// passed every one of them. Records dropped by the user's choices are not
// loadable.
func (d Drop) Loadable() bool { return d.By != nil }

// Run applies the stages in order and returns the surviving records and
// every drop, in the order they happened. Each input record ends up either
// in out or in exactly one Drop.
func Run(stages []Stage, in []*Record) (out []*Record, dropped []Drop) {
	out = in
	for _, s := range stages {
		var d []Drop
		out, d = s.Apply(out)
		for j := range d {
			if d[j].Stage == "" {
				d[j].Stage = s.Name()
			}
		}
		dropped = append(dropped, d...)
	}
	return out, dropped
}
