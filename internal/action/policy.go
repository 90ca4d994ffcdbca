package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/policy"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
)

// This file applies the organisation's policy (package internal/policy)
// to what the commands install, update, turn on and serve, and holds
// ccski policy check.

// Policy returns the organisation's policy the configuration sets (the
// policy.* keys of the managed and user configs). A configuration that
// does not load, or a policy entry that cannot be read, is an error naming
// the file: the command refuses rather than goes ahead unguarded.
func (c *Config) Policy() (*policy.Policy, error) {
	if err := c.Load(); err != nil {
		return nil, err
	}
	cp := c.Loaded.Config.Policy
	from := map[string]string{}
	for _, r := range policy.Rules() {
		from[r] = c.Loaded.Sources[r]
	}
	p, err := policy.New(policy.Settings{AllowedSources: cp.AllowedSources, RequiredSigners: cp.RequiredSigners,
		BlockedSkills: cp.BlockedSkills, MinScanVerdict: cp.MinScanVerdict, AllowUnsigned: cp.AllowUnsigned, From: from})
	if err != nil {
		return nil, usage(err)
	}
	return p, nil
}

// policyIgnored are the values of the policy a config file set that were
// not taken (a project config's, or a user config's the managed config
// overrides), each as a warning saying so.
func (c *Config) policyIgnored() []string {
	if c.Loaded == nil {
		return nil
	}
	var out []string
	for _, ig := range c.Loaded.Ignored {
		if ig.Key == "policy" || strings.HasPrefix(ig.Key, "policy.") {
			out = append(out, fmt.Sprintf("%s set by %s is ignored: %s (the policy comes from %s)", ig.Key, ig.Layer,
				ig.Reason, policyFrom(c.Loaded, ig.Key)))
		}
	}
	return out
}

// policyFrom names the layer a policy key's value comes from, for people.
func policyFrom(ld *configs.Loaded, key string) string {
	if src := ld.Sources[key]; src != "" && src != "default" {
		return src
	}
	return "the built-in default"
}

// PolicySource is the policy's view of an install source.
func PolicySource(s install.Source) *policy.Source {
	return &policy.Source{Kind: string(s.Kind), URL: s.URL, Dir: s.Dir, Name: s.Name, Origin: s.Origin.URL, Text: s.String()}
}

// verifyFunc verifies the signature of the skill folder dir, whose files
// are files.
type verifyFunc func(ctx context.Context, dir string, files []manifest.File) *policy.Signature

// signatureVerifier returns the one function through which the policy has
// a skill's signature verified: provenance.Verify over the skill's files,
// with the Verifier of the signing.* keys (Config.Verifier), built once
// at the first call. Trusted material that cannot be read is a signature
// that does not verify: the rules that need one refuse.
func (c *Config) signatureVerifier() verifyFunc {
	var once sync.Once
	var v *provenance.Verifier
	var vErr error
	return func(ctx context.Context, dir string, files []manifest.File) *policy.Signature {
		once.Do(func() { v, vErr = c.Verifier() })
		if vErr != nil {
			return &policy.Signature{Err: vErr}
		}
		s, err := provenance.Verify(ctx, dir, files, v)
		return &policy.Signature{Signer: s, Err: err}
	}
}

// scanSkill is the security scan's report on the skill folder dir.
func scanSkill(ctx context.Context, dir string) *report.Report {
	s := security.NewScanner()
	s.NoCache = true
	return security.Run(ctx, s, []string{filepath.Join(dir, "SKILL.md")}, nil)
}

// examiner gathers what p needs to decide on a discovered skill: its
// names, its files (for blocked digests), the source the locks record for
// its folder and, with scan, its security scan. It verifies no signature:
// the policy decides on what the engine's signing stage verified
// (Snapshot.Signatures; see engine.PolicySignature), so that the signer
// the policy accepts is the one whose bytes are served. The manifests are
// kept between calls, by file stamp.
func (c *Config) examiner(p *policy.Policy, env providers.Env, scan bool) engine.Examine {
	var mu sync.Mutex
	cache := manifest.NewCache()
	return func(ctx context.Context) func(r *pipeline.Record) policy.Subject {
		installed := InstalledIndex(env)
		return func(r *pipeline.Record) policy.Subject {
			return examine(ctx, p, r, installed, cache, &mu, scan)
		}
	}
}

// examine is what examiner gathers of r.
func examine(ctx context.Context, p *policy.Policy, r *pipeline.Record, installed map[string]*install.Installed,
	cache *manifest.Cache, mu *sync.Mutex, scan bool) policy.Subject {
	s := policy.Subject{Name: r.Name}
	if r.Alias != "" {
		s.Aliases = []string{r.Alias}
	}
	if in := installed[filepath.Clean(r.Dir)]; in != nil {
		s.Source = PolicySource(in.From)
	}
	if r.Dir == "" {
		// A skill known by name alone (one of a plugin that is off, see
		// toggle.Toggler.Admit): no files, no scan, so the rules that
		// need them refuse.
		return s
	}
	if slices.ContainsFunc(p.Settings().BlockedSkills, func(e string) bool { // a blocked digest is matched against every file
		return strings.HasPrefix(strings.TrimSpace(e), "sha256:")
	}) {
		mu.Lock()
		m, err := cache.Build(r.Dir)
		mu.Unlock()
		if err == nil { // no files: the rules that need them refuse (see policy.Subject)
			s.Files = m.Files
		}
	}
	if scan && p.NeedsScan() {
		s.Scan = scanSkill(ctx, r.Dir)
	}
	return s
}

