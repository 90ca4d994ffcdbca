package integration

// Tests against MCP clients nobody on this project wrote, installed from
// npm by package realhost (skipped with a message when npm or its
// registry is unreachable): the official conformance suite
// (@modelcontextprotocol/conformance, its stable release and the newest
// on the registry) against `ccski mcp --transport http` on the fixture
// tree testdata/conformance, each failure either listed by name in
// testdata/conformance-expected with why a skills server cannot pass it,
// or a test failure; and the conformance table of docs/protocol.md,
// generated from the same run (-update rewrites it).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ccski/ccski/integration/machine"
	"github.com/ccski/ccski/integration/realhost"
)

var update = flag.Bool("update", false, "rewrite the conformance table of docs/protocol.md and the screenshots in docs/img (web_browser_test.go) from this run")

// conformanceTree copies testdata/conformance, the fixture tree the
// conformance suite and the Inspector run on: skills with nested
// folders, a binary file, an empty file and an executable script, a
// --skill-dir folder besides the user's, and a slash command (a prompt).
// Tests run in Workspace, an empty folder, with HOME and --user-dir Home.
func conformanceTree(t *testing.T) *machine.Machine {
	t.Helper()
	registerSourcesOnce(t)
	root := filepath.Join(t.TempDir(), "tree")
	if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "conformance"))); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	m := &machine.Machine{
		Root:      root,
		Home:      filepath.Join(root, "home"),
		Workspace: filepath.Join(root, "work"),
		DocsDir:   filepath.Join(root, "skills"),
	}
	if err := os.MkdirAll(m.Workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return m
}

// toolEnv is the environment of a Node tool: a throwaway HOME (the
// Inspector keeps a catalogue there) and nothing of the developer's.
func toolEnv(home string) []string {
	return []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8", "NO_COLOR=1"}
}

// suiteCheck is one check of a scenario, as checks.json holds it.
type suiteCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO, SKIPPED
	ErrorMessage string `json:"errorMessage"`
}

// failed reports whether the suite counts the check against the server:
// a warning counts as a failure in its baseline check.
func (c suiteCheck) failed() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

// scenarioResult is what one scenario gave.
type scenarioResult struct {
	Scenario string
	Checks   []suiteCheck
}

// failing returns the ids of the scenario's failed checks, in order,
// each once, and the first message of each.
func (s scenarioResult) failing() (ids []string, msgs map[string]string) {
	msgs = map[string]string{}
	for _, c := range s.Checks {
		if !c.failed() {
			continue
		}
		if _, seen := msgs[c.ID]; !seen {
			ids = append(ids, c.ID)
			msgs[c.ID] = c.Status + ": " + firstNonEmpty(c.ErrorMessage, c.Description)
		}
	}
	return ids, msgs
}

// passed reports whether the check id ran and never failed.
func (s scenarioResult) passed(id string) bool {
	ran := false
	for _, c := range s.Checks {
		if c.ID != id {
			continue
		}
		if c.failed() {
			return false
		}
		ran = ran || c.Status == "SUCCESS"
	}
	return ran
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// baselineEntry is one entry of a baseline: a whole scenario (Check empty)
// or one check of it, and why a skills server cannot pass it.
type baselineEntry struct {
	Scenario, Check, Reason string
}

func (e baselineEntry) String() string {
	if e.Check == "" {
		return e.Scenario
	}
	return e.Scenario + ":" + e.Check
}

// readBaseline reads an expected-failures file: `server:` and a list of
// "scenario" or "scenario:check" entries, each with its reason in a
// comment after it on the same line.
func readBaseline(data []byte) ([]baselineEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping with the key server")
	}
	top := doc.Content[0]
	if len(top.Content) != 2 || top.Content[0].Value != "server" || top.Content[1].Kind != yaml.SequenceNode {
		return nil, errors.New("want exactly one key, server, holding a list")
	}
	var out []baselineEntry
	seen := map[string]bool{}
	for _, n := range top.Content[1].Content {
		if n.Kind != yaml.ScalarNode || n.Value == "" {
			return nil, fmt.Errorf("line %d: an entry is a scenario or scenario:check", n.Line)
		}
		reason := strings.TrimSpace(strings.TrimPrefix(n.LineComment, "#"))
		if reason == "" {
			return nil, fmt.Errorf("line %d: %s has no reason: add one after it, as `# why a skills server cannot pass it`", n.Line, n.Value)
		}
		e := baselineEntry{Reason: reason}
		e.Scenario, e.Check, _ = strings.Cut(n.Value, ":")
		if seen[n.Value] {
			return nil, fmt.Errorf("line %d: %s is listed twice", n.Line, n.Value)
		}
		seen[n.Value] = true
		out = append(out, e)
	}
	for _, e := range out {
		if e.Check != "" && seen[e.Scenario] {
			return nil, fmt.Errorf("%s is listed whole and %s too: keep one", e.Scenario, e)
		}
	}
	return out, nil
}

