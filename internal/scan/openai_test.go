package scan

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
	"github.com/ccski/ccski/pipeline"
)

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// TestScanOpenAI checks what a skill's agents/openai.yaml puts in its
// record, and that every problem with the file is a warning on the skill,
// which still loads.
func TestScanOpenAI(t *testing.T) {
	const file = "s/agents/openai.yaml"
	tests := []struct {
		name   string
		files  map[string]string // besides s/SKILL.md
		plugin bool              // scan the root as a plugin's
		want   *pipeline.OpenAIMetadata
		code   string // the warning expected; "" for none
		line   int
		has    string
	}{
		{name: "no agents folder", want: nil},
		{name: "an agents folder without openai.yaml", files: map[string]string{"s/agents/other.yaml": "x: 1"}},
		{name: "every field, as Codex's curated skills write them", files: map[string]string{file: `
interface:
  display_name: "PDF Skill"
  short_description: "Create, edit, and
    review PDFs"
  icon_small: "./assets/pdf-small.svg"
  icon_large: "./assets/pdf.png"
  brand_color: "#F59E0B"
  default_prompt: "Create, edit, or review this PDF."
dependencies:
  tools:
    - type: "mcp"
      value: "pdf-tools"
policy:
  allow_implicit_invocation: false
  products: ["codex"]
`},
			want: &pipeline.OpenAIMetadata{DisplayName: "PDF Skill", ShortDescription: "Create, edit, and review PDFs",
				IconSmall: "s/assets/pdf-small.svg", IconLarge: "s/assets/pdf.png", BrandColor: "#F59E0B",
				DefaultPrompt: "Create, edit, or review this PDF.", AllowImplicitInvocation: no()}},
		{name: "only the policy", files: map[string]string{file: "policy:\n  allow_implicit_invocation: true\n"},
			want: &pipeline.OpenAIMetadata{AllowImplicitInvocation: yes()}},
		{name: "a file that says nothing usable", files: map[string]string{file: "dependencies:\n  tools: []\n"}},
		{name: "malformed YAML names its line", files: map[string]string{file: "interface:\n  display_name: [\n"},
			code: "openai-yaml-invalid", line: 2, has: "does not decode"},
		{name: "a value of the wrong type", files: map[string]string{file: "policy:\n  allow_implicit_invocation: sometimes\n"},
			code: "openai-yaml-invalid", line: 2, has: "Codex ignores it"},
		{name: "a display name over 64 characters is left out",
			files: map[string]string{file: "interface:\n  display_name: " + strings.Repeat("x", 65) + "\n  default_prompt: go\n"},
			want:  &pipeline.OpenAIMetadata{DefaultPrompt: "go"},
			code:  "openai-yaml-invalid", has: "interface.display_name is longer than 64 characters"},
		{name: "an icon outside assets/",
			files: map[string]string{file: "interface:\n  icon_small: icons/x.svg\n  display_name: X\n"},
			want:  &pipeline.OpenAIMetadata{DisplayName: "X"},
			code:  "openai-yaml-invalid", has: `"icons/x.svg" must be below the skill's assets/ folder`},
		{name: "an absolute icon", files: map[string]string{file: "interface:\n  icon_large: /etc/x.png\n"},
			code: "openai-yaml-invalid", has: "must be a path relative to the skill folder"},
		{name: "a shared icon is a problem for a local skill",
			files: map[string]string{file: "interface:\n  icon_small: ../../assets/x.svg\n"},
			code:  "openai-yaml-icon-outside", has: "leaves the skill's assets/ folder"},
		{name: "a shared icon is no problem for a plugin skill", plugin: true,
			files: map[string]string{file: "interface:\n  icon_small: ../../assets/x.svg\n"}},
		{name: "a colour Codex cannot read", files: map[string]string{file: "interface:\n  brand_color: orange\n"},
			code: "openai-yaml-invalid", has: `"orange" is not a colour`},
		{name: "a file over the cap", files: map[string]string{file: "# " + strings.Repeat("x", maxOpenAISize)},
			code: "openai-yaml-unreadable", has: "over the 64 KiB limit"},
		{name: "a folder named openai.yaml", files: map[string]string{file + "/": ""},
			code: "openai-yaml-unreadable", has: "folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := testfs.TempDir(t)
			testfs.Write(t, base, map[string]string{"s/SKILL.md": skill("s", "d")})
			testfs.Write(t, base, tt.files)
			r := root(base, "")
			if tt.plugin {
				r.Plugin = &pipeline.PluginInfo{Plugin: "p", Marketplace: "m"}
			}
			res := Scan(context.Background(), []pipeline.Root{r}, DefaultOptions())
			if len(res.Records) != 1 {
				t.Fatalf("records %v, diagnostics %v; want the skill", res.Records, res.Diagnostics)
			}
			got := res.Records[0].OpenAI
			if got != nil {
				c := *got
				c.IconSmall, c.IconLarge = rel(base, c.IconSmall), rel(base, c.IconLarge)
				got = &c
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("OpenAI (-want +got):\n%s", diff)
			}
			if tt.code == "" {
				if len(res.Diagnostics) != 0 {
					t.Errorf("unexpected diagnostics: %v", res.Diagnostics)
				}
				return
			}
			if len(res.Diagnostics) != 1 || len(res.Records[0].Diagnostics) != 1 {
				t.Fatalf("diagnostics %v (on the record: %v), want one %s", res.Diagnostics,
					res.Records[0].Diagnostics, tt.code)
			}
			d := res.Diagnostics[0]
			if d.Code != tt.code || d.Severity != pipeline.SeverityWarning || rel(base, d.Path) != file || d.Line != tt.line {
				t.Errorf("diagnostic %+v, want warning %s on %s line %d", d, tt.code, file, tt.line)
			}
			if !strings.Contains(d.Message, tt.has) {
				t.Errorf("message %q does not hold %q", d.Message, tt.has)
			}
		})
	}
}