// needsSignatures reports whether p decides on any skill's signature
// (policy.required_signers, or policy.allow_unsigned false): discovery
// must then verify signatures (engine.SetSigning), which the policy
// decides on.
func needsSignatures(p *policy.Policy) bool {
	s := p.Settings()
	return p.Active() && (!s.AllowUnsigned || len(s.RequiredSigners) > 0)
}

// decideRecord is p's decision on the discovered record r, examined by
// examine, with the signature snap's signing stage verified of it.
func decideRecord(p *policy.Policy, snap *pipeline.Snapshot, examine func(*pipeline.Record) policy.Subject, r *pipeline.Record) policy.Decision {
	s := examine(r)
	if p.NeedsSignature(s.Source) {
		s.Signature = engine.PolicySignature(snap.Signatures, r, snap.Signatures != nil)
	}
	return p.Decide(s)
}

// admit is the Installer.Admit of a run under p: every staged skill is
// decided on with its source, files, signature and scan as p needs them.
func (c *Config) admit(ctx context.Context, p *policy.Policy) func(install.Admission) error {
	if !p.Active() {
		return nil
	}
	verify := c.signatureVerifier()
	return func(a install.Admission) error {
		s := policy.Subject{Name: a.Name, Source: PolicySource(a.Source), Files: a.Files}
		switch {
		case a.Verified:
			s.Signature = &policy.Signature{Signer: a.Signer}
		case p.NeedsSignature(s.Source):
			s.Signature = verify(ctx, a.Dir, a.Files)
		}
		if p.NeedsScan() {
			s.Scan = scanSkill(ctx, a.Dir)
		}
		return p.Decide(s).Err()
	}
}

// refuseSource is the result of a lock entry whose source the policy
// does not allow, or nil.
func refuseSource(p *policy.Policy, e install.Entry) *install.Result {
	if d := p.DecideSource(*PolicySource(e.Source)); !d.Allow {
		return &install.Result{Skill: e.Name, Source: e.Source.String(), Status: install.StatusFailed, Message: d.String()}
	}
	return nil
}

// PolicyRefusal is a skill found on the machine that the policy refuses:
// ccski mcp does not serve it, enable and profile use do not turn it on.
type PolicyRefusal struct {
	// Skill is the skill's id, Dir its folder.
	Skill string `json:"skill"`
	Dir   string `json:"dir"`
	// Decision is the refusal: the rule, its file and why.
	Decision policy.Decision `json:"decision"`
}

// refusals are the skills of snap (commands aside) that p refuses, each
// decided on with its security scan when p needs one, and with the
// signature snap's signing stage verified (a snapshot without one refuses
// every skill p needs a signature of).
func (c *Config) refusals(ctx context.Context, p *policy.Policy, env providers.Env, snap *pipeline.Snapshot) []PolicyRefusal {
	out := []PolicyRefusal{}
	if !p.Active() {
		return out
	}
	examine := c.examiner(p, env, true)(ctx)
	seen := map[string]bool{}
	for _, r := range snap.All {
		key := cmpOr(r.RealDir, r.Dir)
		if r.IsCommand() || seen[key] {
			continue // a folder reached twice (a link) is one skill
		}
		seen[key] = true
		if d := decideRecord(p, snap, examine, r); !d.Allow {
			out = append(out, PolicyRefusal{Skill: r.ID, Dir: r.Dir, Decision: d})
		}
	}
	return out
}

// PolicyCheckRequest is ccski policy check.
type PolicyCheckRequest struct {
	// Target is a skill folder, or a source as install takes it; "":
	// explain the policy alone, with the skills on the machine it
	// refuses.
	Target string
}

// PolicyRule is one rule of the policy in force.
type PolicyRule struct {
	// Rule is the key ("policy.allowed_sources").
	Rule string `json:"rule"`
	// From is the file that set it; "" at the built-in value.
	From string `json:"from,omitempty"`
	// Value is the rule's value.
	Value any `json:"value"`
	// Says is what the value means on this machine.
	Says string `json:"says"`
}

// PolicyCheckResult is what ccski policy check shows, and its --json
// output.
type PolicyCheckResult struct {
	// Rules are the rules in force, in the order Decide applies them.
	Rules []PolicyRule `json:"rules"`
	// Files are the config files the rules come from, as labels
	// ("managed config /etc/ccski/config.yaml"); none when every rule is
	// at its built-in value.
	Files []string `json:"files"`
	// Ignored says, per value of a config file that was not taken (a
	// project config's policy), why.
	Ignored []string `json:"ignored"`
	// Target is what was checked, and Kind "skill" (a folder) or
	// "source"; "" without a target.
	Target string `json:"target,omitempty"`
	Kind   string `json:"kind,omitempty"`
	// Decision is the policy's decision on the target; nil without one.
	Decision *policy.Decision `json:"decision,omitempty"`
	// Refused are, without a target, the skills found on the machine
	// the policy refuses.
	Refused []PolicyRefusal `json:"refused,omitempty"`
}

