package mcp

import (
	"strings"
	"testing"
	"time"

	"github.com/ccski/ccski/pipeline"
)

// TestCatalogueLeavesOutExplicitOnly checks that a skill whose
// agents/openai.yaml says policy.allow_implicit_invocation: false is left
// out of the skill tool's catalogue, as Codex leaves it out of its model's
// listing, and that the tool still loads it by name.
func TestCatalogueLeavesOutExplicitOnly(t *testing.T) {
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "codex", name: "deploy", desc: "Deploy the service to production."},
		skillSpec{provider: "codex", name: "lint", desc: "Lint the code."})
	no := false
	recs[0].OpenAI = &pipeline.OpenAIMetadata{AllowImplicitInvocation: &no}
	srv := New(snapOf(recs), Options{Logger: discard()})
	ctx := testCtx(t, 10*time.Second)
	cs := connect(t, srv, "", nil)
	desc := listToolsByName(t, ctx, cs)[ToolName].Description
	if strings.Contains(desc, "deploy") || strings.Contains(desc, "Deploy the service") {
		t.Errorf("the catalogue names the explicit-only skill deploy:\n%s", desc)
	}
	if !strings.Contains(desc, "lint") {
		t.Errorf("the catalogue lacks lint:\n%s", desc)
	}
	text := resultText(t, callNamed(t, ctx, cs, ToolName, map[string]any{"name": "deploy"}))
	if !strings.Contains(text, "deploy") {
		t.Errorf("the skill tool did not load deploy by name: %s", text)
	}
}
