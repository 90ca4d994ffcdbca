package action

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/hostview"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/pipeline"
)

// ErrDoctorFailed is what the verdict of a doctor run wraps when a skill
// the user owns will not load in a host (DoctorResult.Verdict).
var ErrDoctorFailed = errors.New("skills will not load")

// DoctorRequest is ccski doctor.
type DoctorRequest struct {
	// Hosts are the hosts to report, by agent label (claude, codex,
	// gemini, copilot, cursor); empty means every host found on the
	// machine. A host named here is reported even when it is not
	// installed.
	Hosts []string
	// AskHost runs each reported host's own offline way of saying what
	// it loads, where it has one, and diffs it with ccski's model
	// (DoctorHost.AskHost).
	AskHost bool
	// Fix repairs the links the hosts need and lack (a link that became a
	// text file, a link ccski install made that is gone) before the
	// hosts are judged. With DryRun, nothing is written: Fixed says what
	// would be repaired.
	Fix    bool
	DryRun bool
}

// DoctorResult is what ccski doctor shows: per host, what it loads, what
// it does not and why.
type DoctorResult struct {
	// Hosts are the hosts reported, in hostview.Hosts order.
	Hosts []DoctorHost `json:"hosts"`
	// Absent are the hosts not found on the machine and not asked for,
	// by title, each with how it was looked for.
	Absent []string `json:"absent"`
	// Broken counts the verdicts of Hosts that are problems in what the
	// user owns (hostview.View.Broken).
	Broken int `json:"broken"`
	// Verdict is nil, or wraps ErrDoctorFailed when Broken is not 0.
	Verdict error `json:"-"`
	// Fixed are the repairs --fix made, or tried; nil without --fix.
	Fixed []DoctorFix `json:"fixed,omitempty"`
	// Policy are the skills on the machine the organisation's policy
	// refuses: ccski mcp does not serve them, enable does not turn them
	// on (the hosts' own loaders know nothing of the policy).
	Policy []PolicyRefusal `json:"policy"`
	// Signatures says which skills are signed, by whom, and which are not
	// (the signature each carries, verified offline), and what ccski mcp
	// serves of them.
	Signatures DoctorSignatures `json:"signatures"`
	// Diagnostics are the warnings and errors of the sources, as ccski
	// sources reports them (a git provider that cannot fetch and serves
	// its last good commit, a provider that failed, a settings file that
	// cannot be read, ...), most serious first; not those about a file or
	// folder inside a skill root, which the hosts' verdicts judge.
	Diagnostics []pipeline.Diagnostic `json:"diagnostics"`
}

// DoctorSignatures is what the signatures of the visible skills say.
type DoctorSignatures struct {
	// RequireSigned is mcp.require_signed: ccski mcp serves only Signed.
	RequireSigned bool `json:"requireSigned"`
	// Signed are the skills whose signature verified, with the signer;
	// Invalid those whose signature does not, with why; Unsigned the ids
	// of those that carry none. Each in the snapshot's order.
	Signed   []DoctorSigned `json:"signed"`
	Invalid  []DoctorSigned `json:"invalid"`
	Unsigned []string       `json:"unsigned"`
}

// DoctorSigned is one skill's signature.
type DoctorSigned struct {
	ID        string             `json:"id"`
	Signature pipeline.Signature `json:"signature"`
	// NotServed says why ccski mcp does not serve it, under
	// mcp.require_signed; "" when it does.
	NotServed string `json:"notServed,omitempty"`
}

// doctorSignatures sorts the visible skills of snap by what their
// signature says.
func doctorSignatures(snap *pipeline.Snapshot, require bool) DoctorSignatures {
	out := DoctorSignatures{RequireSigned: require, Signed: []DoctorSigned{}, Invalid: []DoctorSigned{}, Unsigned: []string{}}
	for _, r := range snap.Skills() {
		sig := snap.SignatureOf(r)
		switch {
		case sig.Signed():
			out.Signed = append(out.Signed, DoctorSigned{ID: r.ID, Signature: sig})
		case sig.State == pipeline.SignatureInvalid:
			out.Invalid = append(out.Invalid, DoctorSigned{ID: r.ID, Signature: sig, NotServed: NotServed(snap, r, require)})
		default:
			out.Unsigned = append(out.Unsigned, r.ID)
		}
	}
	return out
}

// DoctorHost is one host's part of the result.
type DoctorHost struct {
	hostview.View
	// AskHost is the host's own answer to "what do you load?", diffed
	// against View (doctor --ask-host); nil when the host was not asked.
	AskHost *AskHostDiff `json:"askHost,omitempty"`
	// AskHostError is why the host could not be asked; "" when it was,
	// or was not asked.
	AskHostError string `json:"askHostError,omitempty"`
}

// AskHostDiff is the difference between what a host says it loads, run
// locally and offline, and what ccski's model says it loads.
type AskHostDiff struct {
	// Command is what was run ("codex debug prompt-input").
	Command string `json:"command"`
	// OnlyHost are the skill names the host lists and the model does
	// not; OnlyModel those the model says it loads and the host does not
	// list.
	OnlyHost  []string `json:"onlyHost"`
	OnlyModel []string `json:"onlyModel"`
}

