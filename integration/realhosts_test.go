package integration

// Tests against the real hosts, installed from npm by package realhost
// (skipped with a message when the registry is unreachable): what Claude
// Code and Codex list on a machine laid out like a real install, compared
// with what ccski says they load, and their listing budgets compared with
// package listbudget's model of them.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ccski/ccski/integration/realhost"
	"github.com/ccski/ccski/internal/hostask"
	"github.com/ccski/ccski/internal/listbudget"
)

// realEnv is the environment ccski runs with on a realhost.Machine.
func realEnv(m *realhost.Machine) []string {
	return realhost.Env(m.Home, "TZ=UTC", "COLUMNS=80")
}

// doctorHost is one host of ccski doctor --json.
type doctorHost struct {
	Host  string `json:"host"`
	Loads []struct {
		Name string `json:"name"`
		File string `json:"file"`
		Code string `json:"code"`
	} `json:"loads"`
	NotLoaded []struct {
		Name string `json:"name"`
		File string `json:"file"`
		Code string `json:"code"`
	} `json:"notLoaded"`
	Listing []struct {
		Name string `json:"name"`
		Code string `json:"code"`
	} `json:"listing"`
	AskHost *struct {
		Command   string   `json:"command"`
		OnlyHost  []string `json:"onlyHost"`
		OnlyModel []string `json:"onlyModel"`
	} `json:"askHost"`
}

// realDoctor runs ccski doctor --json with args on m and decodes it.
func realDoctor(t *testing.T, m *realhost.Machine, args ...string) (map[string]doctorHost, result) {
	t.Helper()
	r := runBinary(t, m.Project, realEnv(m), append([]string{"doctor", "--json"}, args...)...)
	if r.code > 1 {
		t.Fatalf("doctor failed\n%s", r)
	}
	var res struct {
		Hosts []doctorHost `json:"hosts"`
	}
	// With exit 1 an error object follows the result.
	if err := json.NewDecoder(strings.NewReader(r.stdout)).Decode(&res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	out := map[string]doctorHost{}
	for _, h := range res.Hosts {
		out[h.Host] = h
	}
	return out, r
}

// listedNames returns the names a host lists, sorted.
func listedNames(ls []hostask.Listed) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Name)
	}
	sort.Strings(out)
	return out
}

// TestRealCodexAgreesWithDoctor: on the real machine, the skills Codex
// 0.171.0 lists (codex debug prompt-input) are exactly those ccski doctor
// says Codex loads and lists: nested folders in, the switched-off skill
// and the explicit-only one out, the text-file link out.
func TestRealCodexAgreesWithDoctor(t *testing.T) {
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	listed := hosts.CodexListing(t, m.Home, m.Project)
	got := listedNames(listed)
	for _, want := range []string{"cx-nested", "cx-user", "installed", "winskill", "shared-user"} {
		if !slices.Contains(got, want) {
			t.Errorf("Codex does not list %s: %v", want, got)
		}
	}
	for _, not := range []string{"cx-off", "cx-explicit", "review"} {
		if slices.Contains(got, not) {
			t.Errorf("Codex lists %s", not)
		}
	}
	doc, r := realDoctor(t, m, "--agent", "codex")
	var model []string
	for _, v := range doc["codex"].Loads {
		if v.Code != "explicit-only" {
			model = append(model, v.Name)
		}
	}
	onlyHost, onlyModel := hostask.Diff(got, model)
	if len(onlyHost)+len(onlyModel) > 0 {
		t.Errorf("Codex and ccski doctor disagree: only Codex lists %v; only doctor says Codex loads %v\n%s",
			onlyHost, onlyModel, r)
	}
}

// claudeKey is the name Claude Code lists a skill by: its folder's name,
// after "plugin:" for a plugin's skill.
func claudeKey(file, name string) string {
	folder := filepath.Base(filepath.Dir(file))
	if p, _, ok := strings.Cut(name, ":"); ok {
		return p + ":" + folder
	}
	if i := strings.Index(file, string(filepath.Separator)+"cache"+string(filepath.Separator)+"mk"+string(filepath.Separator)); i >= 0 {
		rest := strings.Split(file[i+len("/cache/mk/"):], string(filepath.Separator))
		return rest[0] + ":" + folder
	}
	return folder
}

