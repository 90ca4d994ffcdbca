package filters

import (
	"errors"
	"testing"

	"github.com/ccski/ccski/pipeline"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	all := selector{plugins: true, plugin: "*", name: "*"}
	with := func(s selector, f func(*selector)) selector { f(&s); return s }
	tests := []struct {
		in   string
		want Token
	}{
		{"auto", Token{text: "auto", sel: selector{dedupe: true}}},
		{" All ", Token{text: "All"}},
		// Whether a plain word is a provider depends on the scan (see
		// TestResolve): Parse leaves it open.
		{"codex", Token{text: "codex", form: formWord, head: "codex"}},
		{"file", Token{text: "file", sel: selector{provider: "custom"}}},
		{"FILE:Notes", Token{text: "FILE:Notes", sel: selector{provider: "custom", name: "notes"}}},
		{"codex:p*", Token{text: "codex:p*", form: formPair, head: "codex", tail: "p*"}},
		{"claude:example-skills:pdf", Token{text: "claude:example-skills:pdf", form: formPair, head: "claude",
			tail: "example-skills:pdf"}},
		{"all:pdf", Token{text: "all:pdf", sel: selector{name: "pdf"}}},
		{"auto:pd?", Token{text: "auto:pd?", sel: selector{name: "pd?", dedupe: true}}},
		{"codex@user:pdf", Token{text: "codex@user:pdf",
			sel: selector{provider: "codex", loc: pipeline.LocationUser, name: "pdf"}}},
		{"codex@project:x#2", Token{text: "codex@project:x#2",
			sel: selector{provider: "codex", loc: pipeline.LocationProject, name: "x#2"}}},
		{"cursor@project:x", Token{text: "cursor@project:x",
			sel: selector{provider: "cursor", loc: pipeline.LocationProject, name: "x"}}},
		{"file@custom:x", Token{text: "file@custom:x",
			sel: selector{provider: "custom", loc: pipeline.LocationCustom, name: "x"}}},
		{"claude@user", Token{text: "claude@user", sel: selector{provider: "claude", loc: pipeline.LocationUser}}},
		{"codex@system", Token{text: "codex@system", sel: selector{provider: "codex", loc: pipeline.LocationSystem}}},
		{"auto@project", Token{text: "auto@project", sel: selector{loc: pipeline.LocationProject, dedupe: true}}},
		{"all@user:p*", Token{text: "all@user:p*", sel: selector{loc: pipeline.LocationUser, name: "p*"}}},
		{"@plugins", Token{text: "@plugins", sel: all}},
		{"@Plugins:Doc*", Token{text: "@Plugins:Doc*",
			sel: with(all, func(s *selector) { s.plugin = "doc*" })}},
		{"@plugins:doc*:x?", Token{text: "@plugins:doc*:x?",
			sel: with(all, func(s *selector) { s.plugin, s.name = "doc*", "x?" })}},
		{"claude:@plugins", Token{text: "claude:@plugins",
			sel: with(all, func(s *selector) { s.provider = "claude" })}},
		{"@example-skills:pdf", Token{text: "@example-skills:pdf",
			sel: with(all, func(s *selector) { s.plugin, s.name = "example-skills", "pdf" })}},
		{"claude:@example-skills:pdf", Token{text: "claude:@example-skills:pdf",
			sel: with(all, func(s *selector) { s.provider, s.plugin, s.name = "claude", "example-skills", "pdf" })}},
		{"claude@plugin:@example-skills:pdf", Token{text: "claude@plugin:@example-skills:pdf",
			sel: with(all, func(s *selector) {
				s.provider, s.loc, s.plugin, s.name = "claude", pipeline.LocationPlugin, "example-skills", "pdf"
			})}},
		{"auto:@plugins", Token{text: "auto:@plugins",
			sel: with(all, func(s *selector) { s.dedupe = true })}},
		{"PDF", Token{text: "PDF", form: formWord, head: "pdf"}},
		{"cursor", Token{text: "cursor", form: formWord, head: "cursor"}},
		{"Example-Skills:PDF", Token{text: "Example-Skills:PDF", form: formPair, head: "example-skills", tail: "pdf"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(Token{}, selector{})); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
		if got.String() != tt.want.text {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, got.String(), tt.want.text)
		}
	}
}

