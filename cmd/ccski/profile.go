package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/toggle"
	"github.com/ccski/ccski/providers/all"
)

// profileLong is the help of ccski profile, for the hosts named %s.
const profileLong = `A profile records, for each agent with switches of its own (%s),
which skills it reads are on, off or limited, and which plugins are on. It is
kept in ccski's user config folder ($XDG_CONFIG_HOME/ccski/profiles, else
~/.config/ccski/profiles). "profile use" switches every skill and plugin
whose state differs, with the same writers as enable and disable, and prints
what it changes; skills the profile does not name are left as they are.`

func newProfile(a *app) *cobra.Command {
	cmd := command(spec{use: "profile", long: fmt.Sprintf(profileLong, strings.Join(all.HostNames(), ", ")),
		short: "Save and apply named sets of skills turned on and off per agent"})
	cmd.AddCommand(newProfileSave(a), newProfileUse(a), newProfileList(a))
	return cmd
}

func newProfileSave(a *app) *cobra.Command {
	return command(spec{use: "save NAME", args: cobra.ExactArgs(1), run: a.saveProfile,
		short: "Save which skills are on for each agent as the profile NAME (replacing it)"},
		jsonFlag("print JSON only: the saved profile"), discoveryFlags, func(cmd *cobra.Command) {
			cmd.Flags().StringSlice("agent", nil, "record only these agents: "+strings.Join(all.HostNames(), ", ")+" (default all)")
			ownFlag(cmd, "agent")
		})
}

// saveProfile runs ccski profile save.
func (a *app) saveProfile(cmd *cobra.Command, args []string) error {
	req := action.SaveProfileRequest{Name: args[0]}
	req.Agents, _ = cmd.Flags().GetStringSlice("agent")
	saved, err := act(a, cmd, action.SaveProfile, req)
	if err != nil {
		return err
	}
	return a.show(saved, func() {
		fmt.Fprintf(a.stdout, "Saved profile %s to %s:\n", saved.Name, saved.File)
		renderProfileHosts(a, saved.Profile)
	})
}

func newProfileUse(a *app) *cobra.Command {
	return command(spec{use: "use NAME", args: cobra.ExactArgs(1), run: a.useProfile,
		short: "Switch skills and plugins to the states the profile NAME records, and print what changes"},
		jsonFlag(toggleJSONUsage), diffFlag, discoveryFlags, func(cmd *cobra.Command) {
			cmd.Flags().String("scope", "", "where to write: user, project or local (default: as enable and disable)")
		})
}

// useProfile runs ccski profile use.
func (a *app) useProfile(cmd *cobra.Command, args []string) error {
	scope, err := scopeFlag(cmd)
	if err != nil {
		return err
	}
	req := action.UseProfileRequest{Name: args[0], Scope: scope, Notices: a.stderr}
	req.DryRun, _ = cmd.Flags().GetBool("dry-run")
	return a.toggled(act(a, cmd, action.UseProfile, req))
}

func newProfileList(a *app) *cobra.Command {
	return command(spec{use: "list", args: cobra.NoArgs, run: a.listProfiles, short: "List the saved profiles"},
		jsonFlag("print JSON only: the profiles"))
}

// listProfiles runs ccski profile list.
func (a *app) listProfiles(*cobra.Command, []string) error {
	p, err := process()
	if err != nil {
		return err
	}
	profiles, err := action.ListProfiles(p)
	if err != nil {
		return failErr(err)
	}
	return a.show(profiles, func() { renderProfiles(a, profiles) })
}

// renderProfiles prints each saved profile: its name, when it was saved
// and its hosts.
func renderProfiles(a *app, profiles []*toggle.Profile) {
	if len(profiles) == 0 {
		fmt.Fprintln(a.stdout, "No profiles saved (ccski profile save NAME saves one).")
		return
	}
	for _, p := range profiles {
		fmt.Fprintf(a.stdout, "%s  %s\n", style(a.color).Bold(p.Name), p.Saved.Local().Format(time.DateTime))
		renderProfileHosts(a, p)
	}
}

// renderProfileHosts prints one line per host of p.
func renderProfileHosts(a *app, p *toggle.Profile) {
	for _, h := range all.Hosts() {
		hp, ok := p.Hosts[h.Name]
		if !ok {
			continue
		}
		on, other := hp.Counts()
		plugins := 0
		for _, v := range hp.Plugins {
			if v {
				plugins++
			}
		}
		fmt.Fprintf(a.stdout, "  %-12s %d on, %d off or limited; %d of %d plugins on\n", h.Title+":", on, other, plugins, len(hp.Plugins))
	}
	if len(p.Fallback) > 0 {
		off := 0
		for _, f := range p.Fallback {
			if f.Off {
				off++
			}
		}
		fmt.Fprintf(a.stdout, "  %-12s %d of %d skills renamed .SKILL.md (hidden from every agent)\n", "Files:", off, len(p.Fallback))
	}
}