// judge compares the results of a suite with its baseline and returns
// the problems: a failed check the baseline does not list (with its id
// and message), an entry that passes now (a stale baseline), and an
// entry naming a scenario that did not run.
func judge(results []scenarioResult, base []baselineEntry) []string {
	whole := map[string]baselineEntry{}
	checks := map[string]map[string]baselineEntry{}
	for _, e := range base {
		if e.Check == "" {
			whole[e.Scenario] = e
			continue
		}
		if checks[e.Scenario] == nil {
			checks[e.Scenario] = map[string]baselineEntry{}
		}
		checks[e.Scenario][e.Check] = e
	}
	var problems []string
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.Scenario] = true
		ids, msgs := r.failing()
		if _, ok := whole[r.Scenario]; ok {
			if len(ids) == 0 {
				problems = append(problems, fmt.Sprintf("stale baseline: %s passes now (%d checks): remove it", r.Scenario, len(r.Checks)))
			}
			continue
		}
		listed := checks[r.Scenario]
		for _, id := range ids {
			if _, ok := listed[id]; !ok {
				problems = append(problems, fmt.Sprintf("unexpected failure: %s:%s: %s", r.Scenario, id, msgs[id]))
			}
		}
		for id := range listed {
			if r.passed(id) {
				problems = append(problems, fmt.Sprintf("stale baseline: %s:%s passes now: remove it", r.Scenario, id))
			}
		}
	}
	for _, e := range base {
		if !ran[e.Scenario] {
			problems = append(problems, fmt.Sprintf("baseline lists %s, a scenario this run did not run", e))
		}
	}
	slices.Sort(problems)
	return slices.Compact(problems)
}

// savedLine is how the suite names the folder of a scenario's results.
var savedLine = regexp.MustCompile(`Results saved to (.+)$`)

// scenarioFolder is the name of that folder: server-<scenario>-<time>.
var scenarioFolder = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// suiteRun is one invocation of a conformance suite (the Node script
// script) against url with the baseline file and args, and what it gave.
type suiteRun struct {
	argv []string
	dir  string // the -o folder
	out  []byte
	code int
	err  error // it could not be run
}

// runSuite runs the invocation with its results in out and home as HOME.
func runSuite(tools *realhost.MCPTools, script, url, baseline, out, home string, args ...string) suiteRun {
	r := suiteRun{dir: out}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	r.argv = tools.Command(script, append([]string{"server", "--url", url, "--expected-failures", baseline, "-o", out}, args...)...)
	cmd := exec.CommandContext(ctx, r.argv[0], r.argv[1:]...)
	cmd.Env = toolEnv(home)
	r.out, r.err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		r.code, r.err = ee.ExitCode(), nil
	}
	return r
}

