package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/integration/machine"
)

// The local pdf copies of the machine, in their default order: Claude's
// personal copy wins (providers.claude.precedence: user), then the
// workspace copy, then Codex's.
const (
	pdfUser      = "claude@user:pdf"
	pdfWorkspace = "claude@project:pdf"
	pdfCodex     = "codex:pdf"
)

// TestExcludePromotesNextCopy checks that the exclude filter runs before
// the dedupe: excluding the copy that would win a skill, by id or by
// provider, shows the next copy instead of hiding the skill, a bare name
// still hides every copy, and the copies a dedupe then drops are served by
// name while the excluded one is refused with its reason.
func TestExcludePromotesNextCopy(t *testing.T) {
	m := newMachine(t)
	localPDFs := func(args ...string) []string {
		var out []string
		for _, r := range listRecords(t, m, args...) {
			if r.Name == "pdf" && r.PluginInfo == nil {
				out = append(out, r.ID)
			}
		}
		return out
	}
	tests := []struct {
		exclude string
		want    []string
	}{
		{"", []string{pdfUser}},
		{pdfUser, []string{pdfWorkspace}},
		{"claude@user", []string{pdfWorkspace}},
		{"claude", []string{pdfCodex}},
		{pdfUser + "," + pdfWorkspace, []string{pdfCodex}},
		{"pdf", nil},
	}
	for _, tt := range tests {
		var args []string
		if tt.exclude != "" {
			args = append(args, "--exclude="+tt.exclude)
		}
		if got := localPDFs(args...); !slices.Equal(got, tt.want) {
			t.Errorf("list --exclude=%s shows the local pdf copies %q, want %q", tt.exclude, got, tt.want)
		}
	}

	// skills/team-notes-link is a symlink to .agents/skills/team-notes:
	// the same skill, excluded with it rather than promoted.
	for _, r := range listRecords(t, m, "--all", "--exclude=agents@project:team-notes") {
		if r.Name == "team-notes" {
			t.Errorf("--exclude=agents@project:team-notes lists %s, the same folder reached through a symlink", r.ID)
		}
	}

	// Why each copy is hidden, as ccski info tells it.
	hidden := func(id string) string {
		r := run(t, m, "info", id, "--json", "--exclude="+pdfUser)
		mustOK(t, r)
		var got struct {
			Hidden string `json:"hidden"`
		}
		decodeOnly(t, r, &got)
		return got.Hidden
	}
	if got, want := hidden(pdfUser), "excluded by --exclude "+pdfUser; got != want {
		t.Errorf("info %s: hidden %q, want %q", pdfUser, got, want)
	}
	if got := hidden(pdfCodex); !strings.HasPrefix(got, "shadowed by "+pdfWorkspace+" (") {
		t.Errorf("info %s: hidden %q, want shadowed by %s", pdfCodex, got, pdfWorkspace)
	}

	// The skill tool serves the promoted copy and the copy it shadows, and
	// refuses the excluded one.
	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil, "--exclude="+pdfUser)
	entries, _ := mustListSkills(t, ctx, s.cs)
	if ids := entryIDs(entries); !slices.Contains(ids, pdfWorkspace) || slices.Contains(ids, pdfUser) {
		t.Errorf("catalogue %q: want %s and not %s", ids, pdfWorkspace, pdfUser)
	}
	for _, id := range []string{pdfWorkspace, pdfCodex} {
		if _, err := loadSkill(ctx, s.cs, id); err != nil {
			t.Errorf("skill %s: %v", id, err)
		}
	}
	if msg := loadError(t, ctx, s.cs, pdfUser); !strings.Contains(msg, "excluded by --exclude "+pdfUser) {
		t.Errorf("skill %s: %q, want it refused as excluded", pdfUser, msg)
	}
	s.mustExit0(t, mcpTimeout)
}

// teamOnly is a skill a team's ccski.yaml excludes and this machine lacks.
const teamOnly = "team-internal-skill"

