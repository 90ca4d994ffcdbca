package pipeline

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// lookupSnapshot is a snapshot whose hidden records were dropped for every
// kind of reason Lookup tells apart.
//
//	pdf:        claude@project:pdf visible; claude@user:pdf lost the dedupe
//	            to it (loadable); codex:pdf excluded by the user
//	lint:       custom:lint visible; codex@user:lint and codex@project:lint
//	            both lost to it ("codex:lint" names both)
//	fmt:        claude:fmt visible; agents:fmt excluded by the user, so it
//	            never met its copy in a dedupe
//	xlsx:       claude:xlsx not selected by --include; the visible plugin
//	            skill claude:@doc-tools:xlsx answers to "claude:xlsx" too
//	deploy:     a visible skill and a visible command share the name
//	setup:      the commands of two plugins, both visible
//	review:     the command claude@plugin:/@tools:review#2 lost to its
//	            copy from another marketplace
//	docx:       a plugin skill and a local skill, both visible
//	superpowers is disabled in the settings; it has the skills
//	            brainstorming and pdf and the commands write-plan and review
//	ideas       is disabled too; it also has a skill brainstorming, and a
//	            command in a sub-folder, frontend:review
func lookupSnapshot(t *testing.T) (*Snapshot, map[string]*Record) {
	t.Helper()
	plugin := func(name, market string) *PluginInfo { return &PluginInfo{Plugin: name, Marketplace: market} }
	cmd := func(rec *Record) *Record { rec.Type = TypeCommand; return rec }
	all := []*Record{
		{Name: "pdf", Agent: "claude", Location: LocationProject},
		{Name: "pdf", Agent: "claude", Location: LocationUser},
		{Name: "pdf", Agent: "codex", Location: LocationUser},
		{Name: "lint", Agent: "custom", Location: LocationCustom},
		{Name: "lint", Agent: "codex", Location: LocationUser},
		{Name: "lint", Agent: "codex", Location: LocationProject},
		{Name: "fmt", Agent: "agents", Location: LocationUser},
		{Name: "fmt", Agent: "claude", Location: LocationUser},
		{Name: "xlsx", Agent: "claude", Location: LocationUser},
		{Name: "doc-tools:xlsx", Agent: "claude", Location: LocationPlugin, Plugin: plugin("doc-tools", "m1")},
		{Name: "deploy", Agent: "claude", Location: LocationProject},
		cmd(&Record{Name: "deploy", Agent: "claude", Location: LocationProject}),
		cmd(&Record{Name: "ship-mate:setup", Agent: "claude", Location: LocationPlugin, Plugin: plugin("ship-mate", "m1")}),
		cmd(&Record{Name: "conductor:setup", Agent: "claude", Location: LocationPlugin, Plugin: plugin("conductor", "m2")}),
		cmd(&Record{Name: "tools:review", Agent: "claude", Location: LocationPlugin, Plugin: plugin("tools", "m1")}),
		cmd(&Record{Name: "tools:review", Agent: "claude", Location: LocationPlugin, Plugin: plugin("tools", "m2")}),
		{Name: "document-skills:docx", Agent: "claude", Location: LocationPlugin, Plugin: plugin("document-skills", "m1")},
		{Name: "docx", Agent: "claude", Location: LocationProject},
	}
	AssignIDs(all)
	by := map[string]*Record{}
	for _, r := range all {
		by[r.ID] = r
	}
	hidden := map[*Record]Drop{}
	lose := func(id, winner string) {
		hidden[by[id]] = Drop{Record: by[id], Stage: "include", By: by[winner],
			Reason: "shadowed by " + winner + " (higher priority)"}
	}
	drop := func(id, stage, reason string) {
		hidden[by[id]] = Drop{Record: by[id], Stage: stage, Reason: reason}
	}
	lose("claude@user:pdf", "claude@project:pdf")
	drop("codex:pdf", "exclude", "excluded by --exclude codex")
	lose("codex@user:lint", "custom:lint")
	lose("codex@project:lint", "custom:lint")
	drop("agents:fmt", "exclude", "excluded by --exclude agents")
	drop("claude:xlsx", "include", "not selected by --include @plugins")
	lose("claude@plugin:/@tools:review#2", "claude@plugin:/@tools:review")
	var visible []*Record
	var drops []Drop
	for _, r := range all {
		if d, ok := hidden[r]; ok {
			drops = append(drops, d)
		} else {
			visible = append(visible, r)
		}
	}
	s := NewSnapshot(all, visible, drops, nil, nil)
	s.Disabled = []DisabledPlugin{
		{Provider: "claude", Plugin: "superpowers", Marketplace: "m", Settings: "/h/.claude/settings.json",
			Skills: []string{"brainstorming", "pdf"}, Commands: []string{"review", "write-plan"}},
		{Provider: "claude", Plugin: "ideas", Marketplace: "m2", Settings: "/w/.claude/settings.local.json",
			Skills: []string{"brainstorming"}, Commands: []string{"frontend:review"}},
	}
	return s, by
}

