package action

import (
	"net/url"
	"time"

	"github.com/ccski/ccski/internal/skillsext"
	"github.com/ccski/ccski/providers/remote"
)

// mcpSourceOptions returns how install, update and remove read an MCP
// server source (see install.Installer.MCP): with the bearer token of
// providers.remote.token (which only the user and managed configs and
// the CCSKI_ variables set) for the server the user named in
// this run (*named, once parsed), the servers of providers.remote.servers
// and, with userLock, every server of the user's own lock (in ccski's user
// config folder); without one for any other: a URL that only a project's
// lock names, which arrives with a clone, never receives the user's token.
// Each request waits at most timeout (0: skillsext.DefaultTimeout).
func (c *Config) mcpSourceOptions(named *string, userLock bool, timeout time.Duration) func(u string) skillsext.Options {
	var o *remote.Options
	if c.Loaded != nil {
		if v, err := c.Loaded.Config.ProviderOptions(remote.Entry()); err == nil {
			o, _ = v.(*remote.Options)
		}
	}
	return func(u string) skillsext.Options {
		if o == nil || o.Token == "" {
			return skillsext.Options{Timeout: timeout}
		}
		ok := userLock || *named != "" && sameServer(*named, u)
		if o != nil {
			for _, s := range o.Servers {
				ok = ok || sameServer(string(s), u)
			}
		}
		if !ok {
			return skillsext.Options{Timeout: timeout}
		}
		return skillsext.Options{Token: o.Token, Timeout: timeout}
	}
}

// sameServer reports whether two URLs name one server: the same scheme,
// host and port.
func sameServer(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Scheme == ub.Scheme && ua.Host == ub.Host
}
