package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/integration/realhost"
)

// verdictCodes maps the names of a host's not-loaded verdicts to their
// codes.
func verdictCodes(h doctorHost) map[string]string {
	out := map[string]string{}
	for _, v := range h.NotLoaded {
		out[v.Name] = v.Code
	}
	return out
}

// doctorFixed decodes the repairs of a doctor --fix --json run.
func doctorFixed(t *testing.T, r result) []struct{ Path, Error string } {
	t.Helper()
	var res struct {
		Fixed []struct{ Path, Error string } `json:"fixed"`
	}
	if err := json.NewDecoder(strings.NewReader(r.stdout)).Decode(&res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	return res.Fixed
}

// TestDoctorTextLink: on the real machine, the .claude/skills "link" that
// is a plain text file (a clone without symlinks) is a problem Claude Code
// has, with the reason and the repair; doctor --fix makes it the link,
// after which Claude Code loads the skill and doctor has nothing to say
// about it. The file outside the project is never touched.
func TestDoctorTextLink(t *testing.T) {
	m := realhost.NewMachine(t)
	hosts, r := realDoctor(t, m, "--agent", "claude")
	if r.code != 1 {
		t.Fatalf("want exit 1 for a problem the user owns\n%s", r)
	}
	if got := verdictCodes(hosts["claude"])["winskill"]; got != "link-is-text" {
		t.Fatalf("winskill: %q, want link-is-text\n%s", got, r)
	}
	link := filepath.Join(m.Project, ".claude", "skills", "winskill")
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("doctor without --fix changed %s: %v %v", link, st, err)
	}
	r = runBinary(t, m.Project, realEnv(m), "doctor", "--json", "--agent", "claude", "--fix")
	fixed := doctorFixed(t, r)
	if len(fixed) != 1 || fixed[0].Path != link || fixed[0].Error != "" {
		t.Fatalf("fixed %+v\n%s", fixed, r)
	}
	if target, err := os.Readlink(link); err != nil || target != "../../.agents/skills/winskill" {
		t.Fatalf("after --fix: %q %v", target, err)
	}
	hosts, r = realDoctor(t, m, "--agent", "claude")
	if _, ok := verdictCodes(hosts["claude"])["winskill"]; ok {
		t.Errorf("winskill still reported after --fix\n%s", r)
	}
	var loads []string
	for _, v := range hosts["claude"].Loads {
		loads = append(loads, filepath.Base(filepath.Dir(v.File)))
	}
	if !slices.Contains(loads, "winskill") {
		t.Errorf("Claude Code does not load winskill after --fix: %v", loads)
	}
}

// TestDoctorMissingLink: a link ccski install made from .claude/skills to
// the copy in .agents/skills, deleted, is reported for Claude Code as
// link-missing, naming the lock; doctor --fix makes it again.
func TestDoctorMissingLink(t *testing.T) {
	m := realhost.NewMachine(t)
	src := filepath.Join(m.Root, "src")
	if err := os.MkdirAll(filepath.Join(src, "mytool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "mytool", "SKILL.md"),
		[]byte("---\nname: mytool\ndescription: A skill installed by ccski.\n---\n# mytool\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustOK(t, runBinary(t, m.Project, realEnv(m), "install", src, "mytool"))
	link := filepath.Join(m.Project, ".claude", "skills", "mytool")
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("ccski install made no link at %s: %v %v", link, st, err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	hosts, r := realDoctor(t, m, "--agent", "claude")
	if got := verdictCodes(hosts["claude"])["mytool"]; got != "link-missing" {
		t.Fatalf("mytool: %q, want link-missing\n%s", got, r)
	}
	r = runBinary(t, m.Project, realEnv(m), "doctor", "--json", "--agent", "claude", "--fix")
	fixed := doctorFixed(t, r)
	var made bool
	for _, f := range fixed {
		made = made || f.Path == link && f.Error == ""
	}
	if !made {
		t.Fatalf("fixed %+v\n%s", fixed, r)
	}
	if _, err := os.Stat(filepath.Join(link, "SKILL.md")); err != nil {
		t.Fatalf("after --fix: %v", err)
	}
	hosts, r = realDoctor(t, m, "--agent", "claude")
	if _, ok := verdictCodes(hosts["claude"])["mytool"]; ok {
		t.Errorf("mytool still reported after --fix\n%s", r)
	}
}

// TestDoctorListingBudget: the machine's 40 personal skills of
// 409-character descriptions overflow Claude Code's budget (8,000
// characters at a 200,000-token window), and Codex's cuts the 40 in
// ~/.agents/skills: doctor names them, as listing verdicts of skills that
// still load.
func TestDoctorListingBudget(t *testing.T) {
	m := realhost.NewMachine(t)
	hosts, r := realDoctor(t, m, "--agent", "claude,codex")
	codes := func(h doctorHost) map[string]int {
		out := map[string]int{}
		for _, v := range h.Listing {
			out[v.Code]++
		}
		return out
	}
	if c := codes(hosts["claude"]); c["listing-name-only"] < 30 {
		t.Errorf("Claude Code: listing verdicts %v, want most of the 40 bulk skills name-only\n%s", c, r)
	}
	if c := codes(hosts["codex"]); c["listing-cut"] != m.Bulk {
		t.Errorf("Codex: listing verdicts %v, want the %d bulk descriptions cut\n%s", c, m.Bulk, r)
	}
}

// TestDoctorFixDryRun: doctor --fix --dry-run names the link it would
// make and writes nothing; --dry-run without --fix is a usage error.
func TestDoctorFixDryRun(t *testing.T) {
	m := realhost.NewMachine(t)
	link := filepath.Join(m.Project, ".claude", "skills", "winskill")
	r := runBinary(t, m.Project, realEnv(m), "doctor", "--agent", "claude", "--fix", "--dry-run")
	if !strings.Contains(r.stdout, "Would repair") || !strings.Contains(r.stdout, link+" -> ../../.agents/skills/winskill") {
		t.Errorf("dry run does not name the link\n%s", r)
	}
	if st, err := os.Lstat(link); err != nil || !st.Mode().IsRegular() {
		t.Fatalf("--dry-run changed %s: %v %v", link, st, err)
	}
	if r := runBinary(t, m.Project, realEnv(m), "doctor", "--dry-run"); r.code != 2 {
		t.Errorf("--dry-run without --fix: exit %d, want 2\n%s", r.code, r)
	}
}
