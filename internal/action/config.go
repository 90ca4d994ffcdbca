package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// Process is where an action runs: the folder the user ran ccski in, the
// home folder and the environment. cmd fills it from the process; a test
// from the folders it made.
type Process struct {
	// Cwd is the folder the user ran ccski in. Relative paths in flags
	// and variables are taken from it.
	Cwd string
	// Home is the user's home folder; "" when it is not known.
	Home string
	// AccountHome is the home folder of the account ccski runs as, from
	// the system's user database rather than $HOME; "" when it is not
	// known. The trusted root of `ccski trust-root update` is kept there
	// under a managed config's signature rule (Config.RootStateDir).
	AccountHome string
	// Getenv reads one environment variable.
	Getenv func(string) string
	// Environ lists the variables set, as "NAME=value"; the CCSKI_ ones
	// form the configuration's environment layer. Nil: os.Environ.
	Environ func() []string
}

// Config is what every action starts from: the configuration its layers
// set, and the process it runs in. LoadConfig makes one with its layers
// read; NewConfig one that reads them when an action first needs them.
type Config struct {
	Process
	// Loaded is the effective configuration and the layer of each key.
	// In a Config of NewConfig it is nil until Load reads it.
	Loaded *configs.Loaded
	// flags are the flags of the flag layer (may be nil).
	flags *pflag.FlagSet
}

// NewConfig is the configuration of a run in p with flags (flags may be
// nil), its layers not read yet: Load reads them, and Engine does so
// first. An action that needs no configuration for some requests (validate
// and scan of PATHs) then runs even where the configuration does not load.
func NewConfig(p Process, flags *pflag.FlagSet) *Config {
	return &Config{Process: p, flags: flags}
}

// LoadConfig reads the configuration layers for a run in p: the built-in
// defaults, the user and project config files, the CCSKI_ variables and
// the flags of flags the user set (flags may be nil). A layer that does
// not load is a *UsageError.
func LoadConfig(p Process, flags *pflag.FlagSet) (*Config, error) {
	c := NewConfig(p, flags)
	if err := c.Load(); err != nil {
		return nil, err
	}
	return c, nil
}

// Load reads the configuration layers (see LoadConfig), unless they are
// read already. A layer that does not load is a *UsageError.
func (c *Config) Load() error {
	if c.Loaded != nil {
		return nil
	}
	cfgFile := ""
	if c.flags != nil {
		if f := c.flags.Lookup("config"); f != nil && f.Changed {
			cfgFile = absFrom(c.Cwd, c.Home, f.Value.String())
		}
	}
	// Relative paths in flags and variables (--workspace, --user-dir,
	// --skill-dir, ...) are taken from the current folder: Load resolves
	// them against Options.Workspace, so that must be Cwd, not --workspace.
	ld, err := configs.Load(configs.Options{ConfigFile: cfgFile, Workspace: c.Cwd, Home: c.Home,
		Getenv: c.Getenv, Environ: c.Environ, Flags: c.flags, Registry: all.Registry()})
	if err != nil {
		return usage(err)
	}
	c.Loaded = ld
	return nil
}

