package report

import (
	"errors"
	"testing"
)

func TestVerdict(t *testing.T) {
	failed := errors.New("validation failed")
	warns := &Report{Findings: []Finding{{Severity: SeverityWarning}, {Severity: SeverityWarning}, {Severity: SeverityInfo}}}
	errs := &Report{Findings: []Finding{{Severity: SeverityError}, {Severity: SeverityWarning}, {Severity: SeverityError}}}
	tests := []struct {
		r    *Report
		max  int
		want string // "" when the run passes
	}{
		{warns, NoLimit, ""},
		{warns, 2, ""},
		{warns, 1, "validation failed: 2 warnings, more than --max-warnings 1"},
		{warns, 0, "validation failed: 2 warnings, more than --max-warnings 0"},
		{errs, NoLimit, "validation failed: 2 errors"},
		{errs, 5, "validation failed: 2 errors"},
		{&Report{Findings: []Finding{{Severity: SeverityInfo}}}, 0, ""},
		{&Report{}, 0, ""},
	}
	for _, tt := range tests {
		err := tt.r.Verdict(tt.max, failed)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("Verdict(%d) on %v = %v, want nil", tt.max, tt.r.Findings, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, failed)):
			t.Errorf("Verdict(%d) on %v = %v, want %q wrapping failed", tt.max, tt.r.Findings, err, tt.want)
		}
		if got := tt.r.Failed(tt.max); got != (tt.want != "") {
			t.Errorf("Failed(%d) on %v = %v", tt.max, tt.r.Findings, got)
		}
	}
}

func TestCheckMaxWarnings(t *testing.T) {
	for _, n := range []int{NoLimit, 0, 7} {
		if err := CheckMaxWarnings(n); err != nil {
			t.Errorf("CheckMaxWarnings(%d) = %v", n, err)
		}
	}
	if err := CheckMaxWarnings(-2); err == nil || err.Error() != "--max-warnings must be -1 (no limit) or a number of warnings, not -2" {
		t.Errorf("CheckMaxWarnings(-2) = %v", err)
	}
}
