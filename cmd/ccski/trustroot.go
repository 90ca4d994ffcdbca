package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/provenance"
)

// trustRootLong is the help of ccski trust-root.
const trustRootLong = `Manage the Sigstore trusted root that skill signatures are checked against.

A signed skill carries a Sigstore bundle (skill.oms.sig, model.sig, *.oms.sig or
skill.sigstore.json). ccski checks it offline: a keyless signature against the
trusted root (the certificate authorities, transparency logs and timestamp
authorities of Sigstore's public-good instance, which ccski ships), a key or
certificate signature against signing.keys. signing.trusted_root names another
root file.`

// trustRootUpdateLong is the help of ccski trust-root update.
const trustRootUpdateLong = `Fetch the current Sigstore trusted root and use it from now on.

The root is fetched through Sigstore's TUF repository (` + provenance.DefaultTUFMirror + `),
whose signed metadata vouches for it, and written to trusted_root.json in ccski's
user state folder ($XDG_STATE_HOME/ccski, else ~/.local/state/ccski). This is the
only command of signature verification that uses the network. --url and --tuf-root
name another TUF repository and the root metadata to check it from; --from installs
a trusted_root.json file instead, for a machine without the network. A root that
does not check out is refused, and the one in force is kept.`

func newTrustRoot(a *app) *cobra.Command {
	cmd := command(spec{use: "trust-root", long: trustRootLong,
		short: "Manage the Sigstore trusted root skill signatures are checked against"})
	cmd.AddCommand(command(spec{use: "update", args: cobra.NoArgs, long: trustRootUpdateLong, run: a.runTrustRootUpdate,
		short: "Fetch the current Sigstore trusted root (through TUF) and use it from now on"},
		jsonFlag("print JSON only: what changed"), func(cmd *cobra.Command) {
			cmd.Flags().String("url", "", "TUF repository to fetch from (default "+provenance.DefaultTUFMirror+")")
			cmd.Flags().String("tuf-root", "", "the TUF repository's root metadata (root.json) to check it from; needed with --url")
			cmd.Flags().String("from", "", "install this trusted_root.json file instead of fetching one")
		}))
	return cmd
}

// runTrustRootUpdate runs ccski trust-root update.
func (a *app) runTrustRootUpdate(cmd *cobra.Command, _ []string) error {
	var req action.TrustRootUpdateRequest
	req.URL, _ = cmd.Flags().GetString("url")
	req.TUFRoot, _ = cmd.Flags().GetString("tuf-root")
	req.From, _ = cmd.Flags().GetString("from")
	u, err := act(a, cmd, action.TrustRootUpdate, req)
	if err != nil {
		return err
	}
	return a.show(u, func() {
		st := style(a.color)
		if !u.Changed {
			fmt.Fprintf(a.stdout, "The trusted root from %s is the one in force (%s): nothing changed.\n", u.Source, u.Path)
			return
		}
		fmt.Fprintf(a.stdout, "Updated the trusted root from %s: wrote %s (was %s).\n", u.Source, u.Path, u.Previous)
		for _, e := range u.Added {
			fmt.Fprintf(a.stdout, "  %s %s\n", st.Green("+"), e)
		}
		for _, e := range u.Removed {
			fmt.Fprintf(a.stdout, "  %s %s\n", st.Red("-"), e)
		}
		if len(u.Added)+len(u.Removed) == 0 {
			fmt.Fprintln(a.stdout, "  Same authorities and logs; the file itself changed.")
		}
	})
}
