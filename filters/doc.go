// Package filters turns the user's --state, --include, --exclude and
// --priority choices into pipeline stages that decide which discovered
// skills are visible.
//
// # Stages
//
// Build returns four stages (see Stages), applied in this order:
//
//  1. State keeps enabled skills (the default), disabled skills (a folder
//     holding .SKILL.md) or both.
//  2. Exclude drops every record any of its tokens matches, and every
//     record in the same folder as one of those (a skill reached through
//     a symlinked root is that skill, not another copy). It never
//     dedupes: a bare name removes every copy of that skill. It runs
//     before the dedupes, so excluding the copy that would win a skill
//     (by id, provider or location) promotes the next copy, as if the
//     excluded one were not installed.
//  3. Include keeps the union of the selections of its tokens, in token
//     order. With no include token the list is "auto". A deduping token
//     (auto, auto:<glob> or a bare name) keeps one copy of each skill within
//     its own selection: the copy that wins by Priority. So
//     --include=auto,codex:foo shows the auto winner of every skill and,
//     in addition, codex's foo. A record dropped here either lost a dedupe
//     (the Drop names the winner and why it won) or was selected by no
//     token.
//  4. PathDedupe drops a record whose resolved folder was already kept,
//     such as one skill reached through two symlinked roots.
//
// Every removed record is reported as a pipeline.Drop with a reason. The
// user's choices (state, exclude) apply before any dedupe, so a copy that
// lost a dedupe passed them all, and it is still served when a name
// designates it exactly (pipeline.Snapshot.Load); a record the user's
// choices drop is not.
//
// # Tokens
//
// Tokens are comma-separated within a flag value and the flags repeat. They
// are matched case-insensitively. A glob is anchored; '*' matches any run of
// characters and '?' one character; nothing else is special. A name glob
// matches when it matches either the full name ("example-skills:pdf") or
// the short name ("pdf").
//
//	auto                        every skill, deduped
//	all                         every skill, no dedupe
//	<provider>                  every skill of one provider; file = custom
//	<provider>:<glob>           that provider's skills whose name matches
//	all:<glob>, auto:<glob>     any provider; auto dedupes
//	<provider>@<loc>:<glob>     also only at location project, user, plugin,
//	                            custom or system; all@ and auto@ work too, and the
//	                            ":<glob>" part may be left out
//	@plugins                    every plugin skill
//	@plugins:<plugin>           the skills of the plugins matching the glob
//	@plugins:<plugin>:<skill>   ... whose short name matches the skill glob
//	@<plugin>:<skill>           one plugin-qualified skill (globs allowed)
//	claude:@...                 the same as @... (only claude has plugins)
//	<name>                      that skill from any provider or plugin (by
//	                            name or short name); include keeps the
//	                            winner of each qualified name, exclude
//	                            removes every copy
//	<x>:<glob>                  with x not a provider: the full name, as in
//	                            example-skills:pdf or a scoped docs:pdf
//	<record id>                 exactly that record, e.g. claude@user:pdf or
//	                            codex@project:x#2
//
// Whether a word is a provider depends on the scan: the names the
// registered providers give their records (custom, project, agents,
// claude, codex, gemini, openclaw, ...; the engine passes them in
// Settings.Providers, since this package does not know the registry) and
// every provider present in the records, such as a discovered cursor, are
// providers; a provider name wins over a skill of the same name (use
// all:<name> for the skill). A token equal to a record id always selects
// exactly that record, before the grammar is consulted, so every id the
// list command prints can be pasted as a token.
//
// A token that names nothing in the scan (a *TokenError with suggestions
// from the provider, plugin and skill names), in include and exclude
// alike, is an error rather than a filter that silently selects nothing:
// a bare word or an <x>:<glob> pair that is no provider and matches no
// record's id, name or short name (--include codx); a <provider>@<loc>
// token whose provider is neither registered nor carried by a record; and
// a plugin token whose plugin glob matches no plugin of the scan
// (@plugins:nonexist), or whose skill glob matches no skill or command of
// the plugins it matches. A plugin that is installed but disabled in the
// settings (Settings.Disabled) has no records: an include token naming it
// is told so, with the settings file to enable it in, while an exclude
// token may name it, since what it hides is hidden already. A token whose
// grammar fixes its meaning otherwise (auto, all, claude:<glob>,
// @plugins) is never unknown, since a provider may have no skills today.
//
// Whether such a token fails Build is the caller's choice, per list
// (Settings.LenientInclude, Settings.LenientExclude): the engine makes
// the lists from a config file lenient, since a shared ccski.yaml may name
// a skill that some machines lack, and BuildReport lists the tokens that
// name nothing, for a warning.
//
// # Priority
//
// Copies of one skill share a DedupeKey, the lower-cased fully qualified
// name (see pipeline.Record.DedupeKey), so PDF and pdf are copies, and so
// are one plugin's skill or command installed from two marketplaces. The
// same-named commands or skills of two plugins are not copies, nor is a
// plugin skill of a local skill of the same short name, nor a scoped
// docs:pdf of pdf: Claude Code keeps each plugin's names apart. Commands
// are grouped apart from skills, by their whole name ("frontend:review"
// and "backend:review" are two commands). The winner has the
// higher-priority root kind
// (custom first by default, then project, workspace-agent, ...), as its
// provider's precedence places it: a provider whose rule prefers its user
// copies (Claude, by default) has them ranked just above every workspace
// kind (see Priority and pipeline.Precedence); then the
// nearer workspace (smaller Depth); then the newer SKILL.md; then the
// earlier provider in the order of Settings.Providers (the registry's:
// custom, project, agents, then the agents alphabetically), other
// providers following alphabetically; then the smaller folder path, so
// the choice is always deterministic.
package filters
