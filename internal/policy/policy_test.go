package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/report"
)

const managed = "managed config /etc/ccski/config.yaml"

// from says every rule comes from the managed config.
func from() map[string]string {
	m := map[string]string{}
	for _, r := range Rules() {
		m[r] = managed
	}
	return m
}

var (
	acme   = &Source{Kind: "git", URL: "https://github.com/acme/skills.git", Text: "acme/skills"}
	evil   = &Source{Kind: "git", URL: "https://github.com/evil/x", Text: "evil/x"}
	site   = &Source{Kind: "index", URL: "https://skills.example.com/.well-known/agent-skills/index.json"}
	market = &Source{Kind: "marketplace", Name: "tools", Origin: "git@github.com:acme/market.git"}
	local  = &Source{Kind: "dir", Dir: "/srv/skills/one"}
	alice  = &Signature{Signer: &provenance.Signer{Identity: "alice@acme.com", Issuer: "https://accounts.google.com"}}
	mallet = &Signature{Signer: &provenance.Signer{Identity: "mallet@evil.com", Issuer: "https://accounts.google.com"}}
	none   = &Signature{}
	bad    = &Signature{Err: errors.New("skill.oms.sig: SKILL.md changed")}
)

const blockedDigest = "sha256:" + "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"

// TestDecide checks each rule's decision, the rule named and its file.
func TestDecide(t *testing.T) {
	t.Parallel()
	warn := &report.Report{Findings: []report.Finding{{Code: "x", Severity: report.SeverityWarning}}}
	errs := &report.Report{Findings: []report.Finding{{Code: "remote-exec", Severity: report.SeverityError}}}
	clean := &report.Report{}
	cases := []struct {
		name     string
		settings Settings
		subject  Subject
		allow    bool
		rule     string
		says     string
	}{
		{name: "no policy", settings: Settings{AllowUnsigned: true}, subject: Subject{Name: "a", Source: evil},
			allow: true, says: "no policy restricts it"},
		{name: "an owner allowed", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com/acme"}},
			subject: Subject{Name: "a", Source: acme}, allow: true, rule: RuleAllowedSources, says: "allows acme/skills (pattern github.com/acme)"},
		{name: "another owner", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com/acme"}},
			subject: Subject{Name: "a", Source: evil}, rule: RuleAllowedSources,
			says: "policy.allowed_sources (" + managed + ") does not allow evil/x"},
		{name: "a glob of owners", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com/ac*/sk?lls"}},
			subject: Subject{Name: "a", Source: acme}, allow: true, rule: RuleAllowedSources},
		{name: "a host", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com"}},
			subject: Subject{Name: "a", Source: evil}, allow: true, rule: RuleAllowedSources},
		{name: "an https origin", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"https://skills.example.com"}},
			subject: Subject{Name: "a", Source: site}, allow: true, rule: RuleAllowedSources},
		{name: "an origin of another scheme", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"http://skills.example.com"}},
			subject: Subject{Name: "a", Source: site}, rule: RuleAllowedSources},
		{name: "a marketplace by name", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"marketplace:tools"}},
			subject: Subject{Name: "a", Source: market}, allow: true, rule: RuleAllowedSources},
		{name: "a marketplace by its repository", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com/acme/market"}},
			subject: Subject{Name: "a", Source: market}, allow: true, rule: RuleAllowedSources},
		{name: "a local folder", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"/srv/skills"}},
			subject: Subject{Name: "a", Source: local}, allow: true, rule: RuleAllowedSources},
		{name: "a prefix that is no segment", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"/srv/skill"}},
			subject: Subject{Name: "a", Source: local}, rule: RuleAllowedSources},
		{name: "a skill of no known source", settings: Settings{AllowUnsigned: true, AllowedSources: []string{"github.com/acme"}},
			subject: Subject{Name: "a"}, allow: true},
		{name: "blocked by name", settings: Settings{AllowUnsigned: true, BlockedSkills: []string{"evil-*"}},
			subject: Subject{Name: "evil-tool", Source: acme}, rule: RuleBlockedSkills,
			says: "policy.blocked_skills (" + managed + ") blocks evil-tool (entry evil-*)"},
		{name: "blocked by digest", settings: Settings{AllowUnsigned: true, BlockedSkills: []string{blockedDigest}},
			subject: Subject{Name: "a", Files: []manifest.File{{Path: "SKILL.md", Digest: "sha256:00"}, {Path: "run.sh", Digest: blockedDigest}}},
			rule:    RuleBlockedSkills, says: "its file run.sh has the blocked digest"},
		{name: "blocked before the source is allowed", settings: Settings{AllowUnsigned: true, BlockedSkills: []string{"a"},
			AllowedSources: []string{"github.com"}}, subject: Subject{Name: "a", Source: acme}, rule: RuleBlockedSkills},
		{name: "unsigned refused", settings: Settings{}, subject: Subject{Name: "a", Source: acme, Signature: none},
			rule: RuleAllowUnsigned, says: "policy.allow_unsigned (" + managed + ") is false, and a carries no signature"},
		{name: "signed, unsigned refused", settings: Settings{}, subject: Subject{Name: "a", Source: acme, Signature: alice}, allow: true},
		{name: "not verified fails closed", settings: Settings{}, subject: Subject{Name: "a", Source: acme}, rule: RuleAllowUnsigned,
			says: "was not"},
		{name: "a signature that does not verify", settings: Settings{}, subject: Subject{Name: "a", Source: acme, Signature: bad},
			rule: RuleAllowUnsigned, says: "SKILL.md changed"},
		{name: "the required signer", settings: Settings{AllowUnsigned: true,
			RequiredSigners: []string{"github.com/acme=*@acme.com@https://accounts.google.com"}},
			subject: Subject{Name: "a", Source: acme, Signature: alice}, allow: true, rule: RuleRequiredSigners},
		{name: "another signer", settings: Settings{AllowUnsigned: true,
			RequiredSigners: []string{"github.com/acme=*@acme.com@https://accounts.google.com"}},
			subject: Subject{Name: "a", Source: acme, Signature: mallet}, rule: RuleRequiredSigners,
			says: "requires a from acme/skills to be signed by *@acme.com@https://accounts.google.com, not by mallet@evil.com via https://accounts.google.com"},
		{name: "the right identity by another issuer", settings: Settings{AllowUnsigned: true,
			RequiredSigners: []string{"github.com/acme=alice@acme.com@https://token.actions.githubusercontent.com"}},
			subject: Subject{Name: "a", Source: acme, Signature: alice}, rule: RuleRequiredSigners},
		{name: "any issuer", settings: Settings{AllowUnsigned: true, RequiredSigners: []string{"github.com/acme=alice@acme.com"}},
			subject: Subject{Name: "a", Source: acme, Signature: alice}, allow: true, rule: RuleRequiredSigners},
		{name: "unsigned under a required signer", settings: Settings{AllowUnsigned: true, RequiredSigners: []string{"github.com/acme=alice@acme.com"}},
			subject: Subject{Name: "a", Source: acme, Signature: none}, rule: RuleRequiredSigners, says: "carries no signature"},
		{name: "a required signer of another source", settings: Settings{AllowUnsigned: true, RequiredSigners: []string{"github.com/acme=alice@acme.com"}},
			subject: Subject{Name: "a", Source: evil}, allow: true},
		{name: "no errors: clean", settings: Settings{AllowUnsigned: true, MinScanVerdict: "no-errors"},
			subject: Subject{Name: "a", Scan: warn}, allow: true},
		{name: "no errors: an error", settings: Settings{AllowUnsigned: true, MinScanVerdict: "no-errors"},
			subject: Subject{Name: "a", Scan: errs}, rule: RuleMinScanVerdict, says: "is no-errors, and the security scan of a found 1 error"},
		{name: "no warnings: a warning", settings: Settings{AllowUnsigned: true, MinScanVerdict: "no-warnings"},
			subject: Subject{Name: "a", Scan: warn}, rule: RuleMinScanVerdict, says: "1 warning, more than --max-warnings 0"},
		{name: "no warnings: clean", settings: Settings{AllowUnsigned: true, MinScanVerdict: "no-warnings"},
			subject: Subject{Name: "a", Scan: clean}, allow: true},
		{name: "not scanned fails closed", settings: Settings{AllowUnsigned: true, MinScanVerdict: "no-errors"},
			subject: Subject{Name: "a"}, rule: RuleMinScanVerdict, says: "was not scanned"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.settings.From = from()
			p, err := New(tc.settings)
			if err != nil {
				t.Fatal(err)
			}
			d := p.Decide(tc.subject)
			if d.Allow != tc.allow || d.Rule != tc.rule || !strings.Contains(d.String(), tc.says) {
				t.Errorf("Decide = %+v (%s), want allow %t by %q saying %q", d, d, tc.allow, tc.rule, tc.says)
			}
			if (d.Err() == nil) != tc.allow || (!tc.allow && !IsRefusal(d.Err())) {
				t.Errorf("Err = %v", d.Err())
			}
			if d.Rule != "" && d.From != managed {
				t.Errorf("From = %q", d.From)
			}
		})
	}
}

