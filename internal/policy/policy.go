// Package policy evaluates the organisation's policy (the policy.* keys of
// the managed and user configs): which sources skills may be installed
// from, whose signatures a source's skills must carry, which skills are
// blocked, the verdict of the security scan a skill must reach and whether
// unsigned skills are allowed. Decide is the one decision every command
// that installs, updates, turns on or serves a skill asks; it returns
// whether the skill is allowed and the rule that decided, with the file
// that rule comes from.
package policy

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/scanmode"
)

// The rules, by the key that sets each.
const (
	RuleAllowedSources  = "policy.allowed_sources"
	RuleRequiredSigners = "policy.required_signers"
	RuleBlockedSkills   = "policy.blocked_skills"
	RuleMinScanVerdict  = "policy.min_scan_verdict"
	RuleAllowUnsigned   = "policy.allow_unsigned"
)

// Rules lists the rules in the order Decide applies them.
func Rules() []string {
	return []string{RuleBlockedSkills, RuleAllowedSources, RuleAllowUnsigned, RuleRequiredSigners, RuleMinScanVerdict}
}

// Settings are the values of the policy keys and where each came from.
type Settings struct {
	AllowedSources  []string
	RequiredSigners []string
	BlockedSkills   []string
	MinScanVerdict  string
	AllowUnsigned   bool
	// From maps a rule (its key) to the label of the config file that
	// set it ("managed config /etc/ccski/config.yaml"); a rule it does
	// not map, or maps to "default", is at its built-in value.
	From map[string]string
}

// Policy is a checked policy. The zero Policy (and a nil one) allows
// everything.
type Policy struct {
	allowed       []pattern
	signers       []signerRule
	blockedNames  []string
	blockedDigest []string
	verdict       scanmode.Verdict
	unsigned      bool
	from          map[string]string
	settings      Settings
}

// pattern is a source pattern: '/'-separated segments, each a path.Match
// glob.
type pattern struct {
	text string
	segs []string
}

// signerRule is one entry of policy.required_signers.
type signerRule struct {
	text   string
	source pattern
	id     provenance.Identity
}

// digestRE is a sha256: digest as ccski writes them.
var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// New checks s and returns the policy it sets. An entry that is not valid
// is an error naming the rule, the file that set it and the entry: a
// policy that cannot be read refuses rather than allows (see Load
// callers).
func New(s Settings) (*Policy, error) {
	p := &Policy{from: s.From, settings: s, unsigned: s.AllowUnsigned, verdict: scanmode.Verdict(s.MinScanVerdict)}
	if p.verdict == "" {
		p.verdict = scanmode.VerdictAny
	}
	if !slices.Contains(scanmode.Verdicts(), string(p.verdict)) {
		return nil, p.invalid(RuleMinScanVerdict, s.MinScanVerdict, "valid values: "+strings.Join(scanmode.Verdicts(), ", "))
	}
	for _, e := range s.AllowedSources {
		pt, err := parsePattern(e)
		if err != nil {
			return nil, p.invalid(RuleAllowedSources, e, err.Error())
		}
		p.allowed = append(p.allowed, pt)
	}
	for _, e := range s.RequiredSigners {
		r, err := parseSigner(e)
		if err != nil {
			return nil, p.invalid(RuleRequiredSigners, e, err.Error())
		}
		p.signers = append(p.signers, r)
	}
	for _, e := range s.BlockedSkills {
		e = strings.TrimSpace(e)
		switch {
		case strings.HasPrefix(e, "sha256:"):
			if !digestRE.MatchString(e) {
				return nil, p.invalid(RuleBlockedSkills, e, "a digest is sha256: and 64 lower-case hex digits")
			}
			p.blockedDigest = append(p.blockedDigest, e)
		default:
			if _, err := path.Match(e, ""); err != nil || e == "" {
				return nil, p.invalid(RuleBlockedSkills, e, "want a skill name (a glob) or a sha256: digest")
			}
			p.blockedNames = append(p.blockedNames, e)
		}
	}
	return p, nil
}

// invalid is the error of a bad entry of rule.
func (p *Policy) invalid(rule, entry, why string) error {
	return fmt.Errorf("%s: invalid entry %q: %s; fix the file (a policy that cannot be read allows nothing)",
		p.Where(rule), entry, why)
}

