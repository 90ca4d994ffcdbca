package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/testfs"
)

// TestCodexSkillMetadata checks that a skill's agents/openai.yaml, the
// metadata Codex keeps beside SKILL.md, reaches `ccski info` and `ccski
// list --json`, and that a broken one is a warning on a skill that still
// loads. The tree is a repository with Codex repo skills in .agents/skills,
// shaped like openai/skills' curated ones.
func TestCodexSkillMetadata(t *testing.T) {
	registerSourcesOnce(t)
	base := testfs.TempDir(t)
	testfs.Write(t, base, map[string]string{
		"home/":                            "",
		"repo/.git/":                       "",
		"repo/.agents/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Create, edit and review PDF files.\n---\n# PDF\n",
		"repo/.agents/skills/pdf/agents/openai.yaml": "interface:\n  display_name: \"PDF Skill\"\n" +
			"  short_description: \"Create, edit, and review PDFs\"\n  icon_large: \"./assets/pdf.png\"\n" +
			"  default_prompt: \"Create, edit, or review this PDF.\"\npolicy:\n  allow_implicit_invocation: false\n",
		"repo/.agents/skills/pdf/assets/pdf.png":        "png",
		"repo/.agents/skills/plain/SKILL.md":            "---\nname: plain\ndescription: No metadata.\n---\n",
		"repo/.agents/skills/broken/SKILL.md":           "---\nname: broken\ndescription: Bad metadata.\n---\n",
		"repo/.agents/skills/broken/agents/openai.yaml": "interface:\n  display_name: [\n",
	})
	home, repo := filepath.Join(base, "home"), filepath.Join(base, "repo")
	vars := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LANG=C.UTF-8", "COLUMNS=80"}

	r := runBinary(t, repo, vars, "info", "--json", "pdf", "--user-dir", home)
	mustOK(t, r)
	var info struct {
		ID     string         `json:"id"`
		OpenAI map[string]any `json:"openai"`
	}
	decodeOnly(t, r, &info)
	want := map[string]any{"displayName": "PDF Skill", "shortDescription": "Create, edit, and review PDFs",
		"iconLarge":     filepath.Join(repo, ".agents", "skills", "pdf", "assets", "pdf.png"),
		"defaultPrompt": "Create, edit, or review this PDF.", "allowImplicitInvocation": false}
	if got, _ := json.Marshal(info.OpenAI); string(got) != string(mustMarshal(t, want)) {
		t.Errorf("info --json openai = %s, want %s", got, mustMarshal(t, want))
	}

	r = runBinary(t, repo, vars, "info", "pdf", "--user-dir", home, "--no-color")
	mustOK(t, r)
	for _, s := range []string{"Shown as:", "PDF Skill", "Summary:", "explicit only"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("info output lacks %q\n%s", s, r)
		}
	}

	r = runBinary(t, repo, vars, "list", "--json", "--user-dir", home)
	mustOK(t, r)
	var list []map[string]json.RawMessage
	decodeOnly(t, r, &list)
	byName := map[string]map[string]json.RawMessage{}
	for _, rec := range list {
		var name string
		_ = json.Unmarshal(rec["name"], &name)
		byName[name] = rec
	}
	if _, ok := byName["pdf"]["openai"]; !ok {
		t.Errorf("list --json: pdf has no openai key\n%s", r)
	}
	for _, name := range []string{"plain", "broken"} {
		rec, ok := byName[name]
		if !ok {
			t.Errorf("list --json lacks %s\n%s", name, r)
			continue
		}
		if _, ok := rec["openai"]; ok {
			t.Errorf("list --json: %s has an openai key", name)
		}
	}

	r = runBinary(t, repo, vars, "info", "broken", "--user-dir", home, "--no-color")
	mustOK(t, r)
	if !strings.Contains(r.stdout, "agents/openai.yaml does not decode") {
		t.Errorf("info broken does not show the openai.yaml warning\n%s", r)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
