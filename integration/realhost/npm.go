package realhost

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/safefile"
)

// CacheEnv names the variable that, when set, is the folder the npm
// packages are installed into instead of the user's cache folder.
const CacheEnv = "REALHOST_CACHE_DIR"

// Set is npm packages, at exact versions, installed together into one
// folder of the cache the first time a test asks for them; later runs, and
// the other test binaries of one `go test ./...` run, reuse the install.
// Both the real hosts (Install) and the MCP conformance tools
// (InstallMCPTools) are one.
type Set struct {
	// What names the set in skip messages ("Claude Code and Codex").
	What string
	// Packages are exact npm specs: name@version, or alias@npm:name@version
	// to install two versions of one package side by side. The folder's
	// name is made of them, so changing a version installs afresh.
	Packages []string
	// Ready reports whether the install in dir works (its commands run).
	Ready func(dir string) bool

	once sync.Once
	dir  string
	skip string
	err  error
}

// Install returns the folder the set is installed in (its node_modules
// is there), installing it from npm first when no finished install is in
// the cache. It skips t when npm is not on PATH, when its registry
// answers the probe with anything but a 2xx or not at all, and when npm
// install fails for a network reason; it fails t when the install fails
// otherwise.
func (s *Set) Install(t testing.TB) string {
	t.Helper()
	s.once.Do(func() { s.dir, s.skip, s.err = s.install() })
	if s.skip != "" {
		t.Skip(s.skip)
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.dir
}

// folder is the cache folder of the set's pinned versions.
func (s *Set) folder() (string, error) {
	base := os.Getenv(CacheEnv)
	if base == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("no cache folder for the npm packages of the tests (%v): set %s", err, CacheEnv)
		}
		base = filepath.Join(cache, "ccski-test-hosts")
	}
	name := strings.NewReplacer("@", "", "/", "-", ":", "-").Replace(strings.Join(s.Packages, "_"))
	return filepath.Join(base, name), nil
}

// installedMark is the file written into the cache folder once npm
// install has finished and the set is ready; a folder without it (an
// install killed half-way) is installed again from scratch.
const installedMark = ".installed"

func (s *Set) install() (dir, skip string, err error) {
	if dir, err = s.folder(); err != nil {
		return "", "", err
	}
	mark := filepath.Join(dir, installedMark)
	if s.installed(dir, mark) {
		return dir, "", nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", s.What + ": npm is not on PATH, so they cannot be installed; skipped", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	// Test binaries of one `go test ./...` run at once; the lock makes
	// them install one after the other, and the later ones find the
	// first's install (the mark) and reuse it.
	release, err := safefile.LockFile(filepath.Join(dir, ".lock"), 0o644, nil)
	if err != nil {
		return "", "", fmt.Errorf("locking %s: %w", dir, err)
	}
	defer release()
	if s.installed(dir, mark) {
		return dir, "", nil
	}
	if why := registryUnreachable(npm, packageName(s.Packages[0])); why != "" {
		return "", s.What + ": the npm registry cannot be used (" + why + "), so they cannot be installed; skipped", nil
	}
	// Whatever an earlier, unfinished install left is removed first.
	for _, name := range []string{"node_modules", "package-lock.json"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return "", "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"ccski-test-hosts","private":true}`+"\n"), 0o644); err != nil {
		return "", "", err
	}
	cmd := exec.Command(npm, append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error"}, s.Packages...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		if why := networkFailure(string(out)); why != "" {
			return "", s.What + ": npm install could not fetch them (" + why + "); skipped", nil
		}
		return "", "", fmt.Errorf("npm install %s in %s: %v\n%s", strings.Join(s.Packages, " "), dir, err, out)
	}
	if !s.Ready(dir) {
		return "", "", fmt.Errorf("npm install %s in %s gave commands that do not run:\n%s", strings.Join(s.Packages, " "), dir, out)
	}
	if err := os.WriteFile(mark, []byte(strings.Join(s.Packages, "\n")+"\n"), 0o644); err != nil {
		return "", "", err
	}
	return dir, "", nil
}

// installed reports whether an install finished (mark is there) and is
// ready.
func (s *Set) installed(dir, mark string) bool {
	if _, err := os.Stat(mark); err != nil {
		return false
	}
	return s.Ready(dir)
}

// packageName returns the registry name of an npm spec: "@scope/name"
// for "@scope/name@1.2.3" and for "alias@npm:@scope/name@1.2.3".
func packageName(spec string) string {
	if _, real, ok := strings.Cut(spec, "@npm:"); ok {
		spec = real
	}
	if i := strings.LastIndex(spec, "@"); i > 0 {
		spec = spec[:i]
	}
	return spec
}

// runs reports whether the command argv exits 0.
func runs(argv ...string) bool {
	return exec.Command(argv[0], argv[1:]...).Run() == nil
}

// networkCodes are the error codes npm prints when it cannot fetch from
// its registry: the name does not resolve, the connection fails or times
// out, a proxy or mirror refuses (403, 404, 407), or a proxy's
// certificate is not trusted.
var networkCodes = []string{
	"ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "ESOCKETTIMEDOUT", "ECONNREFUSED", "ECONNRESET",
	"EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EPIPE", "E403", "E404", "E407", "E429", "E500",
	"E502", "E503", "E504", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
	"UNABLE_TO_VERIFY_LEAF_SIGNATURE", "CERT_HAS_EXPIRED",
}

// networkFailure returns the network error code in npm's output, or ""
// when the failure is something else (a broken package, a full disk).
func networkFailure(out string) string {
	for _, line := range strings.Split(out, "\n") {
		for _, code := range networkCodes {
			if containsWord(line, code) {
				return code
			}
		}
	}
	return ""
}

// containsWord reports whether word occurs in s not inside a longer word.
func containsWord(s, word string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isWordByte(s[start-1])) && (end == len(s) || !isWordByte(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// registryUnreachable returns why npm's registry cannot be used to
// install the package pkg, or "": any answer but a 2xx to the probe (a
// mirror or proxy's 403, 404 or 407 as much as a 5xx) means npm install
// would fail.
func registryUnreachable(npm, pkg string) string {
	reg := "https://registry.npmjs.org/"
	if out, err := exec.Command(npm, "config", "get", "registry").Output(); err == nil {
		if s := strings.TrimSpace(string(out)); strings.HasPrefix(s, "http") {
			reg = s
		}
	}
	return probe(reg, pkg)
}

// probe asks the registry reg for the package pkg ("@scope/name") and
// returns why it cannot be used, or "".
func probe(reg, pkg string) string {
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get(strings.TrimSuffix(reg, "/") + "/" + strings.ReplaceAll(pkg, "/", "%2f"))
	if err != nil {
		return err.Error()
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return reg + " answered " + resp.Status
	}
	return ""
}