// Where names rule with the file it comes from: "policy.allowed_sources
// (managed config /etc/ccski/config.yaml)", or the rule alone at its
// built-in value.
func (p *Policy) Where(rule string) string {
	if f := p.From(rule); f != "" {
		return rule + " (" + f + ")"
	}
	return rule
}

// From is the label of the config file that set rule, "" when the rule is
// at its built-in value.
func (p *Policy) From(rule string) string {
	if p == nil {
		return ""
	}
	if f := p.from[rule]; f != "default" {
		return f
	}
	return ""
}

// Settings returns what the policy was made from.
func (p *Policy) Settings() Settings {
	if p == nil {
		return Settings{AllowUnsigned: true, MinScanVerdict: string(scanmode.VerdictAny)}
	}
	return p.settings
}

// Active reports whether any rule restricts anything.
func (p *Policy) Active() bool {
	return p != nil && (len(p.allowed) > 0 || len(p.signers) > 0 || len(p.blockedNames) > 0 ||
		len(p.blockedDigest) > 0 || p.verdict != scanmode.VerdictAny || !p.unsigned)
}

// NeedsSignature reports whether deciding on a skill from src (nil: a
// source not known) needs its verified signer (Subject.Signature).
func (p *Policy) NeedsSignature(src *Source) bool {
	if p == nil {
		return false
	}
	return !p.unsigned || len(p.signersFor(src)) > 0
}

// NeedsFiles reports whether deciding on a skill from src needs its files
// (Subject.Files): to compare them with blocked digests, or to verify its
// signature.
func (p *Policy) NeedsFiles(src *Source) bool {
	return p != nil && (len(p.blockedDigest) > 0 || p.NeedsSignature(src))
}

// RequireSigned reports whether a server must serve signed skills only:
// policy.allow_unsigned false implies mcp.require_signed.
func (p *Policy) RequireSigned() bool { return p != nil && !p.unsigned }

// NeedsScan reports whether deciding needs the security scan's report
// (Subject.Scan).
func (p *Policy) NeedsScan() bool {
	_, scan := p.Verdict().MaxWarnings()
	return scan
}

// Verdict is the scan verdict the policy requires.
func (p *Policy) Verdict() scanmode.Verdict {
	if p == nil {
		return scanmode.VerdictAny
	}
	return p.verdict
}

// Signature is what verifying a skill's signature gave.
type Signature struct {
	// Signer is the verified signer; nil when the skill carries no
	// signature (or Err is set).
	Signer *provenance.Signer
	// Err is why a signature the skill carries does not verify.
	Err error
}

// Subject is the skill a decision is about, and what is known of it. A
// field left zero is not known: a rule that needs it refuses (the policy
// fails closed).
type Subject struct {
	// Name is the skill's name; Aliases are its other names (a skill's
	// folder name and frontmatter name may differ), which
	// policy.blocked_skills matches too.
	Name    string
	Aliases []string
	// Source is where it was (or is to be) installed from; nil for a
	// skill ccski did not install.
	Source *Source
	// Files are the skill's files (their digests are matched against
	// blocked digests); nil: not read (refused under a blocked digest).
	Files []manifest.File
	// Signature is the outcome of verifying the skill's signature; nil:
	// not verified.
	Signature *Signature
	// Scan is the security scan's report on the skill folder; nil: not
	// scanned.
	Scan *report.Report
}

// Decision is what the policy says of a subject.
type Decision struct {
	// Allow is whether the policy allows the skill.
	Allow bool `json:"allow"`
	// Rule is the rule that decided: the one that refused, or the one
	// that allowed a skill it restricts (allowed_sources, for a source it
	// allows); "" when no rule restricts the skill.
	Rule string `json:"rule,omitempty"`
	// From is the label of the file the rule comes from.
	From string `json:"from,omitempty"`
	// Reason says why, in words that follow the rule's name.
	Reason string `json:"reason"`
}

// String is "policy.allowed_sources (managed config /etc/ccski/config.yaml)
// does not allow github.com/evil/x".
func (d Decision) String() string {
	if d.Rule == "" {
		return d.Reason
	}
	if d.From != "" {
		return d.Rule + " (" + d.From + ") " + d.Reason
	}
	return d.Rule + " " + d.Reason
}

