package main

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/install"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/validate"
	"github.com/ccski/ccski/pipeline"
	"github.com/ccski/ccski/providers/all"
)

// Shell completion. Cobra adds the "completion" command, which prints the
// script for a shell, and the hidden "__complete" command the script calls
// with the words typed so far. The functions here answer it: the ids and
// names of the discovered skills and commands for info's argument, filter
// tokens for --include and --exclude, and the values of every flag that takes
// one of a fixed set. Completions go to stdout, one per line, and nothing
// else does: discovery never prints, and a discovery that fails completes
// nothing.

// completionDescWidth caps the description shown beside a completion.
const completionDescWidth = 60

// registerCompletions adds the completion functions to every command
// below root, subcommands (profile use) included.
func (a *app) registerCompletions(root *cobra.Command) {
	for _, cmd := range root.Commands() {
		if fn := a.argCompletion(cmd); fn != nil {
			cmd.ValidArgsFunction = fn
		}
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if fn := a.flagCompletion(cmd, f.Name); fn != nil {
				_ = cmd.RegisterFlagCompletionFunc(f.Name, fn)
			}
		})
		a.registerCompletions(cmd)
	}
}

// argCompletion returns the completion function of cmd's arguments, or
// nil to leave the shell's default: skill ids and names for the commands
// that take skills (the skills each can act on), profile names for
// profile use.
func (a *app) argCompletion(cmd *cobra.Command) completionFunc {
	switch cmd.CommandPath() {
	case "ccski info":
		return a.completeRecordIDs
	case "ccski disable":
		return a.completeRecords(nil, isSkill, true)
	case "ccski enable":
		return a.completeRecords(func(c *configs.Config) { c.State = "disabled" }, isSkill, true)
	case "ccski trust":
		// Project and plugin skills, turned off ones included (--all
		// accepts them too).
		return a.completeRecords(func(c *configs.Config) { c.State = "all" }, func(r *pipeline.Record) bool {
			return isSkill(r) && (r.Location == pipeline.LocationProject || r.Location == pipeline.LocationPlugin)
		}, true)
	case "ccski remove", "ccski update":
		return a.completeLocked
	case "ccski profile use":
		return a.completeProfiles
	}
	return nil
}

// isSkill keeps the records that are skills, not slash commands.
func isSkill(r *pipeline.Record) bool { return !r.IsCommand() }

// completionFunc is what cobra calls to complete a flag value or an
// argument.
type completionFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// flagCompletion returns the completion function of cmd's flag name, or
// nil to leave the shell's default (file names).
func (a *app) flagCompletion(cmd *cobra.Command, name string) completionFunc {
	switch name {
	case "include", "exclude":
		return a.completeFilterTokens
	case "kind":
		if cmd.Name() == "validate" {
			return fixedValues(stringsOf(validate.Kinds))
		}
		return fixedValues([]string{string(pipeline.TypeSkill), string(pipeline.TypeCommand)})
	case "format":
		return fixedValues(stringsOf(report.Formats))
	case "profile":
		return fixedValues(stringsOf(validate.Profiles))
	case "agent":
		if installsSkills(cmd) {
			return fixedValues(append(install.Agents(), "all"))
		}
		return configValues("agent")
	case "scope":
		if installsSkills(cmd) {
			return fixedValues([]string{string(install.ScopeProject), string(install.ScopeUser)})
		}
		if cmd.Name() == "install-workflow" {
			return fixedValues([]string{"user", "project"})
		}
		return fixedValues([]string{"user", "project", "local"})
	case "mode":
		return fixedValues([]string{pipeline.ModeOff, pipeline.ModeNameOnly, pipeline.ModeUserInvocableOnly})
	case "transport":
		return configValues("mcp.transport")
	case "log-level":
		return configValues("mcp.log_level")
	case "log-format":
		return configValues("mcp.log_format")
	case "tools":
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return completeList(toComplete, configs.Values(all.Registry(), "mcp.tools"), nil), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
		}
	case "workspace", "user-dir", "skill-dir", "claude-plugins-root":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	case "config":
		return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return []cobra.Completion{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
		}
	}
	return nil
}

// configValues completes one of the values the configuration allows for
// key, read when a shell asks: every command registers its completions
// at start, and reading the configuration's spec there cost a quarter of
// a command's start-up.
func configValues(key string) completionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return fixedValues(configs.Values(all.Registry(), key))(cmd, args, toComplete)
	}
}

