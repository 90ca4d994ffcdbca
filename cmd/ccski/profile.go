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

func newProfile(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Save and apply named sets of skills turned on and off per agent",
		Long: `A profile records, for each agent with switches of its own (` + strings.Join(all.HostNames(), ", ") + `),
which skills it reads are on, off or limited, and which plugins are on. It is
kept in ccski's user config folder ($XDG_CONFIG_HOME/ccski/profiles, else
~/.config/ccski/profiles). "profile use" switches every skill and plugin
whose state differs, with the same writers as enable and disable, and prints
what it changes; skills the profile does not name are left as they are.`,
	}
	cmd.AddCommand(newProfileSave(a), newProfileUse(a), newProfileList(a))
	return cmd
}

func newProfileSave(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "save NAME",
		Short: "Save which skills are on for each agent as the profile NAME (replacing it)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			req := action.SaveProfileRequest{Name: args[0]}
			req.Agents, _ = cmd.Flags().GetStringSlice("agent")
			saved, err := action.SaveProfile(cmd.Context(), c, req)
			if err != nil {
				return exitOf(err)
			}
			if a.json {
				return a.writeJSON(saved)
			}
			fmt.Fprintf(a.stdout, "Saved profile %s to %s:\n", saved.Name, saved.File)
			renderProfileHosts(a, saved.Profile)
			return nil
		},
	}
	cmd.Flags().StringSlice("agent", nil, "record only these agents: "+strings.Join(all.HostNames(), ", ")+" (default all)")
	ownFlag(cmd, "agent")
	cmd.Flags().Bool("json", false, "print JSON only: the saved profile")
	discoveryFlags(cmd)
	return cmd
}

func newProfileUse(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "use NAME",
		Short: "Switch skills and plugins to the states the profile NAME records, and print what changes",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			scope, err := scopeFlag(cmd)
			if err != nil {
				return err
			}
			c, err := a.config(cmd)
			if err != nil {
				return err
			}
			req := action.UseProfileRequest{Name: args[0], Scope: scope}
			req.DryRun, _ = cmd.Flags().GetBool("dry-run")
			rep, err := action.UseProfile(cmd.Context(), c, req)
			if err != nil {
				return exitOf(err)
			}
			return a.printToggle(rep)
		},
	}
	cmd.Flags().String("scope", "", "where to write: user, project or local (default: as enable and disable)")
	cmd.Flags().Bool("dry-run", false, "write nothing; print the diff of each file that would change")
	cmd.Flags().Bool("json", false, "print JSON only: the results, the diffs and counts")
	discoveryFlags(cmd)
	return cmd
}

func newProfileList(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the saved profiles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.setup(cmd)
			p, err := process()
			if err != nil {
				return err
			}
			profiles, err := action.ListProfiles(p)
			if err != nil {
				return failErr(err)
			}
			if a.json {
				return a.writeJSON(profiles)
			}
			if len(profiles) == 0 {
				fmt.Fprintln(a.stdout, "No profiles saved (ccski profile save NAME saves one).")
				return nil
			}
			for _, p := range profiles {
				fmt.Fprintf(a.stdout, "%s  %s\n", style(a.color).bold(p.Name), p.Saved.Local().Format(time.DateTime))
				renderProfileHosts(a, p)
			}
			return nil
		},
	}
	cmd.Flags().Bool("json", false, "print JSON only: the profiles")
	return cmd
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
