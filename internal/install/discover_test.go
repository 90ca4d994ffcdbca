package install

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ccski/ccski/internal/testfs"
)

// offered lists the offer's skills as "name plugin path".
func offered(o *Offer) []string {
	var out []string
	for _, c := range o.Candidates {
		out = append(out, strings.TrimSpace(c.Name+" "+c.Plugin)+" @"+c.Rel)
	}
	return out
}

// TestDiscover reads each kind of source: a Claude marketplace (its
// plugins' declared skills, not the undeclared ones, remote plugins named
// in a warning), a Codex marketplace, a single skill, a folder of skills
// without any marketplace file (which the TypeScript ccski could not
// install), and a path narrowing the source.
func TestDiscover(t *testing.T) {
	files := map[string]string{
		// A Claude marketplace: plugin a declares one skill of two, b
		// uses its skills/ folder, c is remote.
		"claude/.claude-plugin/marketplace.json": `{"name": "mk", "owner": {"name": "o"}, "plugins": [
			{"name": "a", "source": "./plugins/a", "skills": ["./skills/one"], "strict": false},
			{"name": "b", "source": "./plugins/b"},
			{"name": "c", "source": {"source": "github", "repo": "o/c"}}]}`,
		"claude/plugins/a/skills/one/SKILL.md":   skill("one"),
		"claude/plugins/a/skills/other/SKILL.md": skill("other"),
		"claude/plugins/b/skills/two/SKILL.md":   skill("two"),
		// A Codex marketplace.
		"codex/.agents/plugins/marketplace.json": `{"name": "cx", "plugins": [
			{"name": "notes", "source": {"source": "local", "path": "./plugins/notes"}}]}`,
		"codex/plugins/notes/.codex-plugin/plugin.json": `{"name": "notes", "skills": "./extra"}`,
		"codex/plugins/notes/skills/jot/SKILL.md":       skill("jot"),
		"codex/plugins/notes/extra/read/SKILL.md":       skill("read"),
		// A folder of skills, one broken.
		"folder/skills/pdf/SKILL.md":     skill("pdf"),
		"folder/skills/docx/SKILL.md":    skill("docx"),
		"folder/more/deep/xlsx/SKILL.md": skill("xlsx"),
		"folder/skills/broken/SKILL.md":  "no frontmatter",
		"single/SKILL.md":                skill("single"),
		"single/refs/x.md":               "x",
		"empty/README.md":                "nothing",
		// A folder of skills whose marketplace lists plugins that are not
		// there: read as the folder of skills it is.
		"stale/.claude-plugin/marketplace.json": `{"name": "st", "owner": {"name": "o"}, "plugins": [
			{"name": "gone1", "source": "./plugins/gone1"}, {"name": "gone2", "source": "./plugins/gone2"}]}`,
		"stale/alpha/SKILL.md": skill("alpha"),
		"stale/beta/SKILL.md":  skill("beta"),
	}
	base := testfs.TempDir(t)
	testfs.Write(t, base, files)
	tests := []struct {
		name, root, sub string
		what            string
		want            []string
		warn            string
		err             string
	}{
		{name: "claude marketplace", root: "claude", what: "marketplace mk",
			want: []string{"one a @plugins/a/skills/one", "two b @plugins/b/skills/two"}, warn: "elsewhere (c)"},
		{name: "claude marketplace file", root: "claude", sub: ".claude-plugin/marketplace.json", what: "marketplace mk",
			want: []string{"one a @plugins/a/skills/one", "two b @plugins/b/skills/two"}},
		{name: "codex marketplace", root: "codex", what: "Codex marketplace cx",
			want: []string{"jot notes @plugins/notes/skills/jot", "read notes @plugins/notes/extra/read"}},
		{name: "folder of skills", root: "folder", what: "folder of skills",
			want: []string{"docx @skills/docx", "pdf @skills/pdf", "xlsx @more/deep/xlsx"}, warn: "skills/broken/SKILL.md"},
		{name: "narrowed to a folder", root: "folder", sub: "skills/pdf", what: "skill", want: []string{"pdf @skills/pdf"}},
		{name: "narrowed to a SKILL.md", root: "folder", sub: "more/deep/xlsx/SKILL.md", what: "skill", want: []string{"xlsx @more/deep/xlsx"}},
		{name: "single skill", root: "single", what: "skill", want: []string{"single @."}},
		{name: "missing path", root: "folder", sub: "nope", err: "path nope does not exist in the source"},
		{name: "path to another file", root: "single", sub: "refs/x.md", err: "no SKILL.md or marketplace.json"},
		{name: "nothing", root: "empty", err: "no skill found"},
		{name: "marketplace whose sources are missing", root: "stale", what: "folder of skills",
			want: []string{"alpha @alpha", "beta @beta"},
			warn: ".claude-plugin/marketplace.json lists 2 plugin sources that do not exist (gone1, gone2)"},
		{name: "marketplace file named, sources missing", root: "stale", sub: ".claude-plugin/marketplace.json",
			err: "2 plugin sources that do not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Discover(context.Background(), base+"/"+tt.root, tt.sub)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Discover = %v, want an error holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.What != tt.what {
				t.Errorf("What = %q, want %q", o.What, tt.what)
			}
			if diff := cmp.Diff(tt.want, offered(o)); diff != "" {
				t.Errorf("offer mismatch (-want +got):\n%s", diff)
			}
			// Each skill is chosen by its names, a plugin's also as
			// plugin:name and @plugin:name, as its installed copy would be.
			for _, c := range o.Candidates {
				names := []string{c.Name}
				if c.Plugin != "" {
					names = append(names, c.Plugin+":"+c.Name, "@"+c.Plugin+":"+c.Name)
				}
				for _, n := range names {
					if got, err := Select("src", o, Selection{Names: []string{n}}); err != nil || len(got) != 1 || got[0].Rel != c.Rel {
						t.Errorf("Select(%q) = %v, %v; want the skill at %s", n, got, err, c.Rel)
					}
				}
			}
			if tt.warn != "" && !strings.Contains(strings.Join(o.Warnings, "\n"), tt.warn) {
				t.Errorf("warnings %q lack %q", o.Warnings, tt.warn)
			}
		})
	}
}