// Err is nil when the decision allows, else an *Error.
func (d Decision) Err() error {
	if d.Allow {
		return nil
	}
	return &Error{Decision: d}
}

// Error is a refusal by the policy.
type Error struct{ Decision Decision }

func (e *Error) Error() string { return e.Decision.String() }

// IsRefusal reports whether err is, or wraps, a refusal by the policy.
func IsRefusal(err error) bool {
	var pe *Error
	return errors.As(err, &pe)
}

// deny and allow build decisions of rule.
func (p *Policy) deny(rule, reason string) Decision {
	return Decision{Rule: rule, From: p.From(rule), Reason: reason}
}

func (p *Policy) allow(rule, reason string) Decision {
	return Decision{Allow: true, Rule: rule, From: p.From(rule), Reason: reason}
}

// Decide applies the rules to s in the order of Rules, and returns the
// first refusal, else the allowance.
func (p *Policy) Decide(s Subject) Decision {
	if !p.Active() {
		return Decision{Allow: true, Reason: "no policy restricts it"}
	}
	if d, done := p.decideBlocked(s); done {
		return d
	}
	allowed := Decision{Allow: true, Reason: "no rule of the policy refuses it"}
	if len(p.allowed) > 0 && s.Source != nil {
		forms := s.Source.Forms()
		pt, ok := p.allowedBy(forms)
		if !ok {
			return p.deny(RuleAllowedSources, "does not allow "+s.Source.String())
		}
		allowed = p.allow(RuleAllowedSources, fmt.Sprintf("allows %s (pattern %s)", s.Source, pt.text))
	}
	if p.NeedsSignature(s.Source) {
		if s.Signature == nil {
			rule := RuleAllowUnsigned
			if p.unsigned {
				rule = RuleRequiredSigners
			}
			return p.deny(rule, "needs "+s.Name+"'s signature verified, and it was not")
		}
		if s.Signature.Err != nil {
			rule := RuleRequiredSigners
			if !p.unsigned {
				rule = RuleAllowUnsigned
			}
			return p.deny(rule, fmt.Sprintf("refuses %s: its signature does not verify: %v", s.Name, s.Signature.Err))
		}
	}
	if !p.unsigned && s.Signature.Signer == nil {
		return p.deny(RuleAllowUnsigned, "is false, and "+s.Name+" carries no signature")
	}
	if rules := p.signersFor(s.Source); len(rules) > 0 {
		var want []string
		for _, r := range rules {
			if r.id.Match(s.Signature.Signer) {
				allowed = p.allow(RuleRequiredSigners, fmt.Sprintf("allows %s, signed by %s (entry %s)", s.Name,
					s.Signature.Signer, r.text))
				want = nil
				break
			}
			want = append(want, r.id.String())
		}
		if want != nil {
			if s.Signature.Signer == nil {
				return p.deny(RuleRequiredSigners, fmt.Sprintf("requires %s from %s to be signed by %s, and it carries no signature",
					s.Name, s.Source, strings.Join(want, " or ")))
			}
			return p.deny(RuleRequiredSigners, fmt.Sprintf("requires %s from %s to be signed by %s, not by %s",
				s.Name, s.Source, strings.Join(want, " or "), s.Signature.Signer))
		}
	}
	if max, scan := p.verdict.MaxWarnings(); scan {
		if s.Scan == nil {
			return p.deny(RuleMinScanVerdict, fmt.Sprintf("is %s, and %s was not scanned", p.verdict, s.Name))
		}
		if err := s.Scan.Verdict(max, errScan); err != nil {
			return p.deny(RuleMinScanVerdict, fmt.Sprintf("is %s, and the security scan of %s found %s (run ccski scan on it)",
				p.verdict, s.Name, strings.TrimPrefix(err.Error(), errScan.Error()+": ")))
		}
	}
	return allowed
}

// errScan marks the scan verdict's error.
var errScan = errors.New("scan")