// fixedValues completes one of values.
func fixedValues(values []string) completionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, v := range values {
			if hasPrefixFold(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// installsSkills reports whether cmd places skills as install does, so
// that its --scope and --agent take install's values.
func installsSkills(cmd *cobra.Command) bool {
	switch cmd.CommandPath() {
	case "ccski install", "ccski installed", "ccski update", "ccski remove", "ccski new":
		return true
	}
	return false
}

// completeRecordIDs completes info's one argument with the id of every
// visible skill and command, under the filters given so far, and with
// their names and short names that info resolves to one record, each with
// the description of the record it shows.
func (a *app) completeRecordIDs(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.completeRecords(nil, nil, false)(cmd, args, toComplete)
}

// completeRecords completes an argument with the id of every visible
// record keep keeps (every one when keep is nil), discovered under the
// flags typed so far with adjust applied (see snapshot), and with their
// names and short names that resolve to one record, each with the
// description of the record it shows. With many, the command takes
// several and the ones already given are left out; else only its first
// argument is completed.
func (a *app) completeRecords(adjust func(*configs.Config), keep func(*pipeline.Record) bool, many bool) completionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 && !many {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		snap, err := a.snapshot(cmd, adjust)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		seen := map[string]bool{}
		given := map[*pipeline.Record]bool{} // a record an earlier argument names
		for _, arg := range args {
			seen[strings.ToLower(arg)] = true
			if f, err := snap.LookupAny(arg); err == nil {
				given[f.Record] = true
			}
		}
		add := func(value string, r *pipeline.Record) {
			if k := strings.ToLower(value); !seen[k] && !given[r] && hasPrefixFold(value, toComplete) {
				seen[k] = true
				out = append(out, cobra.CompletionWithDesc(value, completionDesc(r.Description)))
			}
		}
		var records []*pipeline.Record
		for _, r := range snap.Visible {
			if keep == nil || keep(r) {
				records = append(records, r)
			}
		}
		for _, r := range records {
			add(r.ID, r)
		}
		for _, r := range records {
			for _, name := range []string{r.Name, r.ShortName()} {
				if seen[strings.ToLower(name)] || !hasPrefixFold(name, toComplete) {
					continue
				}
				// Only a name that shows one record, as info would show it.
				if f, err := snap.LookupAny(name); err == nil && (keep == nil || keep(f.Record)) {
					add(name, f.Record)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeLocked completes the arguments of remove and update with the
// skills the project's and the user's ccski.lock name, each described by
// its scope and source, leaving out the ones already given.
func (a *app) completeLocked(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	c, err := a.config(cmd)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	skills, err := action.LockedSkills(c)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	for _, arg := range args {
		name, _, _ := strings.Cut(arg, "@") // update's NAME@ref
		seen[name] = true
	}
	var out []cobra.Completion
	for _, s := range skills {
		if !seen[s.Name] && hasPrefixFold(s.Name, toComplete) {
			seen[s.Name] = true
			out = append(out, cobra.CompletionWithDesc(s.Name, completionDesc(string(s.Scope)+": "+s.Source)))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeProfiles completes profile use's one argument with the names
// of the saved profiles.
func (a *app) completeProfiles(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	p, err := process()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	profiles, err := action.ListProfiles(p)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, pr := range profiles {
		if hasPrefixFold(pr.Name, toComplete) {
			out = append(out, cobra.CompletionWithDesc(pr.Name, "saved "+pr.Saved.UTC().Format("2006-01-02 15:04")))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// snapshot discovers once under the configuration the flags typed so
// far set, with adjust (when not nil) applied to it first.
func (a *app) snapshot(cmd *cobra.Command, adjust func(*configs.Config)) (*pipeline.Snapshot, error) {
	c, err := a.config(cmd)
	if err != nil {
		return nil, err
	}
	e, err := c.EngineWith(adjust)
	if err != nil {
		return nil, err
	}
	d, err := c.DiscoverWith(cmd.Context(), e, action.Checks{})
	if err != nil {
		return nil, err
	}
	return d.Snapshot, nil
}

// completeFilterTokens completes the last comma-separated token of an
// --include or --exclude value: auto, all, @plugins, every provider, every
// plugin (@plugins:<plugin>), the id of every record of the scan, hidden
// ones included (an id brings back a hidden copy), and every name and
// short name (a bare name selects every copy of it). The filters
// themselves are not applied: a half-typed one must not empty the list.
func (a *app) completeFilterTokens(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	snap, err := a.snapshot(cmd, func(c *configs.Config) {
		c.Include, c.Exclude, c.State = nil, nil, "all"
	})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	values := []string{"auto", "all", "@plugins"}
	descs := map[string]string{"auto": "every skill, one copy of each", "all": "every copy",
		"@plugins": "every Claude plugin skill"}
	providers := all.ProviderNames()
	var plugins []string
	for _, r := range snap.All {
		if !slices.Contains(providers, r.Agent) {
			providers = append(providers, r.Agent)
		}
		if r.Plugin != nil && !slices.Contains(plugins, r.Plugin.Plugin) {
			plugins = append(plugins, r.Plugin.Plugin)
		}
	}
	for _, p := range providers {
		values = append(values, p)
		descs[p] = "provider"
	}
	for _, p := range plugins {
		values = append(values, "@plugins:"+p)
		descs["@plugins:"+p] = "the skills of plugin " + p
	}
	for _, r := range snap.All {
		values = append(values, r.ID)
		descs[r.ID] = completionDesc(r.Description)
	}
	for _, r := range snap.All {
		for _, name := range []string{r.Name, r.ShortName()} {
			if _, ok := descs[name]; !ok {
				values = append(values, name)
				descs[name] = "everything named " + name
			}
		}
	}
	return completeList(toComplete, values, descs), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeList completes the last comma-separated entry of toComplete
// with values that start with it (ignoring case), once each (ignoring
// case: the first spelling stays), leaving out values the earlier entries
// already name. Each completion repeats the earlier entries, since the
// shell replaces the whole word.
func completeList(toComplete string, values []string, descs map[string]string) []cobra.Completion {
	head, last := "", toComplete
	if i := strings.LastIndex(toComplete, ","); i >= 0 {
		head, last = toComplete[:i+1], toComplete[i+1:]
	}
	given := strings.Split(strings.ToLower(head), ",")
	var out []cobra.Completion
	seen := map[string]bool{}
	for _, v := range values {
		k := strings.ToLower(v)
		if seen[k] || slices.Contains(given, k) || !hasPrefixFold(v, last) {
			continue
		}
		seen[k] = true
		out = append(out, cobra.CompletionWithDesc(head+v, descs[v]))
	}
	return out
}

// completionDesc is a description on one line, cut to
// completionDescWidth characters.
func completionDesc(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= completionDescWidth {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:completionDescWidth-1])) + "…"
}

// hasPrefixFold reports whether s starts with prefix, ignoring case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// stringsOf converts a list of string-typed values.
func stringsOf[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}