// absFrom is p as an absolute path: "~/" stands for home, and a relative
// path is taken from base.
func absFrom(base, home, p string) string {
	if strings.HasPrefix(p, "~/") && home != "" {
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// Engine builds the engine the configuration describes (reading the
// layers first if they are not read yet): its providers rooted in the
// user folder and the workspace, its filters checked.
func (c *Config) Engine() (*engine.Engine, error) { return c.EngineWith(nil) }

// EngineWith is Engine with adjust (when not nil) applied to a copy of the
// effective configuration first.
func (c *Config) EngineWith(adjust func(*configs.Config)) (*engine.Engine, error) {
	if err := c.Load(); err != nil {
		return nil, err
	}
	cfg := c.Loaded.Config
	if adjust != nil {
		adjust(&cfg)
	}
	userDir := cfg.UserDir
	if userDir == "" {
		userDir = c.Home
	}
	ws := c.Cwd
	if cfg.Workspace != "" {
		if err := checkFolder(cfg.Workspace); err != nil {
			return nil, usage(fmt.Errorf("workspace %s %w (set by %s); give an existing project folder",
				cfg.Workspace, err, c.Loaded.Sources["workspace"]))
		}
		ws = cfg.Workspace
	}
	e, err := engine.New(cfg, providers.NewEnv(userDir, ws, c.Getenv))
	if err != nil {
		return nil, usage(err)
	}
	if err := e.CheckFilters(); err != nil {
		return nil, usage(err)
	}
	return e, nil
}

// checkFolder returns an error, worded to follow the path, unless p is a
// folder.
func checkFolder(p string) error {
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("does not exist")
	case err != nil:
		return fmt.Errorf("cannot be read: %w", errors.Unwrap(err))
	case !st.IsDir():
		return errors.New("is not a folder")
	}
	return nil
}

// Checks are what a discovery checks in the skills it finds, besides
// reading them. The zero value checks nothing more.
type Checks struct {
	// Trust checks the files of every project and plugin skill against
	// the trust store (Snapshot.Integrity) and records the skills seen
	// for the first time, unless ReadOnly.
	Trust, ReadOnly bool
	// Scan runs the security scan on every skill (Snapshot.Security),
	// blocking nothing, unless mcp.scan is off.
	Scan bool
	// Policy hides the skills the organisation's policy refuses, as a
	// server does: each is dropped by the stage engine.PolicyStageName,
	// whose reason names the rule (list and doctor say why).
	Policy bool
	// Signatures verifies the signature of every skill that carries one
	// (Snapshot.Signatures), hiding nothing, whatever mcp.require_signed
	// says.
	Signatures bool
}

// Discovery is an engine and what one discovery with it found.
type Discovery struct {
	Engine   *engine.Engine
	Snapshot *pipeline.Snapshot
	Stats    engine.Stats
}

// Discover builds the engine and discovers once, with the checks asked
// for. Nothing is hidden by the checks: people see every skill.
func (c *Config) Discover(ctx context.Context, checks Checks) (*Discovery, error) {
	e, err := c.Engine()
	if err != nil {
		return nil, err
	}
	return c.DiscoverWith(ctx, e, checks)
}

// DiscoverWith is Discover with an engine already built.
func (c *Config) DiscoverWith(ctx context.Context, e *engine.Engine, checks Checks) (*Discovery, error) {
	if checks.Scan {
		if mode, _ := scanmode.Parse(c.Loaded.Config.MCP.Scan); mode != scanmode.Off {
			e.SetScan(scanmode.Warn)
		}
	}
	if checks.Trust {
		e.SetTrust(engine.TrustOptions{File: c.TrustFile(), ReadOnly: checks.ReadOnly})
	}
	if checks.Policy {
		pol, err := c.Policy()
		if err != nil {
			return nil, err
		}
		if m := e.ScanMode(); pol.NeedsScan() && (m == "" || m == scanmode.Off) {
			e.SetScan(scanmode.Warn) // the scan verdict is decided on the scan's findings
		}
		e.SetPolicy(pol, c.examiner(pol, e.Env(), false))
		// The policy decides on the signatures the engine verifies.
		checks.Signatures = checks.Signatures || needsSignatures(pol)
	}
	if checks.Signatures {
		v, err := c.Verifier()
		if err != nil {
			return nil, err
		}
		e.SetSigning(engine.SigningOptions{Verifier: v})
	}
	e.DisableCache() // one discovery: a rescan cache would only add to peak memory
	snap, stats, err := e.Snapshot(ctx)
	if err != nil {
		if engine.IsConfigError(err) {
			return nil, usage(err)
		}
		return nil, err
	}
	return &Discovery{Engine: e, Snapshot: snap, Stats: stats}, nil
}

// UsageError is an error in what the action was asked to do: a bad value,
// requests that do not go together, a configuration that does not load.
// cmd exits 2 on it; on any other error of an action, 1.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usage marks err as a usage error.
func usage(err error) error { return &UsageError{Err: err} }

// IsUsage reports whether err is, or wraps, a *UsageError.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}
