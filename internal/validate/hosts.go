package validate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/problems"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/claude"
	"github.com/ccski/ccski/providers/codex"
)

// HostRules is the rule set one host applies to the skills it reads: the
// host's label (providers.Host.Name: claude, codex, gemini, ...) and the
// profile that says what its loader accepts.
type HostRules struct {
	Host    string  `json:"host"`
	Profile Profile `json:"profile"`
}

// HostProfile returns the profile of host's skill loader, by its label:
// ProfileClaude for Claude Code and ProfileCodex for Codex, each checked
// against the real client (docs/validate.md). own is false for a host
// ccski has no profile of (Gemini CLI, Cursor, Copilot): ProfileSpec, the
// contract every agent is promised, stands in for it.
func HostProfile(host string) (p Profile, own bool) {
	switch host {
	case claude.HostName:
		return ProfileClaude, true
	case codex.HostName:
		return ProfileCodex, true
	}
	return ProfileSpec, false
}

// RulesOf returns the rules of the hosts among hosts that ccski has a
// profile of, in order, each once. A host without one is judged only
// where no host with one reads the same folder: then the spec stands in,
// under the first host's name. (Of those, Gemini CLI's loader was read:
// it needs a name and a description and ignores every other key, so the
// spec would refuse for it what it loads, such as a version: key.)
func RulesOf(hosts []string) []HostRules {
	var out []HostRules
	for _, h := range hosts {
		if p, own := HostProfile(h); own && !slices.ContainsFunc(out, func(r HostRules) bool { return r.Host == h }) {
			out = append(out, HostRules{Host: h, Profile: p})
		}
	}
	if len(out) == 0 && len(hosts) > 0 {
		out = append(out, HostRules{Host: hosts[0], Profile: ProfileSpec})
	}
	return out
}

// RecordRules returns the rules that decide whether the hosts reading r
// load it: one per host that reads its root on its own (Record.Hosts: a
// Claude Code folder, Codex's folders, the shared .agents/skills read by
// Codex and Gemini CLI: see RulesOf), else the host its agent label names
// (a Claude Code plugin's skills are Claude Code's, a Codex plugin's
// Codex's). It returns nil for a skill no host with a profile reads
// without ccski (custom skill folders, ccski's project folders, a Gemini
// CLI extension): the caller's profile applies. This and RootRules are
// the one place that says which profiles apply to a record or a root; use
// HostProfile for one host.
func RecordRules(r *pipeline.Record) []HostRules { return readerRules(r.Hosts, r.Agent) }

// RootRules is RecordRules for the records found under root.
func RootRules(root *pipeline.Root) []HostRules { return readerRules(root.Hosts, root.Agent) }

// readerRules returns the rules of hosts, else of the host agent names
// when it is one ccski has a profile of, else nil.
func readerRules(hosts []string, agent string) []HostRules {
	if len(hosts) > 0 {
		return RulesOf(hosts)
	}
	if _, own := HostProfile(agent); own {
		return RulesOf([]string{agent})
	}
	return nil
}

// Loader is what one host's skill loader refuses, as checked against the
// real client (hostfacts H6-H8, docs/validate.md): of the errors under
// the host's profile, only those it refuses keep a skill out; a skill
// with another error loads, read as well as the host can. This is the
// one place that says what a host really refuses; hostview (doctor),
// install and validate read it here.
type Loader struct {
	// Profile is the profile of the host's name and frontmatter rules.
	Profile Profile
	// Own is false for a host ccski has no profile of: the spec stands in
	// for it, and every error under it counts as refused.
	Own bool
	// MaxSkillFile is the size over which the host skips a SKILL.md, in
	// bytes; 0 means it has no limit (Codex loaded one of 11 MB).
	MaxSkillFile int64
	// refuses are the errors the host refuses, by code and, where only
	// one field's error is refused, that field.
	refuses []refusal
}

// refusal is one error a host refuses: code, in field when field is set.
type refusal struct{ code, field string }