// TestRealClaudeAgreesWithDoctor: on the real machine, the skills Claude
// Code 2.1.332 lists (captured through a stand-in for its API) are
// exactly those ccski doctor says Claude Code loads, by the folder names
// Claude Code lists them under: no nested folder, nothing of the refused,
// the turned-off or the never-installed plugin, no text-file link.
func TestRealClaudeAgreesWithDoctor(t *testing.T) {
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	listed := hosts.ClaudeListing(t, m.Home, m.Project, "--model", "claude-sonnet-4-5")
	var got []string
	for _, l := range listed {
		got = append(got, l.Name)
	}
	for _, want := range []string{"review", "video-downloader", "good:alpha", "good:gfolder", "proj-top", "installed"} {
		if !slices.Contains(got, want) {
			t.Errorf("Claude Code does not list %s: %v", want, got)
		}
	}
	for _, not := range []string{"nested-user", "docx", "good:gnested", "bad:bskill", "off:oskill", "winskill", "gone"} {
		if slices.Contains(got, not) {
			t.Errorf("Claude Code lists %s", not)
		}
	}
	doc, r := realDoctor(t, m, "--agent", "claude")
	var model []string
	for _, v := range doc["claude"].Loads {
		model = append(model, claudeKey(v.File, v.Name))
	}
	// Claude Code's own bundled skills and commands are not ccski's.
	var mine []string
	for _, n := range got {
		if slices.Contains(model, n) || strings.Contains(n, ":") || isUserSkill(m, n) {
			mine = append(mine, n)
		}
	}
	onlyHost, onlyModel := hostask.Diff(mine, model)
	if len(onlyHost)+len(onlyModel) > 0 {
		t.Errorf("Claude Code and ccski doctor disagree: only Claude Code lists %v; only doctor says it loads %v\n%s",
			onlyHost, onlyModel, r)
	}
}

// isUserSkill reports whether name is a folder of the machine's personal
// or project .claude/skills.
func isUserSkill(m *realhost.Machine, name string) bool {
	for _, dir := range []string{m.Home, m.Project} {
		if _, err := os.Lstat(filepath.Join(dir, ".claude", "skills", name)); err == nil {
			return true
		}
	}
	return false
}

// TestRealCodexBudget: which descriptions Codex cuts and which skills it
// leaves out, at several context windows, are what listbudget.Codex
// predicts from the listing's names and descriptions. Where Codex leaves
// skills out, it leaves out the end of the list, as predicted, give or
// take codexDropSlack entries: its token count carries an overhead of up
// to about 20 tokens that depends on its roots table, not modelled.
func TestRealCodexBudget(t *testing.T) {
	const codexDropSlack = 3
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	full := hosts.CodexListing(t, m.Home, m.Project, "-c", "model_context_window=10000000")
	for _, ctx := range []int{20_000, 60_000, 200_000} {
		t.Run(fmt.Sprint(ctx), func(t *testing.T) {
			listed := hosts.CodexListing(t, m.Home, m.Project, "-c", fmt.Sprintf("model_context_window=%d", ctx))
			predicted := listbudget.Codex(codexEntries(full), listbudget.CodexOptions{ContextTokens: ctx})
			shown := map[string]hostask.Listed{}
			for _, l := range listed {
				shown[l.File] = l
			}
			fates := map[listbudget.Fate]int{}
			keptReal, keptModel := 0, 0
			for i, l := range full {
				got, ok := shown[l.File]
				fate := listbudget.Whole
				switch {
				case !ok:
					fate = listbudget.Dropped
				case got.Description == "" && l.Description != "":
					fate = listbudget.NameOnly
				case got.Description != l.Description:
					fate = listbudget.Cut
				}
				fates[fate]++
				if fate != listbudget.Dropped {
					if keptReal != i {
						t.Errorf("%s listed after a skill Codex left out: it leaves out the end of the list", l.Name)
					}
					keptReal++
				}
				if predicted[i].Fate != listbudget.Dropped {
					keptModel++
				}
				if fate != predicted[i].Fate && fate != listbudget.Dropped && predicted[i].Fate != listbudget.Dropped {
					t.Errorf("%s: Codex %s, listbudget %s (%d of %d characters)", l.Name, fate, predicted[i].Fate,
						predicted[i].Shown, predicted[i].Length)
				}
			}
			if d := keptReal - keptModel; d < -codexDropSlack || d > codexDropSlack {
				t.Errorf("Codex lists %d of %d skills, listbudget predicts %d", keptReal, len(full), keptModel)
			}
			t.Logf("context %d: Codex %v; lists %d, listbudget %d", ctx, fates, keptReal, keptModel)
		})
	}
}

// codexEntries turns Codex's own full listing into listbudget entries,
// with the suffix Codex writes.
func codexEntries(full []hostask.Listed) []listbudget.Entry {
	var out []listbudget.Entry
	for _, l := range full {
		out = append(out, listbudget.Entry{Name: l.Name, Description: l.Description, Suffix: " (file: " + l.Short + ")"})
	}
	return out
}