// decideBlocked applies policy.blocked_skills: done when it refuses.
func (p *Policy) decideBlocked(s Subject) (Decision, bool) {
	for _, g := range p.blockedNames {
		for _, name := range append([]string{s.Name}, s.Aliases...) {
			if ok, _ := path.Match(g, name); ok && name != "" {
				why := "blocks " + name
				if g != name {
					why += " (entry " + g + ")"
				}
				return p.deny(RuleBlockedSkills, why), true
			}
		}
	}
	if len(p.blockedDigest) > 0 && s.Files == nil {
		return p.deny(RuleBlockedSkills, "blocks skills by digest, and the files of "+s.Name+" could not be read"), true
	}
	for _, f := range s.Files {
		if f.Digest != "" && slices.Contains(p.blockedDigest, f.Digest) {
			return p.deny(RuleBlockedSkills, fmt.Sprintf("blocks %s: its file %s has the blocked digest %s", s.Name, f.Path, f.Digest)), true
		}
	}
	return Decision{}, false
}

// DecideSource applies the rule on sources alone, before anything is
// fetched from src.
func (p *Policy) DecideSource(src Source) Decision {
	if p == nil || len(p.allowed) == 0 {
		return Decision{Allow: true, Reason: "no rule restricts the sources"}
	}
	pt, ok := p.allowedBy(src.Forms())
	if !ok {
		return p.deny(RuleAllowedSources, "does not allow "+src.String())
	}
	return p.allow(RuleAllowedSources, fmt.Sprintf("allows %s (pattern %s)", src, pt.text))
}

// allowedBy returns the first allowed pattern matching one of forms.
func (p *Policy) allowedBy(forms []string) (pattern, bool) {
	for _, pt := range p.allowed {
		for _, f := range forms {
			if pt.match(f) {
				return pt, true
			}
		}
	}
	return pattern{}, false
}

// signersFor returns the required_signers entries whose pattern matches
// src; none for an unknown source.
func (p *Policy) signersFor(src *Source) []signerRule {
	if p == nil || src == nil {
		return nil
	}
	forms := src.Forms()
	var out []signerRule
	for _, r := range p.signers {
		if slices.ContainsFunc(forms, r.source.governs) {
			out = append(out, r)
		}
	}
	return out
}

// parsePattern reads a source pattern.
func parsePattern(s string) (pattern, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return pattern{}, errors.New("an empty pattern")
	}
	pt := pattern{text: s, segs: strings.Split(strings.TrimSuffix(Normalize(s), "/"), "/")}
	for _, seg := range pt.segs {
		if _, err := path.Match(seg, ""); err != nil {
			return pattern{}, fmt.Errorf("segment %q is no valid glob", seg)
		}
	}
	return pt, nil
}

// match reports whether the pattern matches form, or its first segments,
// both in the normal form of Normalize.
func (pt pattern) match(form string) bool { return pt.matchFold(form, false) }

// governs reports whether the pattern matches form case-insensitively: a
// rule that asks more of a source (policy.required_signers) governs every
// spelling of it, even on a host whose names are case-sensitive, so that a
// source cannot escape the rule by case.
func (pt pattern) governs(form string) bool { return pt.matchFold(form, true) }

func (pt pattern) matchFold(form string, fold bool) bool {
	segs := strings.Split(form, "/")
	if len(pt.segs) > len(segs) {
		return false
	}
	for i, g := range pt.segs {
		seg := segs[i]
		if fold {
			g, seg = strings.ToLower(g), strings.ToLower(seg)
		}
		if ok, _ := path.Match(g, seg); !ok {
			return false
		}
	}
	return true
}

// parseSigner reads "<source pattern>=<identity>[@<issuer>]", the
// identity as install --signer reads it (provenance.ParseIdentity).
func parseSigner(s string) (signerRule, error) {
	src, id, ok := strings.Cut(strings.TrimSpace(s), "=")
	if !ok || strings.TrimSpace(src) == "" || strings.TrimSpace(id) == "" {
		return signerRule{}, errors.New(`want "<source pattern>=<identity>[@<issuer>]", such as github.com/acme=*@acme.com@https://accounts.google.com`)
	}
	pt, err := parsePattern(src)
	if err != nil {
		return signerRule{}, err
	}
	ident, err := provenance.ParseIdentity(id)
	if err != nil {
		return signerRule{}, err
	}
	return signerRule{text: strings.TrimSpace(s), source: pt, id: ident}, nil
}