func TestParseErrors(t *testing.T) {
	const forms = "use @plugins, @plugins:<plugin>, @plugins:<plugin>:<skill> or @<plugin>:<skill>"
	tests := []struct{ in, token, msg string }{
		{"", "", "empty filter token: use auto, all, <provider>, <provider>:<name>, @plugins or <name>"},
		{"   ", "", "empty filter token: use auto, all, <provider>, <provider>:<name>, @plugins or <name>"},
		{"@", "@", `invalid filter token "@": '@' needs a plugin name; ` + forms},
		{"@plugins:", "@plugins:", `invalid filter token "@plugins:": empty plugin or skill pattern; ` + forms},
		{"@plugins::pdf", "@plugins::pdf", `invalid filter token "@plugins::pdf": empty plugin or skill pattern; ` + forms},
		{"@plugins:a:", "@plugins:a:", `invalid filter token "@plugins:a:": empty plugin or skill pattern; ` + forms},
		{"@plugins:a:b:c", "@plugins:a:b:c", `invalid filter token "@plugins:a:b:c": too many ':' parts; ` + forms},
		{"@foo", "@foo", `invalid filter token "@foo": @foo names a plugin but no skill; use @foo:<skill>, or @plugins:foo for all its skills`},
		{"@:pdf", "@:pdf", `invalid filter token "@:pdf": empty plugin name; ` + forms},
		{"@foo:", "@foo:", `invalid filter token "@foo:": empty skill name; ` + forms},
		{"@foo:bar:baz", "@foo:bar:baz", `invalid filter token "@foo:bar:baz": too many ':' parts; ` + forms},
		{"claude@plugin:@", "claude@plugin:@", `invalid filter token "claude@plugin:@": '@' needs a plugin name; ` + forms},
		{"codex:@plugins", "codex:@plugins", `invalid filter token "codex:@plugins": only the claude provider has plugins; use @plugins or claude:@plugins`},
		{"cursor:@x:y", "cursor:@x:y", `invalid filter token "cursor:@x:y": only the claude provider has plugins; use @plugins or claude:@plugins`},
		{"codex@user:@x:y", "codex@user:@x:y", `invalid filter token "codex@user:@x:y": only the claude provider has plugins; use @plugins or claude:@plugins`},
		{":pdf", ":pdf", `invalid filter token ":pdf": nothing before ':'; use <provider>:<name>, all:<name> or a bare <name>`},
		{"codex:", "codex:", `invalid filter token "codex:": nothing after ':'; use codex for all its skills or codex:<name> for some`},
		{"codex@", "codex@", `invalid filter token "codex@": no location after '@'; valid locations: project, user, plugin, custom, system`},
		{"codex@:pdf", "codex@:pdf", `invalid filter token "codex@:pdf": no location after '@'; valid locations: project, user, plugin, custom, system`},
		{"codex@home:pdf", "codex@home:pdf", `invalid filter token "codex@home:pdf": unknown location "home"; valid locations: project, user, plugin, custom, system`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var te *TokenError
		if !errors.As(err, &te) {
			t.Errorf("Parse(%q) error = %v, want a *TokenError", tt.in, err)
			continue
		}
		if te.Token != tt.token {
			t.Errorf("Parse(%q) TokenError.Token = %q, want %q", tt.in, te.Token, tt.token)
		}
		if err.Error() != tt.msg {
			t.Errorf("Parse(%q) error:\n got %s\nwant %s", tt.in, err, tt.msg)
		}
	}
}

func TestParseList(t *testing.T) {
	toks, err := ParseList([]string{"auto, codex:foo", " pdf "})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, tok := range toks {
		texts = append(texts, tok.String())
	}
	if diff := cmp.Diff([]string{"auto", "codex:foo", "pdf"}, texts); diff != "" {
		t.Errorf("token texts (-want +got):\n%s", diff)
	}

	if toks, err := ParseList(nil); err != nil || len(toks) != 0 {
		t.Errorf("ParseList(nil) = %v, %v; want no tokens and no error", toks, err)
	}

	errs := []struct {
		in  []string
		msg string
	}{
		{[]string{"auto", "a,,b"}, `empty filter token: token 2 of "a,,b" is empty; separate tokens with single commas`},
		{[]string{" , x"}, `empty filter token: token 1 of " , x" is empty; separate tokens with single commas`},
		{[]string{"x,"}, `empty filter token: token 2 of "x," is empty; separate tokens with single commas`},
		{[]string{""}, `empty filter token: token 1 of "" is empty; separate tokens with single commas`},
		{[]string{"ok", "codex:@plugins"}, `invalid filter token "codex:@plugins": only the claude provider has plugins; use @plugins or claude:@plugins`},
	}
	for _, tt := range errs {
		_, err := ParseList(tt.in)
		var te *TokenError
		if !errors.As(err, &te) || err.Error() != tt.msg {
			t.Errorf("ParseList(%q) error:\n got %v\nwant %s", tt.in, err, tt.msg)
		}
	}
}

// TestSelect checks what each token form selects from scan(), before any
// dedupe.
func TestSelect(t *testing.T) {
	tests := []struct {
		tok  string
		want []string
	}{
		{"all", ids(scan())},
		{"auto", ids(scan())},
		{"claude", []string{"claude:pdf", "claude:@example-skills:pdf", "claude:@document-skills:docx", "claude:foo"}},
		{"CODEX", []string{"codex:PDF", "codex:foo"}},
		{"file", []string{"custom:docs:pdf"}},
		{"custom", []string{"custom:docs:pdf"}},
		{"cursor", []string{"cursor:review"}},
		{"claude:p*", []string{"claude:pdf", "claude:@example-skills:pdf"}},
		{"claude:example-skills:*", []string{"claude:@example-skills:pdf"}},
		{"codex:pdf", []string{"codex:PDF"}},
		{"cursor:rev*", []string{"cursor:review"}},
		{"all:*o*", []string{"claude:@document-skills:docx", "custom:docs:pdf", "codex:foo", "claude:foo", "gemini:codex"}},
		{"all:codex", []string{"gemini:codex"}},
		{"auto:review", []string{"cursor:review", "agents:review"}},
		{"codex@user:*", []string{"codex:foo"}},
		{"codex@project:pdf", []string{"codex:PDF"}},
		{"all@user", []string{"claude:pdf", "agents:review", "codex:foo", "gemini:codex"}},
		{"claude@project", []string{"claude:foo"}},
		{"@plugins", []string{"claude:@example-skills:pdf", "claude:@document-skills:docx"}},
		{"claude:@plugins", []string{"claude:@example-skills:pdf", "claude:@document-skills:docx"}},
		{"@plugins:doc*", []string{"claude:@document-skills:docx"}},
		{"@plugins:*:pdf", []string{"claude:@example-skills:pdf"}},
		{"@example-skills:pdf", []string{"claude:@example-skills:pdf"}},
		{"@*:docx", []string{"claude:@document-skills:docx"}},
		{"claude:@example-skills:p?f", []string{"claude:@example-skills:pdf"}},
		{"claude@plugin:@plugins", []string{"claude:@example-skills:pdf", "claude:@document-skills:docx"}},
		{"claude@user:@plugins", []string{}},
		{"pdf", []string{"claude:pdf", "codex:PDF", "claude:@example-skills:pdf", "custom:docs:pdf"}},
		{"Review", []string{"cursor:review", "agents:review"}},
		{"codex", []string{"codex:PDF", "codex:foo"}},
		{"example-skills:pdf", []string{"claude:@example-skills:pdf"}},
		{"docs:*", []string{"custom:docs:pdf"}},
		{"nosuch:pdf", []string{}},
		{"nosuch", []string{}},
		// A registered provider without records is a provider still.
		{"openclaw", []string{}},
		{"openclaw:*", []string{}},
		// A record id selects exactly that record, although the grammar
		// would also select the plugin pdf through its short name.
		{"claude:pdf", []string{"claude:pdf"}},
		{"CLAUDE:PDF", []string{"claude:pdf"}},
		{"custom:docs:pdf", []string{"custom:docs:pdf"}},
	}
	records := scan()
	sc := newScope(records, registered, nil)
	for _, tt := range tests {
		tok, err := Parse(tt.tok)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.tok, err)
		}
		got := ids(tok.resolve(sc).selectFrom(records))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("token %q selects (-want +got):\n%s", tt.tok, diff)
		}
	}
}

