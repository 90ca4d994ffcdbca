// Package nametest holds the one table of skill names that every entry
// point which selects skills by name is tested with: pipeline's Lookup
// and Load (info, the skill tool), the filter tokens of --include,
// install's skill arguments, enable and disable (package toggle) and the
// ask tool's sources. Each of those tests runs Cases through its entry
// point over Snapshot, so together they prove that a name means the same
// skills wherever it is typed (see pipeline/names.go for the rule).
package nametest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// cl and cx are the agents of the table's skills: Claude Code, which has
// plugins, and Codex.
const cl, cx = claude.HostName, codex.HostName

// Snapshot returns the scan the table is written for, with its skills'
// folders under dir (which need not exist). Every record is a skill:
//
//   - pdf, in Claude Code's project and user folders: copies, of which
//     the project one is visible (it wins by the default priority) and
//     the user one hidden as shadowed by it;
//   - codex's changelog;
//   - the plugin skills example-skills:xlsx, example-skills:review and
//     tools:review, so that the short name review is two skills;
//   - Claude Code's video-downloader, whose frontmatter says
//     youtube-downloader, and Codex's youtube-downloader: Claude Code names
//     a skill after its folder, Codex by its frontmatter, so one name is
//     the Codex skill's own and the Claude skill's alias;
//   - the plugin skill database-design:postgresql, whose frontmatter says
//     postgresql-table-design;
//   - and the disabled plugin off-plugin, whose skill secret is not
//     scanned.
//
// The records are named as the scanner names them (Record.Name, Alias
// and FolderNamed).
func Snapshot(dir string) *pipeline.Snapshot {
	rec := func(agent, name string, loc pipeline.Location, kind pipeline.Kind, plugin string) *pipeline.Record {
		d := filepath.Join(dir, agent, string(loc), strings.ReplaceAll(name, ":", "-"))
		r := &pipeline.Record{Type: pipeline.TypeSkill, Name: name, Description: "About " + name + ".", Agent: agent,
			Location: loc, Kind: kind, Root: filepath.Dir(d), Dir: d, File: filepath.Join(d, pipeline.SkillFile)}
		if plugin != "" {
			r.Plugin = &pipeline.PluginInfo{Plugin: plugin, Marketplace: "market"}
		}
		return r
	}
	project := rec(cl, "pdf", pipeline.LocationProject, pipeline.KindWorkspaceAgent, "")
	user := rec(cl, "pdf", pipeline.LocationUser, pipeline.KindUserAgent, "")
	folderNamed := func(r *pipeline.Record, alias string) *pipeline.Record {
		r.Alias, r.FolderNamed = alias, true
		return r
	}
	all := []*pipeline.Record{
		user, project,
		rec(cx, "changelog", pipeline.LocationUser, pipeline.KindUserAgent, ""),
		rec(cl, "example-skills:xlsx", pipeline.LocationPlugin, pipeline.KindPlugin, "example-skills"),
		rec(cl, "example-skills:review", pipeline.LocationPlugin, pipeline.KindPlugin, "example-skills"),
		rec(cl, "tools:review", pipeline.LocationPlugin, pipeline.KindPlugin, "tools"),
		folderNamed(rec(cl, "video-downloader", pipeline.LocationUser, pipeline.KindUserAgent, ""), "youtube-downloader"),
		rec(cx, "youtube-downloader", pipeline.LocationUser, pipeline.KindUserAgent, ""),
		folderNamed(rec(cl, "database-design:postgresql", pipeline.LocationPlugin, pipeline.KindPlugin, "database-design"),
			"database-design:postgresql-table-design"),
	}
	pipeline.AssignIDs(all)
	visible := slices.Clone(all[1:])
	drops := []pipeline.Drop{{Record: user, Stage: "include", By: project,
		Reason: "shadowed by " + project.ID + " (higher priority root kind)"}}
	snap := pipeline.NewSnapshot(all, visible, drops, nil, nil)
	snap.Disabled = []pipeline.DisabledPlugin{{Provider: cl, Plugin: "off-plugin", Marketplace: "market",
		Settings: filepath.Join(dir, "settings.json"), Skills: []string{"secret"}}}
	return snap
}

// Case is a name and the skills it designates in Snapshot.
type Case struct {
	Name string
	// IDs are the ids of the skills Name designates: one for a name that
	// resolves, several for a name that designates each of them alike (a
	// short name two plugins share), which resolving one refuses as
	// ambiguous, listing them; none for a name that designates nothing.
	IDs []string
	// Hidden is set when the skill is hidden (the copy that lost the
	// dedupe): a name still reaches it, but a source never offers it.
	Hidden bool
	// Error is what the error for a name that designates nothing says:
	// that its plugin is disabled, or a close name.
	Error []string
	// Selects, when set, are the ids of the skills a filter token of Name
	// selects, where they are more than IDs: a bare name selects every
	// skill that answers to it as a name, one skill's own name and
	// another's alias alike, while resolving it chooses the skill whose
	// own name it is.
	Selects []string
}

