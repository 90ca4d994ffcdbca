// Package report is ccski's one findings and output layer: the finding
// type and its severities, the report of a run with its counts and its
// --max-warnings verdict, the printers of the text, JSON, GitHub and
// SARIF formats, the ANSI colours of every command, the names of files as
// a person reads them (relative to the folder ccski runs in), and the one
// unified-diff writer every --dry-run prints with.
//
// ccski validate and ccski scan fill a Report (their rule tables, each a
// Catalog found by code, hand their rules to the SARIF printer as
// RuleDocs); enable, disable, profile
// use, install-workflow and validate --fix print their changes with Diff.
//
// The package stands low in the house: it imports the standard library
// and internal/suggest only, so that every package that finds something
// can report it without importing another that finds things.
package report
