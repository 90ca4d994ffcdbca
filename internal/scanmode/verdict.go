package scanmode

// Verdict is the verdict of the offline security scan a policy requires of
// a skill (the policy.min_scan_verdict setting): the verdict of `ccski
// scan` on the skill's folder (report.Report.Verdict), under the
// --max-warnings the value stands for.
type Verdict string

// The verdicts, from the loosest.
const (
	// VerdictAny requires nothing of the scan.
	VerdictAny Verdict = "any"
	// VerdictNoErrors requires what `ccski scan` passes: no error-level
	// finding (the findings mcp.scan: block withholds a skill for).
	VerdictNoErrors Verdict = "no-errors"
	// VerdictNoWarnings requires what `ccski scan --max-warnings 0`
	// passes: no error- or warning-level finding.
	VerdictNoWarnings Verdict = "no-warnings"
)

// Verdicts lists the valid values of policy.min_scan_verdict, the default
// (and loosest) first, then each stricter than the one before.
func Verdicts() []string {
	return []string{string(VerdictAny), string(VerdictNoErrors), string(VerdictNoWarnings)}
}

// MaxWarnings is the --max-warnings of `ccski scan` the verdict stands
// for (-1: any number of warnings), and whether the verdict asks for a
// scan at all (VerdictAny does not).
func (v Verdict) MaxWarnings() (max int, scan bool) {
	switch v {
	case VerdictNoErrors:
		return -1, true
	case VerdictNoWarnings:
		return 0, true
	}
	return -1, false
}