// results returns the scenarios' results in the order they ran, read
// from the folders the output names.
func (r suiteRun) results(t *testing.T) []scenarioResult {
	t.Helper()
	if r.err != nil {
		t.Fatalf("running %s: %v", strings.Join(r.argv, " "), r.err)
	}
	var results []scenarioResult
	sc := bufio.NewScanner(strings.NewReader(string(r.out)))
	for sc.Scan() {
		m := savedLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		name := scenarioFolder.FindStringSubmatch(filepath.Base(m[1]))
		if name == nil {
			t.Fatalf("the suite saved results in %s, which names no scenario", m[1])
		}
		data, err := os.ReadFile(filepath.Join(m[1], "checks.json"))
		if err != nil {
			t.Fatal(err)
		}
		res := scenarioResult{Scenario: name[1]}
		if err := json.Unmarshal(data, &res.Checks); err != nil {
			t.Fatalf("%s: %v", filepath.Join(m[1], "checks.json"), err)
		}
		results = append(results, res)
	}
	if len(results) == 0 {
		t.Fatalf("%s ran no scenario (exit %d):\n%s", strings.Join(r.argv, " "), r.code, r.out)
	}
	return results
}

// suiteVersion is one version of the conformance suite, its baseline
// and its run: one invocation with suite's arguments (none: the active
// server scenarios), then one per scenario of scenarios, all at once
// (the suite takes one --scenario per invocation, and none beside
// --requirements).
type suiteVersion struct {
	pkg       string // npm spec
	script    string
	baseline  string // under testdata/conformance-expected
	suite     []string
	scenarios []string
}

func (v suiteVersion) version() string { return v.pkg[strings.LastIndex(v.pkg, "@")+1:] }

// invocations returns the arguments of each invocation, as the table
// shows them.
func (v suiteVersion) invocations() [][]string {
	out := [][]string{v.suite}
	for _, s := range v.scenarios {
		out = append(out, []string{"--scenario", s})
	}
	return out
}

// suiteVersions are the versions run: the stable release's active
// server scenarios, and the newest release's 2026-07-28 requirements and
// Skills Extension (SEP-2640) scenarios.
func suiteVersions(tools *realhost.MCPTools) []suiteVersion {
	return []suiteVersion{
		{pkg: realhost.StableSuitePackage, script: tools.Stable},
		{pkg: realhost.AlphaSuitePackage, script: tools.Alpha, suite: []string{"--requirements", "2026-07-28"},
			scenarios: []string{"sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"}},
	}
}

// versionResult is what one version of the suite gave.
type versionResult struct {
	v        suiteVersion
	base     []baselineEntry
	results  []scenarioResult
	problems []string
	complete bool // every invocation ran and was read
}

// TestConformance runs the official conformance suite, both versions,
// against `ccski mcp --transport http` on the fixture tree: every
// scenario and check passes but those the version's baseline lists (each
// needs a fixture a skills server cannot have: the suite's test tools,
// test:// resources and prompts, the Tasks extension), and every listed
// one still fails. The conformance table of docs/protocol.md is the one
// this run gives (-update rewrites it).
func TestConformance(t *testing.T) {
	t.Parallel()
	tools := realhost.InstallMCPTools(t)
	m := conformanceTree(t)
	srv := startHTTP(t, m, nil, "--transport", "http")
	url := srv.base + "/mcp"
	var all []versionResult
	for _, v := range suiteVersions(tools) {
		v.baseline = filepath.Join("testdata", "conformance-expected", v.version()+".yaml")
		vr := versionResult{v: v}
		t.Run(v.version(), func(t *testing.T) {
			data, err := os.ReadFile(v.baseline)
			if err != nil {
				t.Fatal(err)
			}
			if vr.base, err = readBaseline(data); err != nil {
				t.Fatalf("%s: %v", v.baseline, err)
			}
			abs, err := filepath.Abs(v.baseline)
			if err != nil {
				t.Fatal(err)
			}
			runs := []suiteRun{runSuite(tools, v.script, url, abs, t.TempDir(), t.TempDir(), v.suite...)}
			each := make([]suiteRun, len(v.scenarios))
			var wg sync.WaitGroup
			for i, sc := range v.scenarios {
				out, home := t.TempDir(), t.TempDir()
				wg.Go(func() { each[i] = runSuite(tools, v.script, url, abs, out, home, "--scenario", sc) })
			}
			wg.Wait()
			var outputs []string
			suiteFailed := false
			for _, r := range append(runs, each...) {
				vr.results = append(vr.results, r.results(t)...)
				outputs = append(outputs, string(r.out))
				suiteFailed = suiteFailed || r.code != 0
			}
			vr.problems, vr.complete = judge(vr.results, vr.base), true
			for _, p := range vr.problems {
				t.Error(p)
			}
			if suiteFailed && len(vr.problems) == 0 {
				t.Errorf("the suite failed its baseline check where this test found nothing wrong:\n%s", strings.Join(outputs, "\n"))
			}
			if t.Failed() {
				t.Logf("server's stderr:\n%s", srv.stderr)
			}
		})
		if !vr.complete {
			// Stopped early, or filtered out by -run: no table to compare.
			return
		}
		all = append(all, vr)
	}
	checkProtocolDoc(t, conformanceTable(all))
}

