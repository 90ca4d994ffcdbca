package gitfetch

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

var (
	// SCPLike is git's user@host:path form of a URL.
	SCPLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/]`)
	// URLSchemes are the URL schemes of the git URLs ccski fetches.
	URLSchemes = []string{"https://", "http://", "ssh://", "git://", "file://", "git+ssh://"}
)

// IsCommit reports whether s is a full commit hash (SHA-1 or SHA-256).
func IsCommit(s string) bool { return fullCommit.MatchString(s) }

// CheckURL accepts the git URLs ccski fetches (a scheme of URLSchemes, or
// user@host:path) and nothing git would run a command for (ext::, an
// option): a lock's URL arrives with a clone. A URL with a password is
// refused: it would be printed and written to ccski.lock.
func CheckURL(u string) error {
	ok := SCPLike.MatchString(u)
	for _, scheme := range URLSchemes {
		ok = ok || len(u) > len(scheme) && strings.EqualFold(u[:len(scheme)], scheme)
	}
	if !ok || strings.HasPrefix(u, "-") || strings.ContainsFunc(u, unicode.IsControl) {
		return fmt.Errorf("git URL %q is not one ccski fetches: use https://, http://, ssh://, git://, file:// or user@host:path", u)
	}
	if HasPassword(u) {
		return PasswordError(u)
	}
	if !strings.HasPrefix(strings.ToLower(u), "file://") {
		p := u
		if _, rest, ok := strings.Cut(u, "://"); ok {
			_, p, _ = strings.Cut(rest, "/")
		} else if _, rest, ok := strings.Cut(u, ":"); ok {
			p = rest
		}
		for seg := range strings.SplitSeq(p, "/") {
			if DotSegment(seg) != 0 {
				return fmt.Errorf("git URL %q has a %q path segment, which makes it name another repository than it "+
					"reads as: write the repository's path without it", u, seg)
			}
		}
	}
	return nil
}

// DotSegment is 1 for a "." path segment, 2 for "..", in any mix of the
// dots and their percent-encoding ("%2e"), and 0 for any other: a URL's
// path is read with them resolved.
func DotSegment(seg string) int {
	switch strings.ReplaceAll(strings.ToLower(seg), "%2e", ".") {
	case ".":
		return 1
	case "..":
		return 2
	}
	return 0
}

// PasswordError is the error of a URL holding a password.
func PasswordError(u string) error {
	return fmt.Errorf("git URL %s holds a password, which ccski would print and write to ccski.lock: "+
		"remove it and let git find it with a credential helper (git help credential)", RedactURL(u))
}

// HasPassword reports whether the scheme URL u holds a password.
func HasPassword(u string) bool {
	_, ok := userPassword(u)
	return ok
}

// userPassword returns where the password of a scheme URL starts, and
// whether it has one.
func userPassword(u string) (int, bool) {
	i := strings.Index(u, "://")
	if i < 0 {
		return 0, false
	}
	host := u[i+3:]
	if j := strings.IndexAny(host, "/?#"); j >= 0 {
		host = host[:j]
	}
	at := strings.LastIndexByte(host, '@')
	if at < 0 {
		return 0, false
	}
	colon := strings.IndexByte(host[:at], ':')
	if colon < 0 {
		return 0, false
	}
	return i + 3 + colon + 1, true
}

// RedactURL hides the password of a URL.
func RedactURL(u string) string {
	start, ok := userPassword(u)
	if !ok {
		return u
	}
	end := start + strings.IndexByte(u[start:], '@')
	return u[:start] + "***" + u[end:]
}
