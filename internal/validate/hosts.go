package validate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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

// Verdict is what one host's rules say of a skill: the findings that are
// errors under its profile. A verdict without errors means the host
// loads the skill.
type Verdict struct {
	HostRules
	Errors []report.Finding
}

// Rejects reports whether the host would refuse (or mangle) the skill.
func (v Verdict) Rejects() bool { return len(v.Errors) > 0 }

// Reasons returns the verdict's errors as "code: message" lines.
func (v Verdict) Reasons() []string {
	out := make([]string, len(v.Errors))
	for i, f := range v.Errors {
		out[i] = f.Code + ": " + f.Message
	}
	return out
}

// JudgeSkill checks the skill in dir (its SKILL.md) once and returns the
// verdict of each of rules, in order.
func JudgeSkill(ctx context.Context, dir string, rules []HostRules) []Verdict {
	// Under the strict profile every finding any other profile reports is
	// on, so each host's severities can be read from its findings.
	rep, _ := Run(ctx, []Target{{File: filepath.Join(dir, pipeline.SkillFile)}}, nil, Options{Profile: ProfileStrict})
	out := make([]Verdict, len(rules))
	for i, r := range rules {
		out[i].HostRules = r
		for _, f := range rep.Findings {
			rule, _ := Lookup(f.Code)
			if rule.Severity(r.Profile) == report.SeverityError {
				f.Severity = report.SeverityError
				out[i].Errors = append(out[i].Errors, f)
			}
		}
	}
	return out
}

// severityFor returns the severity of rule for a file read by the hosts
// of rules (the highest any of them gives), and, when they disagree, a
// note naming which host gives which, for the finding's message. No
// rules means fallback.
func severityFor(rule Rule, rules []HostRules, fallback Profile) (report.Severity, string) {
	if len(rules) == 0 {
		return rule.Severity(fallback), ""
	}
	top := report.SeverityOff
	var parts []string
	same := true
	for i, r := range rules {
		s := rule.Severity(r.Profile)
		if i > 0 && s != rule.Severity(rules[0].Profile) {
			same = false
		}
		if rank(s) > rank(top) {
			top = s
		}
		parts = append(parts, fmt.Sprintf("%s for %s (profile %s)", severityWord(s), r.Host, r.Profile))
	}
	if same || len(rules) == 1 {
		return top, ""
	}
	return top, strings.Join(parts, ", ")
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
	s, note := severityFor(rule, j.rules[f.File], j.opt.Profile)
	if note != "" {
		f.Message += " [" + note + "]"
	}
	if m := j.owners[f.File]; m != nil && s == report.SeverityError && rule.Code != CodeManagedTree {
		s = report.SeverityWarning
		f.Message += fmt.Sprintf(" [a warning, not an error: the skill lies in %s, where a change is lost; %s]", m.What, m.Why)
	}
	return s
}