// HostLoader returns what host's loader refuses, by its label.
func HostLoader(host string) Loader {
	p, own := HostProfile(host)
	l := Loader{Profile: p, Own: own}
	switch host {
	case claude.HostName:
		// Claude Code 2.1.332 loads a SKILL.md of 1,000,000 bytes and
		// skips one of 1,000,001; it loads every skill it finds a SKILL.md
		// for, however broken its frontmatter (tabs, duplicate keys, YAML
		// that does not parse, no frontmatter at all): it refuses none.
		l.MaxSkillFile = 1_000_000
	case codex.HostName:
		// Codex 0.171.0 drops a skill without frontmatter, with an unclosed
		// one, a blank line or a byte order mark before it, tabs or a
		// duplicate key in it, a missing, empty or non-text description, or
		// a name over 64 characters; it loads one without a name (the
		// folder's), with an unquoted colon, a typed value, a list-valued
		// compatibility or a long description (cut).
		for _, c := range []string{problems.NoFrontmatter, problems.UnclosedFrontmatter, problems.LeadingBlankLine,
			problems.ByteOrderMark, problems.YAMLTab, problems.DuplicateKey, problems.DescriptionMissing,
			problems.DescriptionEmpty, problems.NameTooLong} {
			l.refuses = append(l.refuses, refusal{code: c})
		}
		l.refuses = append(l.refuses, refusal{code: problems.WrongType, field: "description"})
	}
	return l
}

// Refuses reports whether the host keeps a skill out for f, an error
// under its profile.
func (l Loader) Refuses(f report.Finding) bool {
	if !l.Own {
		return true
	}
	return slices.ContainsFunc(l.refuses, func(r refusal) bool {
		return r.code == f.Code && (r.field == "" || r.field == f.Field)
	})
}

// Verdict is what one host's rules say of a skill: the errors under its
// profile that the host refuses (Errors), those it loads the skill with
// all the same (Flaws), and the SKILL.md's size when the host skips a
// file that large (Oversize; 0 when not).
type Verdict struct {
	HostRules
	Errors   []report.Finding
	Flaws    []report.Finding
	Oversize int64
	loader   Loader
}

// Rejects reports whether the host would not load the skill.
func (v Verdict) Rejects() bool { return len(v.Errors) > 0 || v.Oversize > 0 }

// Reasons returns why the host does not load the skill, each "code:
// message".
func (v Verdict) Reasons() []string {
	out := lines(v.Errors)
	if v.Oversize > 0 {
		out = append(out, fmt.Sprintf("too-large: SKILL.md has %d bytes; the host skips a SKILL.md over %d bytes: "+
			"move detail into files under references/", v.Oversize, v.loader.MaxSkillFile))
	}
	return out
}

// FlawReasons returns the errors the host loads the skill with all the
// same, each "code: message".
func (v Verdict) FlawReasons() []string { return lines(v.Flaws) }

// lines returns findings as "code: message" lines.
func lines(fs []report.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Code + ": " + f.Message
	}
	return out
}

// JudgeSkill checks the skill in dir (its SKILL.md) once and returns the
// verdict of each of rules, in order.
func JudgeSkill(ctx context.Context, dir string, rules []HostRules) []Verdict {
	// Under the strict profile every finding any other profile reports is
	// on, so each host's severities can be read from its findings.
	file := filepath.Join(dir, pipeline.SkillFile)
	rep, _ := Run(ctx, []Target{{File: file}}, nil, Options{Profile: ProfileStrict})
	var size int64
	if st, err := os.Stat(file); err == nil {
		size = st.Size()
	}
	out := make([]Verdict, len(rules))
	for i, r := range rules {
		out[i].HostRules = r
		l := HostLoader(r.Host)
		if r.Profile != l.Profile {
			// The spec standing in for a host: every error counts.
			l = Loader{Profile: r.Profile}
		}
		out[i].loader = l
		if l.MaxSkillFile > 0 && size > l.MaxSkillFile {
			out[i].Oversize = size
		}
		for _, f := range rep.Findings {
			rule, _ := Lookup(f.Code)
			if rule.Severity(r.Profile) != report.SeverityError {
				continue
			}
			f.Severity = report.SeverityError
			if l.Refuses(f) {
				out[i].Errors = append(out[i].Errors, f)
			} else {
				out[i].Flaws = append(out[i].Flaws, f)
			}
		}
	}
	return out
}