// PolicyCheck explains the policy in force (each rule, and the file it
// comes from) and, with a target, whether the policy allows it and by
// which rule: a skill folder is decided on as install decides on a staged
// skill installed from that folder (its source, files, signature and
// scan), a source as install decides before fetching (the sources rule). Without a target it lists
// the skills found on the machine the policy refuses. A policy that
// cannot be read is an error naming the file.
func PolicyCheck(ctx context.Context, c *Config, req PolicyCheckRequest) (*PolicyCheckResult, error) {
	p, err := c.Policy()
	if err != nil {
		return nil, err
	}
	res := &PolicyCheckResult{Rules: policyRules(p), Files: []string{}, Ignored: c.policyIgnored()}
	if res.Ignored == nil {
		res.Ignored = []string{}
	}
	for _, r := range policy.Rules() {
		if f := p.From(r); f != "" && !slices.Contains(res.Files, f) {
			res.Files = append(res.Files, f)
		}
	}
	if req.Target == "" {
		d, err := c.Discover(ctx, Checks{Signatures: needsSignatures(p)})
		if err != nil {
			return nil, err
		}
		res.Refused = c.refusals(ctx, p, d.Engine.Env(), d.Snapshot)
		return res, nil
	}
	res.Target = req.Target
	dir := absFrom(c.Cwd, c.Home, req.Target)
	if st, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && !st.IsDir() {
		res.Kind = "skill"
		m, err := manifest.NewCache().Build(dir)
		if err != nil {
			return nil, err
		}
		s := policy.Subject{Name: skillName(ctx, dir), Files: m.Files}
		// Installed from here, the folder is its own source.
		if src, err := install.ParseSource(dir, install.ParseOptions{Cwd: c.Cwd, Home: c.Home}); err == nil {
			s.Source = PolicySource(src)
		}
		if p.NeedsSignature(s.Source) {
			s.Signature = c.signatureVerifier()(ctx, dir, m.Files)
		}
		if p.NeedsScan() {
			s.Scan = scanSkill(ctx, dir)
		}
		d := p.Decide(s)
		res.Decision = &d
		return res, nil
	}
	res.Kind = "source"
	src, err := install.ParseSource(req.Target, install.ParseOptions{Cwd: c.Cwd, Home: c.Home})
	if err != nil {
		return nil, usage(fmt.Errorf("%s is neither a skill folder (no SKILL.md in it) nor a source: %w", req.Target, err))
	}
	d := p.DecideSource(*PolicySource(src))
	res.Decision = &d
	return res, nil
}

// skillName is the name install gives the skill in dir, else the
// folder's name.
func skillName(ctx context.Context, dir string) string {
	if o, err := install.Discover(ctx, dir, ""); err == nil && len(o.Candidates) == 1 {
		return o.Candidates[0].Name
	}
	return filepath.Base(dir)
}

// policyRules describes each rule of p as this machine has it.
func policyRules(p *policy.Policy) []PolicyRule {
	s := p.Settings()
	list := func(l []string, none, some string) string {
		if len(l) == 0 {
			return none
		}
		return some + strings.Join(l, ", ")
	}
	rule := func(r string, v any, says string) PolicyRule {
		if v == nil {
			v = []string{}
		}
		return PolicyRule{Rule: r, From: p.From(r), Value: v, Says: says}
	}
	unsigned := "skills without a signature may be installed, turned on and served"
	if !s.AllowUnsigned {
		unsigned = "only skills with a verified signature are installed, turned on and served (implies mcp.require_signed)"
	}
	verdict := map[string]string{"any": "the security scan decides nothing",
		"no-errors":   "a skill with an error-level finding of the security scan is refused (as ccski scan fails it)",
		"no-warnings": "a skill with an error- or warning-level finding is refused (as ccski scan --max-warnings 0 fails it)"}
	return []PolicyRule{
		rule(policy.RuleBlockedSkills, s.BlockedSkills, list(s.BlockedSkills, "no skill is blocked", "never installed, turned on or served: ")),
		rule(policy.RuleAllowedSources, s.AllowedSources, list(s.AllowedSources, "skills may be installed from any source",
			"skills may be installed only from sources matching: ")),
		rule(policy.RuleAllowUnsigned, s.AllowUnsigned, unsigned),
		rule(policy.RuleRequiredSigners, s.RequiredSigners, list(s.RequiredSigners, "no source requires a signer",
			"a skill from a matching source must be signed by: ")),
		rule(policy.RuleMinScanVerdict, cmpOr(s.MinScanVerdict, "any"), verdict[cmpOr(s.MinScanVerdict, "any")]),
	}
}

// cmpOr is s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
