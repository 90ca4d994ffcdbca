// Package install puts skills on the machine and keeps the record of
// them: ccski install, update and remove.
//
// A Source (source.go) is a git repository, a local folder (a skill, a
// folder of skills, or a marketplace named by its marketplace.json), a
// marketplace Claude Code has cloned, or an HTTP source: a site's
// well-known skills index or an archive URL (http.go, index.go,
// archive.go), downloaded within Limits into a temporary folder, each
// artifact checked against its sha256: digest before it is written; its
// lock entry's Commit is that digest. Installer.Materialize makes its
// files available: a git source is fetched with the system git, one
// commit deep and without file contents (a partial clone), into a cache
// of bare repositories (git.go) and checked out sparsely into a temporary
// folder, first the files discovery reads, then (Git.Widen) each
// installed skill's folder; the others are read where they are. A folder
// or marketplace that is a git clone is pinned in the lock to its
// repository and commit (origin.go), from which a machine without it
// restores it. Update follows the history the lock recorded (history.go):
// a new commit that does not descend from the locked one (a force-push, a
// replaced repository) is refused unless Force, asked of a cache
// repository of the source's commit graph. Discover
// (discover.go) lists the skills a source offers, reading marketplaces
// with the providers' own parsers (providers/marketplace.ReadCatalog,
// providers/codexplugins.ReadCatalog), an Agent Plugins package's
// skills/ (agentplugin.go) and SKILL.md files with the discovery
// scanner; Select (select.go) picks among them by name, --all
// or the filter grammar of package filters.
//
// Installer.Install, Restore, Update and Remove (apply.go) change the
// target folders (target.go: each agent's folder in the project or user
// scope, the copy first and links after) and the Lock (lock.go), which
// records every installed skill's source, commit, targets and files in
// the manifest shape of the MCP Skills Extension. A skill is copied into
// a staging folder inside its target folder (copy.go: the files the walk
// of package manifest lists, as regular files in folders, symlinks
// followed only inside the source, never .git), validated,
// hashed and moved into place in one step. Each skill's change is a
// transaction (journal.go): a journal in ccski's user state folder says
// what it does until it is complete, and Recover, at the start of the
// next run, finishes or undoes the change of a run that was killed.
// Runs on one scope take turns on a lock file in the user state folder
// (LockRun, RunLockFile). Nothing is written outside the target folders,
// the lock, the journal, the run lock, the git cache and the temporary
// folders of HTTP sources (removed by Close).
package install