// TestSelect chooses by name (or plugin:name), --all, --include and
// --exclude, takes a single skill without a choice, and refuses several
// skills without one, listing them.
func TestSelect(t *testing.T) {
	o := &Offer{Candidates: []Candidate{
		{Name: "docx", Plugin: "office", Dir: "/s/docx"}, {Name: "pdf", Plugin: "office", Dir: "/s/pdf"},
		{Name: "xlsx", Dir: "/s/xlsx"},
	}}
	tests := []struct {
		name string
		sel  Selection
		want []string
		err  string
	}{
		{"names", Selection{Names: []string{"PDF", "office:docx", "pdf"}}, []string{"pdf", "docx"}, ""},
		{"all", Selection{All: true}, []string{"docx", "pdf", "xlsx"}, ""},
		{"include glob", Selection{Include: []string{"all:*x"}}, []string{"docx", "xlsx"}, ""},
		{"exclude", Selection{Exclude: []string{"pdf"}}, []string{"docx", "xlsx"}, ""},
		{"plugin", Selection{Include: []string{"@plugins:office"}}, []string{"docx", "pdf"}, ""},
		{"no choice", Selection{}, nil, "offers 3 skills: name the ones to install"},
		{"unknown name", Selection{Names: []string{"pfd"}}, nil, "did you mean pdf"},
		{"unknown filter", Selection{Include: []string{"nosuch"}}, nil, "nosuch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select("src", o, tt.sel)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Select = %v, want an error holding %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, c := range got {
				names = append(names, c.Name)
			}
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("selection mismatch (-want +got):\n%s", diff)
			}
		})
	}
	one := &Offer{Candidates: o.Candidates[:1]}
	if got, err := Select("src", one, Selection{}); err != nil || len(got) != 1 {
		t.Errorf("a single skill is not taken: %v, %v", got, err)
	}
}
