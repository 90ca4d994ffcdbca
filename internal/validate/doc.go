// Package validate checks skills against the Agent Skills specification,
// Claude Code and Codex: the framing of SKILL.md, its YAML, the name,
// description and optional fields, the tree (duplicate names, disabled
// twins, lowercase skill.md, symlinks) and the Markdown body (links to
// missing files or outside the skill, length).
//
// Every finding has a stable code from the catalog (Rules), whose
// severity depends on the profile: spec, claude, codex or strict. Collect
// finds the skill files below the paths given, Run checks them (and, with
// Options.Fix, first applies the safe fixes of Fix) and returns a
// report.Report, which package report prints as text, JSON, GitHub
// workflow commands or SARIF 2.1.0 (with RuleDocs for the SARIF rule
// table). docs/validate.md documents every code.
package validate