// TestLoad checks which record a name serves, for the skill tool and
// prompts/get, and the error when it serves none.
func TestLoad(t *testing.T) {
	s, by := lookupSnapshot(t)
	tests := []struct {
		name  string
		query string
		typ   Type
		want  string // the id loaded; "" for an error
		// err is the error's type ("hidden", "ambiguous", "not-found",
		// "disabled") and has what its message must hold.
		err string
		has []string
	}{
		{"visible by name", "pdf", TypeSkill, "claude@project:pdf", "", nil},
		{"a dedupe loser by its id", "CLAUDE@user:pdf", TypeSkill, "claude@user:pdf", "", nil},
		{"an excluded copy by its id", "codex:pdf", TypeSkill, "", "hidden",
			[]string{`skill "codex:pdf" is hidden: excluded by --exclude codex`}},
		{"a name only hidden copies answer to", "codex:lint", TypeSkill, "", "ambiguous",
			[]string{"codex@user:lint (hidden: shadowed by custom:lint", "codex@project:lint (hidden: shadowed by custom:lint"}},
		{"one of those copies by its id", "codex@project:lint", TypeSkill, "codex@project:lint", "", nil},
		{"an excluded copy of a visible skill", "agents:fmt", TypeSkill, "", "hidden",
			[]string{`skill "agents:fmt" is hidden: excluded by --exclude agents`}},
		{"an id wins over a visible alias", "claude:xlsx", TypeSkill, "", "hidden",
			[]string{"not selected by --include @plugins"}},
		{"the plugin skill by its plugin name", "doc-tools:xlsx", TypeSkill, "claude:@doc-tools:xlsx", "", nil},
		{"a plugin skill beside a local one", "document-skills:docx", TypeSkill, "claude:@document-skills:docx", "", nil},
		{"the local one by its name", "docx", TypeSkill, "claude:docx", "", nil},
		{"a skill never answers for a command", "deploy", TypeCommand, "claude:/deploy", "", nil},
		{"a command never answers for a skill", "claude:/deploy", TypeSkill, "", "not-found", nil},
		{"a plugin command", "ship-mate:setup", TypeCommand, "claude:/@ship-mate:setup", "", nil},
		{"the other plugin's command", "conductor:setup", TypeCommand, "claude:/@conductor:setup", "", nil},
		{"two plugins' commands by short name", "setup", TypeCommand, "", "ambiguous",
			[]string{"claude:/@ship-mate:setup", "claude:/@conductor:setup"}},
		{"a plugin command by its plugin name", "tools:review", TypeCommand, "claude@plugin:/@tools:review", "", nil},
		{"its copy from another marketplace by id", "claude@plugin:/@tools:review#2", TypeCommand,
			"claude@plugin:/@tools:review#2", "", nil},
		{"a disabled plugin's skill", "superpowers:brainstorming", TypeSkill, "", "disabled",
			[]string{`"superpowers:brainstorming" is not available: plugin superpowers is disabled (enable it in /h/.claude/settings.json enabledPlugins: "superpowers@m": true)`}},
		{"a disabled plugin's skill by id", "claude:@Superpowers:brainstorming", TypeSkill, "", "disabled",
			[]string{"plugin superpowers is disabled"}},
		{"a disabled plugin's command by id", "claude@plugin:/@superpowers:plan", TypeCommand, "", "disabled",
			[]string{"plugin superpowers is disabled"}},
		{"a bare name is no plugin's", "superpowers", TypeSkill, "", "not-found", nil},
		{"a disabled plugin's skill by its bare name", "Brainstorming", TypeSkill, "", "disabled",
			[]string{`"Brainstorming" is not available: it names the skill superpowers:brainstorming, but plugin superpowers ` +
				`is disabled (enable it in /h/.claude/settings.json enabledPlugins: "superpowers@m": true); ` +
				`it names the skill ideas:brainstorming, but plugin ideas is disabled (enable it in ` +
				`/w/.claude/settings.local.json enabledPlugins: "ideas@m2": true)`}},
		{"a disabled plugin's skill by provider and name", "claude:brainstorming", TypeSkill, "", "disabled",
			[]string{"the skill superpowers:brainstorming, but plugin superpowers is disabled"}},
		{"another provider's name is not the plugin's", "codex:brainstorming", TypeSkill, "", "not-found", nil},
		{"a disabled plugin's command by its bare name", "write-plan", TypeCommand, "", "disabled",
			[]string{`"write-plan" is not available: it names the command /superpowers:write-plan, but plugin superpowers is disabled`}},
		{"a command in a sub-folder by its name in the plugin", "frontend:review", TypeCommand, "", "disabled",
			[]string{"the command /ideas:frontend:review, but plugin ideas is disabled"}},
		{"a disabled plugin's command never answers for a skill", "write-plan", TypeSkill, "", "not-found", nil},
		{"a visible skill wins over a disabled plugin's", "pdf", TypeSkill, "claude@project:pdf", "", nil},
		{"a visible command wins over a disabled plugin's", "review", TypeCommand, "claude@plugin:/@tools:review", "", nil},
		{"a typo suggests visible skills only", "pdff", TypeSkill, "", "not-found", []string{"claude@project:pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Load(tt.query, tt.typ)
			if tt.want != "" {
				if err != nil || got != by[tt.want] {
					t.Fatalf("Load(%q) = %v, %v; want %s", tt.query, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load(%q) = %s, want an error", tt.query, got.ID)
			}
			var (
				hidden *HiddenError
				amb    *AmbiguousError
				nf     *NotFoundError
				off    *PluginDisabledError
			)
			kind := map[bool]string{errors.As(err, &hidden): "hidden", errors.As(err, &amb): "ambiguous",
				errors.As(err, &nf): "not-found", errors.As(err, &off): "disabled"}[true]
			if kind != tt.err {
				t.Errorf("Load(%q) error %T %v, want %s", tt.query, err, err, tt.err)
			}
			for _, h := range tt.has {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("Load(%q) = %q, want it to hold %q", tt.query, err, h)
				}
			}
		})
	}
}

// TestLookupAny checks the one rule `ccski info` shares with the skill
// tool: a skill wins over a same-named command, commands answer when no
// skill does, and a hidden record is found with why it is hidden, even one
// the tools would not serve.
func TestLookupAny(t *testing.T) {
	s, _ := lookupSnapshot(t)
	tests := []struct {
		query, want, hidden string
	}{
		{"deploy", "claude:deploy", ""},
		{"claude:/deploy", "claude:/deploy", ""},
		{"ship-mate:setup", "claude:/@ship-mate:setup", ""},
		{"codex:pdf", "codex:pdf", "excluded by --exclude codex"},
		{"claude@user:pdf", "claude@user:pdf", "shadowed by claude@project:pdf (higher priority)"},
		{"agents:fmt", "agents:fmt", "excluded by --exclude agents"},
	}
	for _, tt := range tests {
		f, err := s.LookupAny(tt.query)
		if err != nil || f.Record.ID != tt.want || f.Hidden() != tt.hidden {
			t.Errorf("LookupAny(%q) = %+v, %v; want %s hidden %q", tt.query, f, err, tt.want, tt.hidden)
		}
		// The skill tool agrees whenever the answer is a skill.
		if !f.Record.IsCommand() {
			g, err := s.Lookup(tt.query, TypeSkill)
			if err != nil || g.Record != f.Record {
				t.Errorf("Lookup(%q, skill) = %+v, %v; LookupAny found %s", tt.query, g, err, f.Record.ID)
			}
		}
	}
	_, err := s.LookupAny("depoly")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !slices.Contains(nf.Suggestions, "claude:deploy") || !slices.Contains(nf.Suggestions, "claude:/deploy") {
		t.Errorf("LookupAny(depoly) = %v; want the skill and the command suggested", err)
	}
	for query, want := range map[string]string{
		"superpowers:x": `"superpowers:x" is not available: plugin superpowers is disabled`,
		"write-plan":    "it names the command /superpowers:write-plan, but plugin superpowers is disabled",
		"brainstorming": "it names the skill superpowers:brainstorming, but plugin superpowers is disabled",
	} {
		if _, err := s.LookupAny(query); !strings.Contains(fmtErr(err), want) {
			t.Errorf("LookupAny(%s) = %v, want it to hold %q", query, err, want)
		}
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
