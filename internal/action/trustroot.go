package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ccski/ccski/internal/provenance"
	"github.com/ccski/ccski/internal/safefile"
	"github.com/ccski/ccski/internal/userdirs"
)

// TrustRootUpdateRequest is what ccski trust-root update asks for: where
// the new Sigstore trusted root comes from.
type TrustRootUpdateRequest struct {
	// URL is the TUF repository; "" is Sigstore's public-good one
	// (provenance.DefaultTUFMirror).
	URL string
	// TUFRoot is the path of the TUF root metadata (root.json) URL is
	// checked from; "" is Sigstore's public-good root, for its own
	// repository only.
	TUFRoot string
	// From is a trusted_root.json file to install instead of asking a
	// TUF repository (a machine without the network).
	From string
}

// TrustRootUpdate refreshes the trusted root signatures are checked
// against and writes it to ccski's user state folder: the only action
// of signature verification that uses the network. A root that does not
// check out is refused and the one in force kept.
func TrustRootUpdate(ctx context.Context, c *Config, r TrustRootUpdateRequest) (*provenance.RootUpdate, error) {
	if r.From != "" && (r.URL != "" || r.TUFRoot != "") {
		return nil, usage(fmt.Errorf("--from installs a file; it does not go with --url or --tuf-root"))
	}
	state, err := c.RootStateDir()
	if err != nil {
		return nil, err
	}
	req := provenance.UpdateRequest{StateDir: state, URL: r.URL}
	if r.From != "" {
		req.From = absFrom(c.Cwd, c.Home, r.From)
	}
	if r.TUFRoot != "" {
		if req.TUFRoot, err = safefile.Read(absFrom(c.Cwd, c.Home, r.TUFRoot), provenance.MaxRootBytes); err != nil {
			return nil, usage(fmt.Errorf("--tuf-root: %w", err))
		}
	}
	return provenance.UpdateRoot(ctx, req)
}

// StateDir is ccski's user state folder of the configuration's user
// folder (user_dir, else the home folder), reading the layers first.
func (c *Config) StateDir() (string, error) {
	if err := c.Load(); err != nil {
		return "", err
	}
	userDir := c.Loaded.Config.UserDir
	if userDir == "" {
		userDir = c.Home
	}
	return userdirs.StateDir(userDir, c.Getenv)
}

// RootStateDir is the state folder of the trusted root `ccski trust-root
// update` writes and the Verifier reads. It is StateDir, except under a
// managed config that sets a signature rule (configs.Loaded.ManagedSigning):
// then no variable, flag or user config moves it, since whoever chooses
// the folder chooses the root every signature is checked against. It is
// the state folder of the managed config's user_dir, else of the home
// folder of the account ccski runs as (AccountHome, from the user
// database, not $HOME), as if XDG_STATE_HOME were unset:
// ~/.local/state/ccski. That folder must be an absolute path.
func (c *Config) RootStateDir() (string, error) {
	if err := c.Load(); err != nil {
		return "", err
	}
	ld := c.Loaded
	if !ld.ManagedSigning {
		return c.StateDir()
	}
	userDir := c.AccountHome
	if strings.HasPrefix(ld.Sources["user_dir"], "managed config ") && ld.Config.UserDir != "" {
		userDir = ld.Config.UserDir
	}
	if !filepath.IsAbs(userDir) {
		return "", fmt.Errorf("the home folder of the account ccski runs as is not known to the user database (got %q): "+
			"set signing.trusted_root or user_dir in the managed config", userDir)
	}
	return userdirs.StateDir(userDir, func(string) string { return "" })
}

// Verifier builds the signature verifier of the configuration's signing
// keys (signing.trusted_root, signing.keys, signing.strict), with the
// trusted root ccski trust-root update wrote (in RootStateDir) in force
// when signing.trusted_root is empty. Under a managed config's signature
// rule that root is read only when the account ccski runs as owns it and
// no one else may write it (checkRootFile). Build it once per command.
func (c *Config) Verifier() (*provenance.Verifier, error) {
	if err := c.Load(); err != nil {
		return nil, err
	}
	s := c.Loaded.Config.Signing
	guarded := c.Loaded.ManagedSigning && s.TrustedRoot == ""
	state, err := c.RootStateDir()
	switch {
	case err != nil && guarded:
		// Never fall back to the process's state folder, which the
		// environment chooses.
		return nil, fmt.Errorf("the trusted root of `ccski trust-root update`: %w", err)
	case err != nil:
		state = "" // the process's, else the shipped root; unused when signing.trusted_root is set
	case guarded:
		if err := checkRootFile(filepath.Join(state, provenance.RootFile)); err != nil {
			return nil, err
		}
	}
	v, err := provenance.NewVerifier(provenance.Config{TrustedRoot: s.TrustedRoot, Keys: s.Keys, Lax: !s.Strict, StateDir: state})
	if err != nil {
		return nil, usage(err)
	}
	return v, nil
}

// checkRootFile checks the trusted root file `ccski trust-root update`
// wrote before it is trusted under a managed config's signature rule: a
// regular file that the account ccski runs as owns and that neither its
// group nor others may write (ownedPrivate). No file is no error: the
// root ccski ships is then in force.
func checkRootFile(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("trusted root written by `ccski trust-root update`: %w", err)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("trusted root %s is not a regular file: remove it and run `ccski trust-root update`", path)
	}
	if err := ownedPrivate(fi, os.Getuid()); err != nil {
		return fmt.Errorf("trusted root %s %v: only a root the account ccski runs as owns and no one else may write is trusted "+
			"under the managed config's signature rule; remove it and run `ccski trust-root update`", path, err)
	}
	return nil
}