// Doctor discovers the machine's skills and says, for every host ccski
// models, which it loads and which it does not, with the reason.
func Doctor(ctx context.Context, c *Config, req DoctorRequest) (*DoctorResult, error) {
	for _, name := range req.Hosts {
		if _, ok := hostview.ByName(name); !ok {
			var known []string
			for _, h := range hostview.Hosts() {
				known = append(known, h.Name)
			}
			return nil, usage(fmt.Errorf("unknown host %q: the hosts are %s", name, strings.Join(known, ", ")))
		}
	}
	// The agents read their folders whatever ccski's configuration says:
	// every provider is on.
	e, err := c.EngineWith(func(cfg *configs.Config) {
		on := make(map[string]configs.Provider, len(cfg.Providers))
		for name, p := range cfg.Providers {
			p.Enabled = true
			on[name] = p
		}
		cfg.Providers = on
	})
	if err != nil {
		return nil, err
	}
	d, err := c.DiscoverWith(ctx, e, Checks{Signatures: true})
	if err != nil {
		return nil, err
	}
	env := d.Engine.Env()
	res := &DoctorResult{Hosts: []DoctorHost{}, Absent: []string{}}
	links := linkProblems(d.Snapshot, env)
	if req.Fix && req.DryRun {
		res.Fixed = plannedFixes(links)
	}
	if req.Fix && !req.DryRun && len(links) > 0 {
		res.Fixed = fixLinks(links)
		// Judge the machine as the repairs left it.
		if d, err = c.Discover(ctx, Checks{Signatures: true}); err != nil {
			return nil, err
		}
		env = d.Engine.Env()
		links = linkProblems(d.Snapshot, env)
	}
	opt := hostview.Options{Env: env, Managed: managedTrees(env)}
	for _, h := range hostview.Hosts() {
		asked := slices.ContainsFunc(req.Hosts, func(n string) bool { return strings.EqualFold(n, h.Name) })
		if len(req.Hosts) > 0 && !asked {
			continue
		}
		if installed, _ := h.Detect(env); !installed && !asked {
			res.Absent = append(res.Absent, h.Title)
			continue
		}
		v := hostview.For(ctx, h, d.Snapshot, opt)
		v.NotLoaded = append(v.NotLoaded, linkVerdicts(h, d.Snapshot, links)...)
		v.Listing = listingVerdicts(v, d.Snapshot, env)
		dh := DoctorHost{View: v}
		if req.AskHost && v.Installed {
			if diff, err := askHost(ctx, v, d.Snapshot, env); err != nil {
				dh.AskHostError = err.Error()
			} else {
				dh.AskHost = diff
			}
		}
		res.Broken += len(v.Broken())
		res.Hosts = append(res.Hosts, dh)
	}
	pol, err := c.Policy()
	if err != nil {
		return nil, err
	}
	res.Policy = c.refusals(ctx, pol, env, d.Snapshot)
	require, err := c.RequireSigned()
	if err != nil {
		return nil, err
	}
	res.Signatures = doctorSignatures(d.Snapshot, require)
	res.Diagnostics = sourceWarnings(d.Snapshot)
	if res.Broken > 0 {
		res.Verdict = fmt.Errorf("%w: %s", ErrDoctorFailed,
			report.Plural(res.Broken, "problem in your own skills", "problems in your own skills"))
	}
	return res, nil
}

// sourceWarnings are the warnings and errors of snap that the hosts'
// verdicts do not already show: not those about a file or folder inside
// one of its roots (a skill, a link in a skill folder), nor those a host's
// view turns into a verdict (hostview.Judges); most serious first.
func sourceWarnings(snap *pipeline.Snapshot) []pipeline.Diagnostic {
	out := []pipeline.Diagnostic{}
	for _, d := range pipeline.AtLeast(snap.Diagnostics, pipeline.SeverityWarning) {
		inRoot := slices.ContainsFunc(snap.Roots, func(r pipeline.RootReport) bool {
			return d.Path != "" && r.Path != "" && d.Path != r.Path && safefile.Within(r.Path, d.Path)
		})
		if !inRoot && !hostview.Judges(d) {
			out = append(out, d)
		}
	}
	return out
}

// notLoaded is what the hosts installed in opt.Env do not load on their
// own, for `ccski sources`: every verdict of their views that is not a
// load, but for what the sources report lists already: the switches
// (Switched), the disabled plugins (their diagnostics), the .SKILL.md
// files and the copies another copy shadows (Hidden).
func notLoaded(ctx context.Context, snap *pipeline.Snapshot, opt hostview.Options) []pipeline.NotLoaded {
	out := []pipeline.NotLoaded{}
	for _, h := range hostview.Hosts() {
		if installed, _ := h.Detect(opt.Env); !installed {
			continue
		}
		v := hostview.For(ctx, h, snap, opt)
		for _, x := range v.NotLoaded {
			switch x.Code {
			case hostview.SwitchedOff, hostview.PluginDisabled, hostview.DisabledFile, hostview.Shadowed:
				continue
			}
			out = append(out, pipeline.NotLoaded{Host: v.Host, Title: v.Title, ID: x.ID, Name: x.Name, File: x.File,
				Code: string(x.Code), Reason: x.Detail})
		}
	}
	return out
}
