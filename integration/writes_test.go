package integration

// Writes of other programs' settings files under concurrency: ccski runs
// that edit the same settings file at the same time each take the file's
// lock, read it again under the lock and apply their own change to what
// they read, so that no change is lost.

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestConcurrentDisablesKeepEveryChange runs several `ccski disable`
// processes at once, each switching off other skills in the same Claude
// Code settings.json and Codex config.toml, for many rounds: every
// process exits 0 and every switch is in the files afterwards.
func TestConcurrentDisablesKeepEveryChange(t *testing.T) {
	const procs, rounds = 3, 40
	tr := newSwitchTree(t)
	skills := map[string]string{}
	for i := range procs {
		skills[fmt.Sprintf("home/.claude/skills/c%d/SKILL.md", i)] = switchSkill(fmt.Sprintf("c%d", i))
		skills[fmt.Sprintf("home/.codex/skills/x%d/SKILL.md", i)] = switchSkill(fmt.Sprintf("x%d", i))
	}
	testfs.Write(t, filepath.Dir(tr.home), skills)
	settings := filepath.Join(tr.home, ".claude", "settings.json")
	config := filepath.Join(tr.home, ".codex", "config.toml")
	for round := range rounds {
		putFile(t, settings, []byte(switchClaudeSettings))
		putFile(t, config, []byte(switchCodexConfig))
		outs := make([]string, procs)
		errs := make([]error, procs)
		var wg sync.WaitGroup
		for i := range procs {
			wg.Go(func() {
				cmd := exec.Command(binary, "disable", fmt.Sprintf("c%d", i), fmt.Sprintf("x%d", i))
				cmd.Dir, cmd.Env = tr.ws, tr.env()
				out, err := cmd.CombinedOutput()
				outs[i], errs[i] = string(out), err
			})
		}
		wg.Wait()
		for i := range procs {
			if errs[i] != nil {
				t.Fatalf("round %d: disable c%d x%d: %v\n%s", round, i, i, errs[i], outs[i])
			}
		}
		got, gotConfig := string(readFile(t, settings)), string(readFile(t, config))
		for i := range procs {
			if !strings.Contains(got, fmt.Sprintf(`"c%d": "off"`, i)) {
				t.Fatalf("round %d: the switch of c%d is lost from settings.json:\n%s\noutputs:\n%s", round, i, got, strings.Join(outs, "\n"))
			}
			if !strings.Contains(gotConfig, fmt.Sprintf(`name = "x%d"`, i)) {
				t.Fatalf("round %d: the switch of x%d is lost from config.toml:\n%s\noutputs:\n%s", round, i, gotConfig, strings.Join(outs, "\n"))
			}
		}
		// The user's own settings are all still there.
		if !strings.HasPrefix(gotConfig, switchCodexConfig) || !strings.Contains(got, `"futureKey": {"nested": [1, 2, {"x": null}]}`) {
			t.Fatalf("round %d: the user's settings changed:\n%s\n%s", round, got, gotConfig)
		}
	}
}