// TestNewRefusesBadEntries checks that an entry that cannot be read is an
// error naming the rule, its file and the entry.
func TestNewRefusesBadEntries(t *testing.T) {
	t.Parallel()
	for _, s := range []Settings{
		{AllowedSources: []string{"github.com/[acme"}},
		{AllowedSources: []string{" "}},
		{RequiredSigners: []string{"github.com/acme"}},
		{RequiredSigners: []string{"=alice"}},
		{BlockedSkills: []string{"sha256:xyz"}},
		{BlockedSkills: []string{"[x"}},
		{MinScanVerdict: "clean"},
	} {
		s.From = from()
		_, err := New(s)
		if err == nil || !strings.Contains(err.Error(), "("+managed+")") || !strings.Contains(err.Error(), "invalid") {
			t.Errorf("New(%+v) error = %v", s, err)
		}
	}
}

// TestForms checks the forms a source pattern is matched against.
func TestForms(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  Source
		want []string
	}{
		{Source{Kind: "git", URL: "https://github.com/Acme/x.git"}, []string{"github.com/acme/x", "https://github.com/acme/x"}},
		{Source{Kind: "git", URL: "ssh://git@GitHub.com:22/Acme//x.git/"}, []string{"github.com/acme/x", "https://github.com/acme/x", "ssh://github.com/acme/x"}},
		{Source{Kind: "git", URL: "https://git.example.com:8443/Acme/x"}, []string{"git.example.com:8443/Acme/x", "https://git.example.com:8443/Acme/x"}},
		{Source{Kind: "git", URL: "git@GitHub.com:acme/x.git"}, []string{"github.com/acme/x", "https://github.com/acme/x"}},
		{Source{Kind: "git", URL: "file:///srv/repo"}, []string{"/srv/repo"}},
		{Source{Kind: "mcp", URL: "http://127.0.0.1:17500/mcp"}, []string{"mcp+http://127.0.0.1:17500/mcp", "http://127.0.0.1:17500/mcp", "127.0.0.1:17500/mcp"}},
		{Source{Kind: "archive", URL: "https://x.example/a.zip"}, []string{"https://x.example/a.zip", "x.example/a.zip"}},
		{Source{Kind: "dir", Dir: "/w/skills", Origin: "https://github.com/acme/w"}, []string{"/w/skills", "github.com/acme/w", "https://github.com/acme/w"}},
	} {
		got := tc.src.Forms()
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%+v: Forms = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestSourceSpellings: every spelling of one repository (case, port, user,
// .git, slashes, a forge's other host names) is governed by the rules
// written for it, whichever way the rule is written; and a repository
// that is not it is not.
func TestSourceSpellings(t *testing.T) {
	t.Parallel()
	same := []string{
		"https://github.com/acme/repo",
		"https://github.com/ACME/repo",
		"https://GitHub.com/Acme/Repo.git",
		"https://github.com/acme/repo/",
		"https://github.com/acme/repo.git/",
		"https://github.com//acme//repo",
		"https://github.com:443/acme/repo",
		"https://user@github.com/acme/repo",
		"https://www.github.com/acme/repo",
		"http://github.com:80/acme/repo",
		"git@github.com:Acme/repo.git",
		"git@github.com:/acme/repo",
		"ssh://git@github.com/acme/repo.git",
		"ssh://git@github.com:22/acme/repo",
		"ssh://git@ssh.github.com:443/ACME/repo.git",
		"git://github.com:9418/acme/repo",
		"https://github.com/evil/../acme/repo",
		"https://github.com/./acme/./repo",
		"https://github.com/x/%2e%2e/acme/repo",
		"git@github.com:evil/../acme/repo.git",
	}
	other := []string{
		"https://github.com/acme-evil/repo",
		"https://github.com.evil.com/acme/repo",
		"https://evil.com/github.com/acme/repo",
		"https://github.com:8443/acme/repo",
		"git@evil.com:acme/repo.git",
		"https://github.com/acme/../evil/repo",
		"git@github.com:acme/%2E%2E/evil/repo.git",
	}
	for _, rule := range []string{"github.com/acme", "github.com/Acme", "GITHUB.COM/acme/", "github.com:443/acme", "https://github.com/acme", "github.com/acme/repo.git"} {
		p, err := New(Settings{AllowUnsigned: true, From: from(), AllowedSources: []string{rule},
			RequiredSigners: []string{rule + "=*@acme.com@https://accounts.google.com"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range same {
			src := &Source{Kind: "git", URL: u}
			if !p.NeedsSignature(src) {
				t.Errorf("rule %s: %s needs no signature", rule, u)
			}
			if d := p.Decide(Subject{Name: "s", Source: src, Signature: &Signature{}}); d.Allow || d.Rule != RuleRequiredSigners {
				t.Errorf("rule %s: unsigned %s: %+v", rule, u, d)
			}
			if d := p.Decide(Subject{Name: "s", Source: src, Signature: alice}); !d.Allow {
				t.Errorf("rule %s: %s signed by alice: %+v", rule, u, d)
			}
			if d := p.DecideSource(*src); !d.Allow {
				t.Errorf("rule %s: allowed_sources refuses %s: %+v", rule, u, d)
			}
			// A local folder or a marketplace cloned from it.
			for _, s := range []*Source{{Kind: "dir", Dir: "/w/s", Origin: u}, {Kind: "marketplace", Name: "m", Origin: u}} {
				if !p.NeedsSignature(s) {
					t.Errorf("rule %s: %+v needs no signature", rule, *s)
				}
			}
		}
		for _, u := range other {
			src := &Source{Kind: "git", URL: u}
			if d := p.DecideSource(*src); d.Allow {
				t.Errorf("rule %s: allowed_sources allows %s: %+v", rule, u, d)
			}
			if p.NeedsSignature(src) {
				t.Errorf("rule %s: %s needs a signature", rule, u)
			}
		}
	}
}

// TestSourceCaseOnOtherHosts: on a host whose names may be case-sensitive,
// an allowed source must be spelled as the pattern is, but a rule that
// requires signers governs every spelling.
func TestSourceCaseOnOtherHosts(t *testing.T) {
	t.Parallel()
	p, err := New(Settings{AllowUnsigned: true, From: from(), AllowedSources: []string{"git.example.com/acme"},
		RequiredSigners: []string{"git.example.com/acme=*@acme.com@https://accounts.google.com"}})
	if err != nil {
		t.Fatal(err)
	}
	upper := Source{Kind: "git", URL: "https://git.example.com/ACME/repo.git"}
	if d := p.DecideSource(upper); d.Allow {
		t.Errorf("allowed_sources allows %s: %+v", upper.URL, d)
	}
	if !p.NeedsSignature(&upper) {
		t.Errorf("required_signers does not govern %s", upper.URL)
	}
	lower := Source{Kind: "git", URL: "ssh://git@GIT.example.com:22/acme/repo.git"}
	if d := p.DecideSource(lower); !d.Allow {
		t.Errorf("allowed_sources refuses %s: %+v", lower.URL, d)
	}
}