// Cases are the names of the README's "Ids, names and filters" over
// Snapshot: ids, full, provider-qualified, plugin and short names, case
// aside, an ambiguous short name, a name of a disabled plugin and a typo.
var Cases = []Case{
	{Name: "pdf", IDs: []string{cl + "@project:pdf"}},
	{Name: "PDF", IDs: []string{cl + "@project:pdf"}},
	{Name: cl + "@project:pdf", IDs: []string{cl + "@project:pdf"}},
	{Name: cl + "@user:pdf", IDs: []string{cl + "@user:pdf"}, Hidden: true},
	{Name: "changelog", IDs: []string{cx + ":changelog"}},
	{Name: strings.ToUpper(cx) + ":Changelog", IDs: []string{cx + ":changelog"}},
	{Name: "example-skills:xlsx", IDs: []string{cl + ":@example-skills:xlsx"}},
	{Name: "@example-skills:xlsx", IDs: []string{cl + ":@example-skills:xlsx"}},
	{Name: cl + ":@example-skills:xlsx", IDs: []string{cl + ":@example-skills:xlsx"}},
	{Name: "xlsx", IDs: []string{cl + ":@example-skills:xlsx"}},
	{Name: cl + ":xlsx", IDs: []string{cl + ":@example-skills:xlsx"}},
	{Name: "tools:review", IDs: []string{cl + ":@tools:review"}},
	{Name: "review", IDs: []string{cl + ":@example-skills:review", cl + ":@tools:review"}},
	// A skill answers to the name its host shows (Claude Code: its
	// folder's) and to its other name, the frontmatter's, in every form
	// (its id under that name included); a name that is one skill's own
	// and another's alias chooses the skill whose own it is.
	{Name: "video-downloader", IDs: []string{cl + ":video-downloader"}},
	{Name: cl + ":youtube-downloader", IDs: []string{cl + ":video-downloader"}},
	{Name: "youtube-downloader", IDs: []string{cx + ":youtube-downloader"},
		Selects: []string{cx + ":youtube-downloader", cl + ":video-downloader"}},
	{Name: "database-design:postgresql", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: "postgresql", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: "database-design:postgresql-table-design", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: cl + ":@database-design:postgresql-table-design", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: "@database-design:postgresql-table-design", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: "postgresql-table-design", IDs: []string{cl + ":@database-design:postgresql"}},
	{Name: "off-plugin:secret", Error: []string{"off-plugin", "disabled"}},
	{Name: "pfd", Error: []string{"pdf"}},
}

// Resolve runs every case through resolve, an entry point that resolves
// a name to one skill, over a Snapshot of its own, and checks with
// CheckResolved the ids of the skills it chose or its error.
func Resolve(t *testing.T, resolve func(snap *pipeline.Snapshot, name string) ([]string, error)) {
	t.Helper()
	run(t, resolve, Case.CheckResolved)
}

// Select is Resolve for an entry point that selects every skill a name
// designates, checked with CheckSelected.
func Select(t *testing.T, sel func(snap *pipeline.Snapshot, name string) ([]string, error)) {
	t.Helper()
	run(t, sel, Case.CheckSelected)
}

func run(t *testing.T, entry func(*pipeline.Snapshot, string) ([]string, error), check func(Case, testing.TB, []string, error)) {
	t.Helper()
	snap := Snapshot(t.TempDir())
	for _, c := range Cases {
		ids, err := entry(snap, c.Name)
		check(c, t, ids, err)
	}
}

// CheckResolved checks what an entry point that resolves a name to one
// skill made of c.Name: the ids of the skills it chose, or its error.
// With one skill, ids must be it; with several, err must name each; with
// none, err must say what c.Error says.
func (c Case) CheckResolved(t testing.TB, ids []string, err error) {
	t.Helper()
	if len(c.IDs) == 1 {
		if err != nil || !slices.Equal(ids, c.IDs) {
			t.Errorf("%q chose %v (error %v), want %v", c.Name, ids, err, c.IDs)
		}
		return
	}
	want := c.Error
	if len(c.IDs) > 1 {
		want = append([]string{"ambiguous"}, c.IDs...)
	}
	c.checkError(t, ids, err, want)
}

// CheckSelected checks what an entry point that selects every skill a
// name designates (a filter token) made of c.Name: with skills, ids must
// be all of them, in any order; with none, err must say what c.Error
// says.
func (c Case) CheckSelected(t testing.TB, ids []string, err error) {
	t.Helper()
	if len(c.IDs) == 0 {
		c.checkError(t, ids, err, c.Error)
		return
	}
	want := c.IDs
	if c.Selects != nil {
		want = c.Selects
	}
	got, want := slices.Sorted(slices.Values(ids)), slices.Sorted(slices.Values(want))
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("%q selected %v (error %v), want %v", c.Name, ids, err, want)
	}
}

func (c Case) checkError(t testing.TB, ids []string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%q chose %v, want an error saying %q", c.Name, ids, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(w)) {
			t.Errorf("%q: error %q does not say %q", c.Name, err, w)
		}
	}
}
