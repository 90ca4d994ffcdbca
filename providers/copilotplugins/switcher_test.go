package copilotplugins

import (
	"os"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/providertest"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// TestSwitcherReadsBack turns beta@git-mkt on and alpha@git-mkt off
// through the switcher, writes the files, and plans again: what the
// switcher wrote is what the plan reads, and every other byte of
// settings.json stays.
func TestSwitcherReadsBack(t *testing.T) {
	_, abs := copilotHome(t)
	env := providertest.Env(abs("home"), nil)
	p := providertest.MustNew(t, New, nil).(*Provider)
	env = env.WithHome(Name, p.Home(env))
	host := p.Host()
	if host.Name != "copilot" || host.Home(env) != abs("home/.copilot") {
		t.Fatalf("host %q with folder %q", host.Name, host.Home(env))
	}
	settings := abs("home/.copilot/settings.json")
	before, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	fs := providers.NewFilesIn(env)
	for key, on := range map[string]bool{"beta@git-mkt": true, "alpha@git-mkt": false} {
		edits, err := host.Switcher.SetPlugin(providers.PluginRequest{Env: env, Files: fs, Key: key, On: on})
		if err != nil || len(edits) != 1 || !edits[0].Changed || edits[0].File != settings {
			t.Fatalf("SetPlugin(%s, %v) = %+v, %v", key, on, edits, err)
		}
	}
	if err := fs.Write(); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(`"alpha@git-mkt": true`, `"alpha@git-mkt": false`,
		`"beta@git-mkt": false`, `"beta@git-mkt": true`).Replace(string(before))
	if string(after) != want {
		t.Errorf("settings.json:\n%s\nwant only the two values changed:\n%s", after, want)
	}
	plan := providertest.Plan(t, p, env)
	var loaded []string
	for _, r := range plan.Roots {
		loaded = append(loaded, r.Plugin.Key())
	}
	if strings.Join(loaded, " ") != "beta@git-mkt alpha@local-mkt" {
		t.Errorf("loaded after the switch: %v, want beta@git-mkt and alpha@local-mkt", loaded)
	}
	if _, err := host.Switcher.SetSkill(providers.SkillRequest{Env: env, Files: fs,
		Record: &pipeline.Record{Name: "x"}}); err == nil || !strings.Contains(err.Error(), "no skill switch") {
		t.Errorf("SetSkill: %v, want the error saying Copilot CLI has no skill switch", err)
	}
}
