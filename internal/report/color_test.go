package report

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// wrapper is a writer over another, as safetext.Writer is.
type wrapper struct{ w io.Writer }

func (w wrapper) Write(p []byte) (int, error) { return w.w.Write(p) }
func (w wrapper) Unwrap() io.Writer           { return w.w }

// TestColorOn: colour needs a terminal (a character device: /dev/null
// stands in for one), found through wrapping writers, and neither
// --no-color nor NO_COLOR.
func TestColorOn(t *testing.T) {
	dev, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	t.Setenv("NO_COLOR", "")
	tests := []struct {
		name    string
		w       io.Writer
		noColor bool
		want    bool
	}{
		{"a character device", dev, false, true},
		{"through a wrapper", wrapper{wrapper{dev}}, false, true},
		{"--no-color", dev, true, false},
		{"a pipe", pw, false, false},
		{"a buffer", &bytes.Buffer{}, false, false},
	}
	for _, tt := range tests {
		if got := ColorOn(tt.w, tt.noColor); got != tt.want {
			t.Errorf("%s: ColorOn = %v, want %v", tt.name, got, tt.want)
		}
	}
	t.Setenv("NO_COLOR", "1")
	if ColorOn(dev, false) {
		t.Error("NO_COLOR is ignored")
	}
}

func TestStyle(t *testing.T) {
	on, off := Style(true), Style(false)
	if got := on.Red("x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("Red = %q", got)
	}
	if got := on.Heading("h"); got != "\x1b[1;4mh\x1b[0m" {
		t.Errorf("Heading = %q", got)
	}
	if got := on.Bold(""); got != "" {
		t.Errorf("empty text gets codes: %q", got)
	}
	if got := off.Red("x") + off.Severity(SeverityError); got != "xerror" {
		t.Errorf("colour off: %q", got)
	}
	for sev, code := range map[Severity]string{SeverityError: "31", SeverityWarning: "33", SeverityInfo: "36"} {
		if got := on.Severity(sev); got != "\x1b["+code+"m"+string(sev)+"\x1b[0m" {
			t.Errorf("Severity(%s) = %q", sev, got)
		}
	}
}