// withProjectFilters appends filter keys to the workspace's ccski.yaml, as
// a team would commit them.
func withProjectFilters(t *testing.T, m *machine.Machine, yaml string) {
	t.Helper()
	path := filepath.Join(m.Workspace, "ccski.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, yaml...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfigFilterTokenNamingNothing checks that a project ccski.yaml
// whose filters name a skill, provider or plugin this machine lacks breaks
// no command: the other tokens still apply, ccski sources shows a warning
// for each such token, and ccski mcp serves and logs it. The same token
// typed as a flag or a variable is still a usage error.
func TestConfigFilterTokenNamingNothing(t *testing.T) {
	m := newMachine(t)
	withProjectFilters(t, m, "exclude: ["+teamOnly+", shared-notes, codx@user]\ninclude: [auto, \"@plugins:nonexist\"]\n")

	recs := listRecords(t, m)
	for _, r := range recs {
		if r.Name == "shared-notes" {
			t.Errorf("%s listed; the file's other exclude tokens must still apply", r.ID)
		}
	}
	if !slices.ContainsFunc(recs, func(r record) bool { return r.ID == pdfUser }) {
		t.Errorf("the auto include token of the file no longer selects %s", pdfUser)
	}

	r := run(t, m, "sources")
	mustOK(t, r)
	for _, w := range []string{
		`[filter-names-nothing]`,
		`exclude: invalid filter token "` + teamOnly + `": it names no provider, plugin, skill or command`,
		`exclude: invalid filter token "codx@user": unknown provider "codx"; did you mean codex?`,
		`include: invalid filter token "@plugins:nonexist": no installed plugin is named nonexist`,
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("ccski sources does not say %q\n%s", w, r)
		}
	}
	r = run(t, m, "sources", "--json")
	mustOK(t, r)
	var rep struct {
		Diagnostics []struct{ Severity, Code, Message string } `json:"diagnostics"`
	}
	decodeOnly(t, r, &rep)
	var warned []string
	for _, d := range rep.Diagnostics {
		if d.Code == "filter-names-nothing" && d.Severity == "warning" {
			warned = append(warned, d.Message)
		}
	}
	if len(warned) != 3 {
		t.Errorf("sources --json: %d filter-names-nothing warnings, want 3: %q", len(warned), warned)
	}

	// validate discovers with the same filters: its exit code is the
	// machine's, whatever the file names.
	base := newMachine(t)
	if got, want := run(t, m, "validate").code, run(t, base, "validate").code; got != want {
		t.Errorf("validate exits %d with the team's filters, %d without", got, want)
	}

	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"list", "--exclude", teamOnly}},
		{"variable", map[string]string{"CCSKI_EXCLUDE": teamOnly}, []string{"list"}},
	} {
		r := ccski(t, m, runOpts{env: tc.env}, std(m, tc.args...)...)
		if want := `exclude: invalid filter token "` + teamOnly + `"`; r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, want 2 with %q\n%s", tc.name, r.code, want, r)
		}
	}

	ctx := mcpContext(t)
	s := startStdio(t, ctx, m, "", nil)
	if entries, _ := mustListSkills(t, ctx, s.cs); !slices.Contains(entryIDs(entries), pdfUser) {
		t.Errorf("ccski mcp serves %q, want %s among them", entryIDs(entries), pdfUser)
	}
	s.mustExit0(t, mcpTimeout)
	for _, w := range []string{`a filter token names nothing`, teamOnly, "codx@user", "@plugins:nonexist"} {
		if !strings.Contains(s.stderr.String(), w) {
			t.Errorf("ccski mcp did not log %q\nstderr:\n%s", w, s.stderr)
		}
	}
}

// TestUserConfigFilterTokenNamingNothing checks the user config layer
// like the project one: a personal exclude list shared across machines
// breaks no command where a skill it names is missing.
func TestUserConfigFilterTokenNamingNothing(t *testing.T) {
	m := newMachine(t)
	path := filepath.Join(m.Home, ".config", "ccski", "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, "exclude: ["+teamOnly+"]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(t, m, "sources", "--json")
	mustOK(t, r)
	if !json.Valid([]byte(r.stdout)) || !strings.Contains(r.stdout, `invalid filter token \"`+teamOnly+`\"`) {
		t.Errorf("sources --json does not warn about %s\n%s", teamOnly, r)
	}
}
