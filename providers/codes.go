package providers

// The diagnostic codes of plugin problems that more than one provider
// reports, and that the hosts' view (internal/hostview) reads.
const (
	// CodePluginNotInstalled: a host's settings enable a plugin that is
	// not installed, so the host loads nothing of it. The message starts
	// "plugin <plugin@marketplace> ", which the hosts' view reads the
	// plugin from.
	CodePluginNotInstalled = "plugin-not-installed"
	// CodeManifestRejected: the host refuses a plugin's manifest and
	// loads none of its skills (pipeline.DisabledPlugin.Refused).
	CodeManifestRejected = "plugin-manifest-rejected"
)
