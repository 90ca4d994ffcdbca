// Package security is the offline security scan of skills: ccski scan, and
// what ccski mcp does under mcp.scan. It reads one skill folder at a time
// (SKILL.md, its frontmatter and body, and every other file below it) and
// reports what a skill should not do to the agent that loads it or to the
// user who runs it: text aimed at the agent (prompt injection, fake
// framing, instructions to leak secrets or to turn safety off), text a
// person does not see (bidirectional controls, zero-width and tag
// characters, hidden Markdown), what Claude Code runs on its own
// (!`command` lines, hooks, allowed-tools that allow every command),
// bundled code (programs, code downloaded or decoded and run, encoded
// blobs), references to credentials, symlinks out of the folder, and
// folders over the manifest limits.
//
// Every rule has a stable code, a severity and a documentation row in
// docs/security-rules.md (Rules). Nothing is sent anywhere and no model
// is asked: the checks are literal anchors found in one pass over each
// text file (an Aho-Corasick automaton), then a look at the sentence or
// line around each, so that a warning against a phrase is not taken for
// the phrase. The files of a skill are the ones the walk of package
// manifest lists, the files trust records and install copies (never
// .git): it never follows a symlink out of the folder nor to a folder,
// never opens a FIFO, socket or device, and stops at the manifest limits
// (manifest.MaxFiles files, manifest.MaxBytes bytes). The scan reads at
// most 8 MiB of a text file and the first 8 KiB of a binary one.
package security
