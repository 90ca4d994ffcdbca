package security

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ccski/ccski/internal/manifest"
	"github.com/ccski/ccski/internal/safefile"
)

// Credential paths: the places secrets are kept.
var (
	// credentialDirs are dot-folders and dot-files of the home folder,
	// reported when written as a path (after / or \, or followed by /).
	credentialDirs = []string{".ssh", ".aws", ".gnupg", ".azure", ".kube/config", ".docker/config.json",
		".config/gh", ".config/gcloud", ".netrc", ".git-credentials", ".pypirc", ".password-store"}
	// credentialNames are file names and commands reported as words: the
	// macOS keychain as the commands that read secrets out of it (the
	// word alone is everyday code-signing talk).
	credentialNames = []string{"id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", "login.keychain", "find-generic-password",
		"find-internet-password", "dump-keychain", "/etc/shadow", "application_default_credentials.json"}
)

func credentialAnchors() []anchor {
	const code = CodeCredentialPath
	return slices.Concat(
		anchorsOf(code, verifyCredentialDir, credentialDirs...),
		anchorsOf(code, verifyCredentialName, credentialNames...),
		anchorsOf(code, verifyDotEnv, ".env"))
}

func verifyCredentialDir(f *file, start, end int) (string, bool) {
	d := f.data
	prevSep := start > 0 && (d[start-1] == '/' || d[start-1] == '\\')
	nextSep := end < len(d) && (d[end] == '/' || d[end] == '\\')
	if !prevSep && !nextSep || end < len(d) && (isWordByte(d[end]) || d[end] == '-') {
		return "", false
	}
	if start > 0 && (isWordByte(d[start-1]) || d[start-1] == '.' || d[start-1] == '-') {
		return "", false // a host name (api.aws/...) or a longer name
	}
	return credentialMessage(f, start, end)
}

func verifyCredentialName(f *file, start, end int) (string, bool) {
	d := f.data
	if d[start] != '/' && !wordStart(d, start) || !wordEnd(d, end) {
		return "", false
	}
	if strings.HasPrefix(string(d[end:min(len(d), end+4)]), ".pub") {
		return "", false // a public key
	}
	return credentialMessage(f, start, end)
}

// verifyDotEnv: a .env file name in a script ("load_dotenv('.env')", "cat
// ../.env"), not process.env, .envrc or .env.example.
func verifyDotEnv(f *file, start, end int) (string, bool) {
	d := f.data
	if !f.is(classScript) {
		return "", false
	}
	if start > 0 && (isWordByte(d[start-1]) || d[start-1] == '.' || d[start-1] == '$') {
		return "", false // process.env, os.environ, $ENV
	}
	if end < len(d) && (isWordByte(d[end]) || d[end] == '-') {
		return "", false
	}
	rest := strings.ToLower(string(d[end:min(len(d), end+10)]))
	if hasPrefixIn(rest, ".example", ".sample", ".template", ".dist", ".defaults") {
		return "", false
	}
	return credentialMessage(f, start, end)
}

// credentialMessage is the finding for a credential path at start:end;
// in instructions, a sentence that warns against it is no finding.
func credentialMessage(f *file, start, end int) (string, bool) {
	d := f.data
	ls, le := lineBounds(d, start)
	if f.is(classDoc) {
		s, _ := sentenceBounds(d, start, end)
		if negated(d, s, start) {
			return "", false
		}
	}
	// Extend the excerpt to the whole path.
	e := end
	for e < le && e-start < 80 && !strings.ContainsRune(" \t\"'`)]>,;", rune(d[e])) {
		e++
	}
	s := start
	for s > ls && start-s < 40 && !strings.ContainsRune(" \t\"'`([<,;=", rune(d[s-1])) {
		s--
	}
	what := "an instruction"
	if f.is(classScript) {
		what = "a script"
	}
	return what + " refers to " + excerpt(d, s, e) + ", where the user's credentials are kept: make sure the " +
		"skill needs it, and that nothing sends it anywhere", true
}

// checkSymlinks reports the links of the folder that lead outside it.
func checkSymlinks(c *skillCheck) {
	for _, l := range c.w.links {
		c.add(filepath.Join(c.w.dir, filepath.FromSlash(l.rel)), "this symlink leads outside the skill folder, to %s: "+
			"the agent's file tools follow it to whatever is there; copy what the skill needs into the folder instead",
			excerptString(l.target))
	}
}

// excerptString quotes a string for a message (see excerpt).
func excerptString(s string) string { return excerpt([]byte(s), 0, len(s)) }

// checkSize reports a folder over a manifest limit.
func checkSize(c *skillCheck) {
	l := c.w.limit
	if l == nil {
		return
	}
	msg := l.Error()
	switch l.Limit {
	case manifest.TooManyFiles:
		msg += "; the scan stopped at the limit, so the files after it were not checked"
	case manifest.TooManyBytes:
		msg += "; the scan read at most " + safefile.Size(maxTotal) + " of it"
	case manifest.FileTooLarge:
		msg += "; the scan read only its first " + safefile.Size(maxText)
	}
	c.add(c.w.dir, "%s", msg)
}

// checkIncomplete reports what the walk and the reads left out (see
// walked.incomplete), and a walk stopped at the file limit; a file cut
// at the read limit, or a rule that gave up on a file, is reported with
// that file.
func checkIncomplete(c *skillCheck) {
	if l := c.w.limit; l != nil && l.Limit == manifest.TooManyFiles {
		c.add(c.w.dir, "the walk stopped after %d files, so the files after them were not read", manifest.MaxFiles)
	}
	for i, why := range c.w.incomplete {
		if i == maxPerFile {
			c.add(c.w.dir, "and %d more parts were not read", len(c.w.incomplete)-i)
			break
		}
		c.add(c.w.dir, "%s", why)
	}
}