// severityFor returns the severity of rule for f, in a file read by the
// hosts of rules (the highest any of them gives), and, when they
// disagree, a note naming which host gives which, for the finding's
// message. An error under a host's profile that the host loads the skill
// with all the same (Loader.Refuses) is a warning for that host: the
// run fails only for a skill a host that reads it will not load. No
// rules means fallback.
func severityFor(rule Rule, f report.Finding, rules []HostRules, fallback Profile) (report.Severity, string) {
	if len(rules) == 0 {
		return rule.Severity(fallback), ""
	}
	top := report.SeverityOff
	var parts []string
	same := true
	var first report.Severity
	for i, r := range rules {
		s := rule.Severity(r.Profile)
		word := severityWord(s)
		if s == report.SeverityError {
			if l := HostLoader(r.Host); l.Profile == r.Profile && !l.Refuses(f) {
				s, word = report.SeverityWarning, "warning (it loads)"
			}
		}
		if i == 0 {
			first = s
		} else if s != first {
			same = false
		}
		if rank(s) > rank(top) {
			top = s
		}
		parts = append(parts, fmt.Sprintf("%s for %s (profile %s)", word, r.Host, r.Profile))
	}
	if same || len(rules) == 1 {
		if top == report.SeverityWarning && rule.Severity(rules[0].Profile) == report.SeverityError {
			return top, "a warning, not an error: the hosts that read it (" + hostsWord(rules) + ") load it all the same"
		}
		return top, ""
	}
	return top, strings.Join(parts, ", ")
}

// anyError reports whether rule is an error under the profile of one of
// rules.
func anyError(rule Rule, rules []HostRules) bool {
	return slices.ContainsFunc(rules, func(r HostRules) bool { return rule.Severity(r.Profile) == report.SeverityError })
}

// hostsWord names the hosts of rules for a message.
func hostsWord(rules []HostRules) string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = r.Host
	}
	return strings.Join(names, ", ")
}

// rank orders severities: off, info, warning, error.
func rank(s report.Severity) int {
	switch s {
	case report.SeverityError:
		return 3
	case report.SeverityWarning:
		return 2
	case report.SeverityInfo:
		return 1
	}
	return 0
}

// severityWord names a severity in a message.
func severityWord(s report.Severity) string {
	if s == report.SeverityOff {
		return "nothing"
	}
	return string(s)
}

// judge gives each finding of a run its severity: under the run's
// profile, or, with Options.ByHost, under the profiles of the hosts
// that read its file, at most a warning in a managed tree.
type judge struct {
	opt    Options
	rules  map[string][]HostRules  // by target file
	owners map[string]*ManagedTree // by target file; nil: the user's
}

func newJudge(targets []Target, opt Options) *judge {
	j := &judge{opt: opt}
	if !opt.ByHost {
		return j
	}
	j.rules = make(map[string][]HostRules, len(targets))
	j.owners = make(map[string]*ManagedTree)
	for _, t := range targets {
		j.rules[t.File] = t.Rules
		if m := managedBy(opt.Managed, t.File); m != nil {
			j.owners[t.File] = m
		}
	}
	return j
}

// severity returns f's severity under rule, and with ByHost notes in f's
// message which host gives which when they disagree, and that a managed
// tree's finding is the host's to fix.
func (j *judge) severity(rule Rule, f *report.Finding) report.Severity {
	if !j.opt.ByHost {
		return rule.Severity(j.opt.Profile)
	}
	s, note := severityFor(rule, *f, j.rules[f.File], j.opt.Profile)
	if note != "" {
		f.Message += " [" + note + "]"
	}
	// A managed tree's error is a warning in any case; say why even when
	// its hosts load the skill all the same.
	if m := j.owners[f.File]; m != nil && rule.Code != CodeManagedTree && (s == report.SeverityError || anyError(rule, j.rules[f.File])) {
		s = report.SeverityWarning
		f.Message += fmt.Sprintf(" [a warning, not an error: the skill lies in %s, where a change is lost; %s]", m.What, m.Why)
	}
	return s
}
