package integration

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/provenance/provenancetest"
	"github.com/ccski/ccski/internal/testfs"
)

// TestPolicySigningNotFromEnv: a managed config requires the skills of a
// source to be signed by *@acme.com (issuer https://accounts.acme.com). A
// second test Sigstore, the attacker's, signs a forged skill as
// alice@acme.com. Whatever the environment, the user config or a flag say,
// the forged skill is not installed:
//   - with the managed config pinning the trusted root, a variable naming
//     another root, or turning mcp.require_signed off, is an error naming
//     the variable;
//   - with the managed config pinning none, neither the user config's
//     signing.trusted_root, nor a trusted_root.json in a state folder
//     moved by XDG_STATE_HOME or CCSKI_USER_DIR, or in the state folder of
//     a HOME variable (a folder or ".", the project folder), is trusted:
//     only the root `ccski trust-root update` wrote to ~/.local/state/ccski
//     of the account ccski runs as (CCSKITEST_ACCOUNT_HOME stands for its
//     entry in the user database), where it writes under such a managed
//     config whatever XDG_STATE_HOME or HOME say.
func TestPolicySigningNotFromEnv(t *testing.T) {
	t.Parallel()
	b := newInstallBox(t)
	src := filepath.Join(b.root, "src")
	testfs.Write(t, b.root, map[string]string{
		"src/good/SKILL.md":   skillText("good", "Signed by alice with the real root."),
		"src/forged/SKILL.md": skillText("forged", "Signed as alice by the attacker's root."),
	})
	identity := provenancetest.Options{Identity: "alice@acme.com", Issuer: "https://accounts.acme.com"}
	goodRoot := provenancetest.Sign(t, filepath.Join(src, "good"), identity)
	evil := provenancetest.New(t)
	evil.Sign(t, filepath.Join(src, "forged"), identity)
	evilRoot := evil.RootFile(t)
	rule := "policy:\n  required_signers: [\"" + src + "=*@acme.com@https://accounts.acme.com\"]\n"
	installed := func(skill string) bool { return exists(filepath.Join(b.proj, ".claude", "skills", skill)) }
	install := func(t *testing.T, vars []string, skill string) result {
		t.Helper()
		return runBinary(t, b.proj, append(append([]string{}, b.vars...), vars...),
			"install", filepath.Join(src, skill), "--agent", "claude", "--json")
	}

	t.Run("pinned root", func(t *testing.T) {
		managed := managedPolicy(t, t.TempDir(), rule+"signing:\n  trusted_root: "+goodRoot+"\nmcp:\n  require_signed: true\n")
		vars := []string{"CCSKITEST_MANAGED_CONFIG=" + managed}
		for _, hostile := range []string{"CCSKI_SIGNING__TRUSTED_ROOT=" + evilRoot, "CCSKI_SIGNING__STRICT=false",
			"CCSKI_MCP__REQUIRE_SIGNED=false"} {
			name, _, _ := strings.Cut(hostile, "=")
			for _, args := range [][]string{{"install", filepath.Join(src, "forged"), "--agent", "claude"}, {"mcp"}} {
				r := runBinary(t, b.proj, append(append([]string{}, b.vars...), append(vars, hostile)...), args...)
				if r.code == 0 || !strings.Contains(r.stderr, "env "+name) || !strings.Contains(r.stderr, managed) {
					t.Errorf("ccski %s with %s: want an error naming the variable and %s\n%s", args[0], name, managed, r)
				}
			}
			if installed("forged") {
				t.Fatalf("the forged skill was installed with %s", hostile)
			}
		}
	})

	t.Run("no pinned root", func(t *testing.T) {
		managed := managedPolicy(t, t.TempDir(), rule)
		vars := []string{"CCSKITEST_MANAGED_CONFIG=" + managed, "CCSKITEST_ACCOUNT_HOME=" + b.home}
		// A state folder holding the attacker's root, moved to by a
		// variable; and a user config naming it.
		hostileState := filepath.Join(t.TempDir(), "state")
		testfs.Write(t, hostileState, map[string]string{"ccski/trusted_root.json": string(readFile(t, evilRoot))})
		hostileUser := t.TempDir()
		testfs.Write(t, hostileUser, map[string]string{".local/state/ccski/trusted_root.json": string(readFile(t, evilRoot))})
		// HOME=. is the project folder `ccski mcp` runs in, which an MCP
		// entry's env can set.
		testfs.Write(t, b.proj, map[string]string{".local/state/ccski/trusted_root.json": string(readFile(t, evilRoot))})
		userConfig := filepath.Join(b.home, ".config", "ccski", "config.yaml")
		for _, hostile := range [][]string{{"XDG_STATE_HOME=" + hostileState}, {"CCSKI_USER_DIR=" + hostileUser},
			{"HOME=" + hostileUser}, {"HOME=."}, nil} {
			name := "the user config"
			if hostile != nil {
				name = hostile[0]
			}
			if hostile == nil {
				testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "signing:\n  trusted_root: " + evilRoot + "\n"})
			}
			r := install(t, append(vars, hostile...), "forged")
			if r.code == 0 || installed("forged") {
				t.Errorf("%s: the forged skill was installed\n%s", name, r)
				os.RemoveAll(filepath.Join(b.proj, ".claude", "skills", "forged")) // so that the next case stands alone
			}
			if hostile == nil {
				if err := os.Remove(userConfig); err != nil {
					t.Fatal(err)
				}
			}
		}

		// The root trust-root update writes is in force, in the home
		// folder's state folder even with XDG_STATE_HOME set: the skill
		// the real root signed installs, the forged one still does not.
		withXDG := append(vars, "XDG_STATE_HOME="+hostileState)
		r := runBinary(t, b.proj, append(append([]string{}, b.vars...), withXDG...), "trust-root", "update", "--from", goodRoot)
		mustOK(t, r)
		if !exists(filepath.Join(b.home, ".local", "state", "ccski", "trusted_root.json")) {
			t.Errorf("trust-root update did not write to the home folder's state folder\n%s", r)
		}
		if r := install(t, withXDG, "good"); r.code != 0 || !installed("good") {
			t.Errorf("the skill the updated root signed: want it installed\n%s", r)
		}
		for _, hostile := range [][]string{withXDG, append(vars, "HOME=."), append(vars, "HOME="+hostileUser)} {
			if r := install(t, hostile, "forged"); r.code == 0 || installed("forged") {
				t.Errorf("%s: the forged skill was installed with the updated root in force\n%s", hostile[len(hostile)-1], r)
				os.RemoveAll(filepath.Join(b.proj, ".claude", "skills", "forged"))
			}
		}
		if err := os.RemoveAll(filepath.Join(b.proj, ".local")); err != nil {
			t.Fatal(err)
		}

		// A refreshed root that another user could have written is not
		// trusted: the skill it signed does not install.
		rootFile := filepath.Join(b.home, ".local", "state", "ccski", "trusted_root.json")
		if err := os.Chmod(rootFile, 0o666); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(filepath.Join(b.proj, ".claude", "skills", "good"))
		if r := install(t, vars, "good"); runtime.GOOS != "windows" && (r.code == 0 || !strings.Contains(r.stderr, rootFile)) {
			t.Errorf("a root others may write: want an error naming %s\n%s", rootFile, r)
		}
	})
}
