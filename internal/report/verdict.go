package report

import "fmt"

// NoLimit is the --max-warnings value that puts no limit on warnings.
const NoLimit = -1

// CheckMaxWarnings checks a --max-warnings value given by a user: NoLimit
// or a number of warnings.
func CheckMaxWarnings(n int) error {
	if n < NoLimit {
		return fmt.Errorf("--max-warnings must be -1 (no limit) or a number of warnings, not %d", n)
	}
	return nil
}

// Failed reports whether the run fails: an error, or more than
// maxWarnings warnings (NoLimit, or any negative number, means no limit).
func (r *Report) Failed(maxWarnings int) bool {
	errs, warns, _, _, _ := r.Counts()
	return errs > 0 || maxWarnings >= 0 && warns > maxWarnings
}

// Verdict is the --max-warnings verdict on a run whose report was
// printed: nil when it passes (see Failed), else failed wrapped with why
// ("validation failed: 2 errors", "...: 3 warnings, more than
// --max-warnings 1"), so that errors.Is(err, failed) holds.
func (r *Report) Verdict(maxWarnings int, failed error) error {
	if !r.Failed(maxWarnings) {
		return nil
	}
	errs, warns, _, _, _ := r.Counts()
	why := Plural(errs, "error", "errors")
	if errs == 0 {
		why = fmt.Sprintf("%s, more than --max-warnings %d", Plural(warns, "warning", "warnings"), maxWarnings)
	}
	return fmt.Errorf("%w: %s", failed, why)
}
