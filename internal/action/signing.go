package action

import (
	"log/slog"

	"github.com/ccski/ccski/internal/engine"
)

// signServer applies signature verification to a server's engine: every
// skill that carries a signature is verified inside discovery, so that
// skills/list can name its signer, and under mcp.require_signed only the
// skills whose signature verifies are served, each only while its files
// are the bytes verified. A verifier that cannot be built (a bad
// signing.trusted_root or signing.keys) fails the server under
// mcp.require_signed, or when the policy decides on signatures (policy
// true: see needsSignatures); otherwise it is logged, and nothing is
// verified.
func signServer(c *Config, e *engine.Engine, require, policy bool, log *slog.Logger) error {
	v, err := c.Verifier()
	if err != nil {
		if require || policy {
			return err // a usage error naming the key
		}
		log.Warn("signatures not verified: the signing configuration does not load", "err", err.Error())
		return nil
	}
	e.SetSigning(engine.SigningOptions{Verifier: v, Require: require})
	return nil
}

// RequireSigned reports whether signatures are required where skills are
// served: mcp.require_signed, or policy.allow_unsigned false, which
// implies it. ccski mcp, list, info and doctor all ask it here.
func (c *Config) RequireSigned() (bool, error) {
	pol, err := c.Policy()
	if err != nil {
		return false, err
	}
	return c.Loaded.Config.MCP.RequireSigned || pol.RequireSigned(), nil
}