// The markers around the generated table in docs/protocol.md.
const (
	tableStart = "<!-- conformance table: generated by `go test ./integration -run TestConformance -update`; do not edit -->"
	tableEnd   = "<!-- end of the conformance table -->"
)

// checkProtocolDoc compares the conformance table of docs/protocol.md
// with table, or with -update writes table there.
func checkProtocolDoc(t *testing.T, table string) {
	t.Helper()
	path := filepath.Join("..", "docs", "protocol.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, tableStart), strings.Index(doc, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("docs/protocol.md has no conformance table between %q and %q", tableStart, tableEnd)
	}
	got := doc[i+len(tableStart) : j]
	want := "\n" + table
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(tableStart)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote the conformance table of docs/protocol.md")
		return
	}
	t.Errorf("docs/protocol.md's conformance table is not what this run gave: run "+
		"`go test ./integration -run TestConformance -update` and commit it. This run gives:\n%s", table)
}

// conformanceTable renders the results as Markdown: per version, how it
// was run, a count, and one row per scenario with its result and, for an
// expected failure, why it is expected.
func conformanceTable(all []versionResult) string {
	var b strings.Builder
	for _, vr := range all {
		whole := map[string]string{}
		checks := map[string][]baselineEntry{}
		for _, e := range vr.base {
			if e.Check == "" {
				whole[e.Scenario] = e.Reason
			} else {
				checks[e.Scenario] = append(checks[e.Scenario], e)
			}
		}
		var runs []string
		for _, args := range vr.v.invocations() {
			runs = append(runs, "`"+strings.TrimSpace("conformance server --url … "+strings.Join(args, " "))+"`")
		}
		var rows []string
		pass, expect, fail := 0, 0, 0
		for _, r := range vr.results {
			ids, msgs := r.failing()
			var result, why string
			switch reason, listed := whole[r.Scenario]; {
			case listed && len(ids) > 0:
				result, why = "expected failure", reason
				expect++
			case listed:
				result, why = "**passes: stale baseline entry**", reason
				fail++
			default:
				var unexpected, known []string
				for _, id := range ids {
					i := slices.IndexFunc(checks[r.Scenario], func(e baselineEntry) bool { return e.Check == id })
					if i < 0 {
						unexpected = append(unexpected, "`"+id+"` ("+cell(shorten(msgs[id], 200))+")")
						continue
					}
					known = append(known, "`"+id+"`: "+checks[r.Scenario][i].Reason)
				}
				switch {
				case len(unexpected) > 0:
					result, why = "**fails**: "+strings.Join(unexpected, "; "), strings.Join(known, "<br>")
					fail++
				case len(known) > 0:
					result, why = fmt.Sprintf("passes but for %d expected check failure(s)", len(known)), strings.Join(known, "<br>")
					pass++
				default:
					result = "passes"
					pass++
				}
			}
			rows = append(rows, fmt.Sprintf("| `%s` | %s | %s |", r.Scenario, result, cell(why)))
		}
		fmt.Fprintf(&b, "\n### %s\n\nRun as %s.\n\n", "`"+vr.v.pkg+"`", strings.Join(runs, ", "))
		fmt.Fprintf(&b, "%d scenarios: %d pass, %d expected failures", len(vr.results), pass, expect)
		if fail > 0 {
			fmt.Fprintf(&b, ", **%d failing**", fail)
		}
		b.WriteString(".\n\n| scenario | result | why the failure is expected |\n|---|---|---|\n")
		b.WriteString(strings.Join(rows, "\n") + "\n")
	}
	return b.String()
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// TestReadBaseline: an entry without a reason, a duplicate, a scenario
// listed whole and by check, and another shape are refused; the reasons
// are read from the comments.
func TestReadBaseline(t *testing.T) {
	got, err := readBaseline([]byte("# head\nserver:\n  - a # needs test_a\n  - b:check-1 # needs hook x\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []baselineEntry{{"a", "", "needs test_a"}, {"b", "check-1", "needs hook x"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for name, bad := range map[string]string{
		"no reason":       "server:\n  - a\n",
		"empty reason":    "server:\n  - a #\n",
		"twice":           "server:\n  - a # x\n  - a # y\n",
		"whole and check": "server:\n  - a # x\n  - a:c # y\n",
		"client key":      "client:\n  - a # x\n",
		"two keys":        "server:\n  - a # x\nclient:\n  - b # y\n",
		"not a list":      "server: a # x\n",
		"nested":          "server:\n  - {a: b} # x\n",
	} {
		if _, err := readBaseline([]byte(bad)); err == nil {
			t.Errorf("%s: %q was accepted", name, bad)
		}
	}
}

// TestJudge: unexpected failures name the check and its message; a
// listed scenario or check that passes is stale; a warning is a failure;
// a listed check that did not run is neither; an entry naming a scenario
// that did not run is reported.
func TestJudge(t *testing.T) {
	ok := func(id string) suiteCheck { return suiteCheck{ID: id, Status: "SUCCESS"} }
	bad := func(id, status, msg string) suiteCheck { return suiteCheck{ID: id, Status: status, ErrorMessage: msg} }
	results := []scenarioResult{
		{"clean", []suiteCheck{ok("c1"), {ID: "i", Status: "INFO"}}},
		{"new-bug", []suiteCheck{ok("c1"), bad("c2", "FAILURE", "boom"), bad("c3", "WARNING", "meh")}},
		{"fixture", []suiteCheck{bad("f", "FAILURE", "unknown tool")}},
		{"fixed", []suiteCheck{ok("f")}},
		{"partly", []suiteCheck{ok("p1"), bad("p2", "FAILURE", "no hook"), ok("p3"), bad("p4", "FAILURE", "new")}},
	}
	base := []baselineEntry{
		{Scenario: "fixture"}, {Scenario: "fixed"},
		{Scenario: "partly", Check: "p2"}, {Scenario: "partly", Check: "p3"}, {Scenario: "partly", Check: "p9"},
		{Scenario: "gone"},
	}
	want := []string{
		"baseline lists gone, a scenario this run did not run",
		"stale baseline: fixed passes now (1 checks): remove it",
		"stale baseline: partly:p3 passes now: remove it",
		"unexpected failure: new-bug:c2: FAILURE: boom",
		"unexpected failure: new-bug:c3: WARNING: meh",
		"unexpected failure: partly:p4: FAILURE: new",
	}
	if got := judge(results, base); !slices.Equal(got, want) {
		t.Errorf("judge:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
