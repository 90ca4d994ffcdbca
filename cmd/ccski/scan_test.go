package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/validate"
)

// TestScanPathFinding scans a folder that holds no skill: the finding
// about the path keeps validate's severity under the spec profile (an
// error: exit 1), is worded for a scan, and its SARIF result points at
// its rule.
func TestScanPathFinding(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb}
	cmd := newScan(a)
	cmd.SetArgs([]string{"--format", "sarif", "empty"})
	cmd.SetOut(&out)
	cmd.SetErr(&errb)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.ExecuteContext(context.Background())
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitFail || !errors.Is(err, action.ErrScanFailed) ||
		err.Error() != "security scan failed: 1 error" {
		t.Fatalf("scan of a folder without skills: %v", err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Message   struct{ Text string }
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 1 {
		t.Fatalf("not a SARIF log with one result (%v):\n%s", err, out.String())
	}
	run := log.Runs[0]
	res := run.Results[0]
	if res.RuleID != validate.CodeNoSkillFound || res.Level != "error" ||
		run.Tool.Driver.Rules[res.RuleIndex].ID != res.RuleID {
		t.Errorf("result %+v (rule %d of %d)", res, res.RuleIndex, len(run.Tool.Driver.Rules))
	}
	if !strings.HasPrefix(res.Message.Text, "no skill was found in this folder") {
		t.Errorf("message %q", res.Message.Text)
	}
}