// TestRealClaudeBudget: which skills Claude Code lists by name alone is
// what listbudget.Claude predicts for the skills it lists, with a
// 200,000-token model.
func TestRealClaudeBudget(t *testing.T) {
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	full := map[string]string{}
	for _, l := range hosts.ClaudeListing(t, m.Home, m.Project, "--model", "claude-sonnet-4-5",
		"--settings", `{"skillListingBudgetFraction": 0.5}`) {
		full[l.Name] = l.Description
	}
	listed := hosts.ClaudeListing(t, m.Home, m.Project, "--model", "claude-sonnet-4-5")
	var entries []listbudget.Entry
	var names []string
	for _, l := range listed {
		if isBundled(l.Name) {
			continue
		}
		desc := full[l.Name]
		if desc == "" {
			t.Fatalf("%s listed without a description even with the budget at half the context window", l.Name)
		}
		name := l.Name
		if l.Also != "" {
			name += " (" + l.Also + ")"
		}
		entries = append(entries, listbudget.Entry{Name: name, Description: desc})
		names = append(names, l.Name)
	}
	predicted := listbudget.Claude(entries, listbudget.ClaudeOptions{ContextTokens: 200_000})
	byName := map[string]hostask.Listed{}
	for _, l := range listed {
		byName[l.Name] = l
	}
	nameOnly := 0
	for i, n := range names {
		got := listbudget.Whole
		if byName[n].Description == "" {
			got = listbudget.NameOnly
			nameOnly++
		}
		if got != predicted[i].Fate {
			t.Errorf("%s: Claude Code %s, listbudget %s", n, got, predicted[i].Fate)
		}
	}
	if nameOnly == 0 {
		t.Error("the machine's listing fits Claude Code's budget: the test proves nothing")
	}
}

// isBundled reports whether name is one of Claude Code 2.1.332's own
// skills or commands.
func isBundled(name string) bool {
	switch name {
	case "dataviz", "update-config", "keybindings-help", "code-review", "simplify", "fewer-permission-prompts",
		"loop", "claude-api", "workflow-authoring", "run", "plugin-authoring", "init", "security-review":
		return true
	}
	return false
}

// TestRealAskHost: on the real machine, once Codex has run there (it puts
// its own system skills in place on its first run), ccski doctor
// --ask-host asks Codex (codex debug prompt-input) and Claude Code (claude
// plugin list --json), and both agree with doctor's model.
func TestRealAskHost(t *testing.T) {
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	hosts.CodexListing(t, m.Home, m.Project)
	path := filepath.Dir(hosts.Codex) + string(os.PathListSeparator) + os.Getenv("PATH")
	r := runBinary(t, m.Project, realhost.Env(m.Home, "PATH="+path), "doctor", "--json", "--ask-host", "--agent", "claude,codex")
	var res struct {
		Hosts []doctorHost `json:"hosts"`
	}
	if err := json.NewDecoder(strings.NewReader(r.stdout)).Decode(&res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r)
	}
	if len(res.Hosts) != 2 {
		t.Fatalf("hosts %+v\n%s", res.Hosts, r)
	}
	for _, h := range res.Hosts {
		if h.AskHost == nil {
			t.Errorf("%s was not asked\n%s", h.Host, r)
			continue
		}
		if len(h.AskHost.OnlyHost)+len(h.AskHost.OnlyModel) > 0 {
			t.Errorf("%s (%s) differs from doctor: only the host %v, only doctor %v", h.Host, h.AskHost.Command,
				h.AskHost.OnlyHost, h.AskHost.OnlyModel)
		}
	}
}

// TestRealClaudeAfterFix: Claude Code itself does not load the skill whose
// link is a text file, and loads it once ccski doctor --fix made the link;
// and after a Claude Code session has written its bookkeeping entry for
// the plugin enabled but never installed, doctor still says it is not
// installed.
func TestRealClaudeAfterFix(t *testing.T) {
	hosts := realhost.Install(t)
	m := realhost.NewMachine(t)
	if slices.Contains(listedNames(hosts.ClaudeListing(t, m.Home, m.Project)), "winskill") {
		t.Fatal("Claude Code loads a skill through a text file")
	}
	doc, r := realDoctor(t, m, "--agent", "claude")
	found := false
	for _, v := range doc["claude"].NotLoaded {
		found = found || v.Code == "plugin-not-installed" && strings.Contains(r.stdout, "ghost@mk")
	}
	if !found {
		t.Errorf("after a Claude Code session, doctor no longer says ghost@mk is not installed\n%s", r)
	}
	mustOK(t, runBinary(t, m.Project, realEnv(m), "doctor", "--fix", "--agent", "codex"))
	if !slices.Contains(listedNames(hosts.ClaudeListing(t, m.Home, m.Project)), "winskill") {
		t.Error("Claude Code does not load winskill after doctor --fix")
	}
}
