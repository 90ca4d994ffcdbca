package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ccski/ccski/internal/action"
)

// spec is a command's help, the arguments it takes and what runs it:
// parse the flags, call an action, print.
type spec struct {
	use, short, long, example string
	args                      cobra.PositionalArgs
	run                       func(cmd *cobra.Command, args []string) error
}

// command builds the cobra command s describes, with the flags each of
// flags adds, in order.
func command(s spec, flags ...func(*cobra.Command)) *cobra.Command {
	cmd := &cobra.Command{Use: s.use, Short: s.short, Long: s.long, Example: s.example, Args: s.args, RunE: s.run}
	for _, add := range flags {
		add(cmd)
	}
	return cmd
}

// jsonFlag returns what adds --json, with usage.
func jsonFlag(usage string) func(*cobra.Command) {
	return func(cmd *cobra.Command) { cmd.Flags().Bool("json", false, usage) }
}

// act loads the configuration the flags of cmd and the environment set,
// then runs the action do with req. Either's error gets its exit code.
func act[Req, Res any](a *app, cmd *cobra.Command, do func(context.Context, *action.Config, Req) (Res, error), req Req) (Res, error) {
	c, err := a.config(cmd)
	if err != nil {
		var none Res
		return none, err
	}
	res, err := do(cmd.Context(), c, req)
	return res, exitOf(err)
}

// actLazy is act with the configuration read only when do first needs
// it (action.NewConfig): validate and scan of PATHs read none, and run
// where it does not load.
func actLazy[Req, Res any](cmd *cobra.Command, do func(context.Context, *action.Config, Req) (Res, error), req Req) (Res, error) {
	p, err := process()
	if err != nil {
		var none Res
		return none, err
	}
	res, err := do(cmd.Context(), action.NewConfig(p, cmd.Flags()), req)
	return res, exitOf(err)
}

// show prints v as JSON with --json, else calls text.
func (a *app) show(v any, text func()) error {
	if a.json {
		return a.writeJSON(v)
	}
	text()
	return nil
}