// TestDynamicProviders checks that a word is a provider exactly when the
// scan has a record of that provider.
func TestDynamicProviders(t *testing.T) {
	named := &pipeline.Record{ID: "claude:cursor", Name: "cursor", Agent: "claude", Kind: pipeline.KindUserAgent}
	cursor := &pipeline.Record{ID: "cursor:review", Name: "review", Agent: "Cursor", Kind: pipeline.KindWorkspaceAgent}
	other := &pipeline.Record{ID: "claude:review", Name: "review", Agent: "claude", Kind: pipeline.KindUserAgent}

	tests := []struct {
		name    string
		records []*pipeline.Record
		tok     string
		want    []string
	}{
		{"provider present", []*pipeline.Record{named, cursor, other}, "cursor", []string{"cursor:review"}},
		{"provider absent", []*pipeline.Record{named, other}, "cursor", []string{"claude:cursor"}},
		{"pair with provider", []*pipeline.Record{named, cursor, other}, "cursor:rev*", []string{"cursor:review"}},
		{"pair without provider", []*pipeline.Record{named, other}, "cursor:rev*", []string{}},
	}
	for _, tt := range tests {
		tok, err := Parse(tt.tok)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(tok.resolve(newScope(tt.records, nil, nil)).selectFrom(tt.records))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: %q selects (-want +got):\n%s", tt.name, tt.tok, diff)
		}
	}
}
