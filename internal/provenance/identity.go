package provenance

import (
	"errors"
	"fmt"
	"strings"
)

// Identity is an expected signer: what install --signer and
// policy.required_signers match a Signer against. Identity may be a glob
// ('*' any run of characters, '?' one character; see Match for which
// characters they never cross); a glob needs an Issuer (ParseIdentity
// refuses one without).
type Identity struct {
	// Identity is the signer's identity, or a glob of it ("*@example.com",
	// "https://github.com/org/*").
	Identity string `json:"identity"`
	// Issuer is the expected OIDC issuer; "" matches any, which only an
	// exact identity may leave out.
	Issuer string `json:"issuer,omitempty"`
}

// ParseIdentity reads "IDENTITY[@ISSUER]", the one syntax of install
// --signer and of policy.required_signers: the issuer is what follows the
// last "@" when that is an http(s) URL
// ("alice@example.com@https://accounts.google.com",
// "https://github.com/org/*@https://token.actions.githubusercontent.com");
// else the whole text is the identity. It refuses what Match could not
// read safely: a glob with no issuer (any OIDC provider trusted by the root
// could vouch for a matching name), an email form with more than one "@",
// and a URI form whose scheme is not a bare word (such as
// "a@https://x/p@y", where the issuer is not clear).
func ParseIdentity(s string) (Identity, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Identity{}, errors.New("empty signer: give an identity such as alice@example.com or " +
			"*@example.com@https://accounts.google.com (IDENTITY[@ISSUER URL])")
	}
	id := Identity{Identity: s}
	if i := strings.LastIndex(s, "@"); i > 0 {
		if iss := s[i+1:]; strings.HasPrefix(iss, "https://") || strings.HasPrefix(iss, "http://") {
			id = Identity{Identity: s[:i], Issuer: iss}
		}
	}
	switch kindOf(id.Identity) {
	case kindURI:
		scheme, _, _ := strings.Cut(id.Identity, "://")
		if !isScheme(scheme) {
			return Identity{}, fmt.Errorf("signer %q is not clear: an identity holding :// is a URI "+
				"(https://github.com/org/repo/...), and %q is no URI scheme; write IDENTITY@ISSUER with the issuer an http(s) URL", s, scheme)
		}
	case kindEmail:
		if strings.Count(id.Identity, "@") != 1 || strings.HasPrefix(id.Identity, "@") || strings.HasSuffix(id.Identity, "@") {
			return Identity{}, fmt.Errorf("signer %q is not clear: an email identity holds one @ "+
				"(alice@example.com, *@example.com), optionally followed by @ISSUER, an http(s) URL", s)
		}
	}
	if kindOf(id.Identity) != kindURI && strings.ContainsAny(id.Identity, `[]\`) {
		return Identity{}, fmt.Errorf("signer %q holds [, ] or \\: a pattern knows only * and ?, "+
			"and no email or key identity holds these", s)
	}
	if id.Issuer == "" && isGlob(id.Identity) {
		return Identity{}, fmt.Errorf("signer %q is a pattern with no issuer: any OIDC provider the trusted "+
			"root accepts could vouch for a name it matches; name the issuer, such as %s@https://accounts.google.com "+
			"or %s@https://token.actions.githubusercontent.com (for a key or certificate of signing.keys, give its exact identity)",
			s, id.Identity, id.Identity)
	}
	return id, nil
}

// String is "IDENTITY" or "IDENTITY@ISSUER", as ParseIdentity reads it.
func (id Identity) String() string {
	if id.Issuer == "" {
		return id.Identity
	}
	return id.Identity + "@" + id.Issuer
}

// Match reports whether s is the expected signer: its issuer equal to
// id.Issuer (unless that is empty), and its identity equal to id.Identity
// or matching it as a glob. A nil s (no signature) matches nothing, and
// neither does a glob with no issuer.
//
// A glob is matched by the kind of identity it is, and only against an
// identity of the same kind, so that '*' never crosses into a part of the
// identity the author did not mean:
//
//   - an email ("*@example.com": one "@", no "://") matches an email with
//     exactly one "@": the local part and the domain apart ('*' never
//     crosses "@"), the domain case-insensitively and label by label ('*'
//     never crosses "."), so "*@example.com" matches neither
//     "a@b@example.com", "https://evil.com/@example.com", nor a GitHub
//     Actions URI whose ref ends in "@example.com";
//   - a URI ("https://github.com/org/*") matches a URI of the same scheme
//     and host ('*' in the host never crosses "." or "/"; a host holding
//     user info "@" matches no glob), and '*' in the path crosses "/" but
//     never "@". A pattern whose path holds no "@" is matched against the
//     identity's path up to its first "@" (a workflow's "@refs/..."), so
//     "https://github.com/org/*" matches every workflow of org's
//     repositories at any ref; to pin the ref, write it
//     ("https://github.com/org/repo/.github/workflows/release.yml@refs/tags/*");
//   - anything else (a key's "key:sha256:...", a certificate's DNS name or
//     subject) matches an identity of neither kind, '*' never crossing
//     "@", "/", ":" or ".".
//
// The glob "*" alone matches every identity (its issuer must be given).
func (id Identity) Match(s *Signer) bool {
	if s == nil || id.Identity == "" || s.Identity == "" {
		return false
	}
	if id.Issuer != "" && !strings.EqualFold(strings.TrimSuffix(id.Issuer, "/"), strings.TrimSuffix(s.Issuer, "/")) {
		return false
	}
	if id.Identity == s.Identity {
		return true
	}
	if !isGlob(id.Identity) || id.Issuer == "" {
		return false
	}
	if id.Identity == "*" {
		return true
	}
	kind := kindOf(id.Identity)
	if kindOf(s.Identity) != kind {
		return false
	}
	switch kind {
	case kindEmail:
		pl, pd, _ := strings.Cut(id.Identity, "@")
		sl, sd, _ := strings.Cut(s.Identity, "@")
		return strings.Count(s.Identity, "@") == 1 && !strings.ContainsAny(sd, "/") &&
			glob(pl, sl, "@") && glob(strings.ToLower(pd), strings.ToLower(sd), "@./")
	case kindURI:
		return matchURI(id.Identity, s.Identity)
	}
	return glob(id.Identity, s.Identity, "@/:.")
}

// matchURI matches a URI identity against a URI pattern (see Match).
func matchURI(pattern, s string) bool {
	pScheme, pRest, _ := strings.Cut(pattern, "://")
	sScheme, sRest, _ := strings.Cut(s, "://")
	if !strings.EqualFold(pScheme, sScheme) {
		return false
	}
	pHost, pPath, _ := strings.Cut(pRest, "/")
	sHost, sPath, _ := strings.Cut(sRest, "/")
	if strings.Contains(sHost, "@") || !glob(strings.ToLower(pHost), strings.ToLower(sHost), "@./") {
		return false
	}
	if !strings.Contains(pPath, "@") {
		sPath, _, _ = strings.Cut(sPath, "@")
	}
	return glob(pPath, sPath, "@")
}

// The kinds of identity Match tells apart.
const (
	kindOther = iota
	kindEmail
	kindURI
)

// kindOf is the kind of an identity or a pattern of one.
func kindOf(s string) int {
	switch {
	case strings.Contains(s, "://"):
		return kindURI
	case strings.Contains(s, "@"):
		return kindEmail
	}
	return kindOther
}

// isScheme reports whether s is a URI scheme: a letter, then letters,
// digits, "+", "-" or ".".
func isScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !isLetter(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// isGlob reports whether s holds a wildcard of glob.
func isGlob(s string) bool { return strings.ContainsAny(s, "*?") }

// glob reports whether s matches pattern, where '*' is any run of
// characters and '?' any one character, neither of them ever matching a
// character of stop; every other character of pattern is literal.
func glob(pattern, s, stop string) bool {
	// The classic greedy matcher with one backtrack point: on a mismatch
	// the last '*' takes one character more, unless that is a stop.
	p, i := 0, 0
	star, from := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, from = p, i
			p++
		case p < len(pattern) && (pattern[p] == '?' && !strings.ContainsRune(stop, rune(s[i])) || pattern[p] == s[i] && pattern[p] != '?'):
			p++
			i++
		case star >= 0 && !strings.ContainsRune(stop, rune(s[from])):
			from++
			p, i = star+1, from
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