// TestScanOpenAICache checks that a rescan reuses the reading of an
// unchanged openai.yaml and reads a changed one again.
func TestScanOpenAICache(t *testing.T) {
	base := testfs.TempDir(t)
	meta := filepath.Join(base, "s", "agents", "openai.yaml")
	testfs.Write(t, base, map[string]string{"s/SKILL.md": skill("s", "d"),
		"s/agents/openai.yaml": "interface:\n  display_name: One\n"})
	testfs.Age(t, base, time.Hour)
	roots := []pipeline.Root{root(base, "")}
	first := Scan(context.Background(), roots, DefaultOptions())
	second := Scan(context.Background(), roots, Options{Cache: first.Cache})
	if first.Records[0].OpenAI == nil || second.Records[0].OpenAI != first.Records[0].OpenAI {
		t.Errorf("an unchanged openai.yaml was read again: %p then %p", first.Records[0].OpenAI, second.Records[0].OpenAI)
	}
	testfs.Write(t, base, map[string]string{"s/agents/openai.yaml": "interface:\n  display_name: Two\n"})
	testfs.Age(t, filepath.Dir(meta), time.Minute)
	third := Scan(context.Background(), roots, Options{Cache: second.Cache})
	if got := third.Records[0].OpenAI; got == nil || got.DisplayName != "Two" {
		t.Errorf("a changed openai.yaml gave %+v, want display name Two", got)
	}
}

// BenchmarkScanOpenAI measures a scan of skills each with an
// agents/openai.yaml against one of skills without, cold and warm (with
// the cache of a previous scan).
func BenchmarkScanOpenAI(b *testing.B) {
	for _, withMeta := range []bool{false, true} {
		base := b.TempDir()
		files := map[string]string{}
		for i := range 200 {
			dir := "skills/s" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
			files[dir+"/SKILL.md"] = skill("s", "d")
			if withMeta {
				files[dir+"/agents/openai.yaml"] = "interface:\n  display_name: S\npolicy:\n  allow_implicit_invocation: false\n"
			}
		}
		testfs.Write(b, base, files)
		testfs.Age(b, base, time.Hour)
		roots := []pipeline.Root{{Path: filepath.Join(base, "skills"), Agent: "t", Location: pipeline.LocationUser,
			Kind: pipeline.KindUserAgent}}
		name := "without-openai-yaml"
		if withMeta {
			name = "with-openai-yaml"
		}
		b.Run(name+"/cold", func(b *testing.B) {
			for b.Loop() {
				Scan(context.Background(), roots, Options{NoCache: true})
			}
		})
		warm := Scan(context.Background(), roots, DefaultOptions()).Cache
		b.Run(name+"/warm", func(b *testing.B) {
			for b.Loop() {
				Scan(context.Background(), roots, Options{Cache: warm})
			}
		})
	}
}
