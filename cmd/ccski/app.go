package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/filters"
	"github.com/ccski/ccski/internal/action"
	"github.com/ccski/ccski/internal/report"
	"github.com/ccski/ccski/internal/safetext"
	"github.com/ccski/ccski/pipeline"
)

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1 // not found, ambiguous, failed
	exitUsage = 2 // bad flags, arguments or configuration
	// exitUpdates is ccski update --check's when a skill would update,
	// for CI (apart from 1 and 2, which say the check could not be done).
	exitUpdates = 10
)

// version is the build version, set with -ldflags "-X main.version=..." or
// read from the module build info.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	switch {
	case rev == "":
		return "dev"
	case dirty:
		return "dev-" + rev + "-dirty"
	}
	return "dev-" + rev
}

// exitError carries an exit code and, for --json, the error object to print.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(err error) error { return &exitError{code: exitUsage, err: err} }
func failErr(err error) error  { return &exitError{code: exitFail, err: err} }

// app holds what every command shares.
type app struct {
	stdout, stderr io.Writer
	color          bool
	json           bool
}

func run(args []string, stdout, stderr io.Writer) int {
	// Everything ccski prints goes through a safetext.Writer: names,
	// descriptions, paths and SKILL.md text come from files ccski does not
	// control, and must not reach a terminal as escape sequences.
	out, errOut := safetext.NewWriter(stdout), safetext.NewWriter(stderr)
	defer func() { _ = out.Flush(); _ = errOut.Flush() }()
	stdout, stderr = out, errOut
	a := &app{stdout: stdout, stderr: stderr}
	root := newRoot(a)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitUsage // cobra's own errors: unknown flag, bad arguments
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else {
		err = usageErr(err) // so that --json reports code "usage" too
	}
	if !a.json {
		// A bad flag or argument stops cobra before the command reads
		// --json; the caller still asked for JSON.
		a.json = argsWantJSON(args)
	}
	if errors.Is(err, action.ErrValidationFailed) || errors.Is(err, action.ErrScanFailed) || errors.Is(err, action.ErrDoctorFailed) ||
		errors.Is(err, errReported) {
		a.json = false // the report, already on stdout, says it all
	}
	a.printError(err)
	return code
}

// argsWantJSON reports whether args, up to a "--", turn --json (or
// --format json) on.
func argsWantJSON(args []string) bool {
	on := false
	for i, arg := range args {
		switch v, hasValue := strings.CutPrefix(arg, "--json="); {
		case arg == "--":
			return on
		case arg == "--json":
			on = true
		case hasValue:
			on, _ = strconv.ParseBool(v)
		case arg == "--format" && i+1 < len(args):
			on = args[i+1] == "json"
		case strings.HasPrefix(arg, "--format="):
			on = strings.TrimPrefix(arg, "--format=") == "json"
		}
	}
	return on
}

func newRoot(a *app) *cobra.Command {
	root := &cobra.Command{
		Use:           "ccski",
		Short:         "One view of every Agent Skill on this machine, for people and agents",
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().Bool("no-color", false, "turn colour off (also NO_COLOR)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr(fmt.Errorf("%w (see %s --help)", err, c.CommandPath()))
	})
	root.AddCommand(newList(a), newInfo(a), newSearch(a), newSources(a), newConfig(a), newMCP(a), newValidate(a),
		newEnable(a), newDisable(a), newProfile(a), newInstallWorkflow(a), newScan(a),
		newInstall(a), newInstalled(a), newUpdate(a), newRemove(a), newTrust(a), newNew(a), newDoctor(a), newPolicy(a), newUI(a))
	root.AddCommand(newTrustRoot(a))
	a.registerCompletions(root)
	addProfileFlags(root)
	var stop func()
	// Before every command: the presentation flags, then the profiles.
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		a.setup(cmd)
		stop = a.startProfiles(cmd)
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if stop != nil {
			stop()
		}
	}
	return root
}

// setup reads the presentation flags every command shares: before every
// command runs, and again where a command reads its own.
func (a *app) setup(cmd *cobra.Command) {
	noColor, _ := cmd.Flags().GetBool("no-color")
	if f := cmd.Flags().Lookup("json"); f != nil {
		a.json = f.Value.String() == "true"
	}
	a.color = !a.json && report.ColorOn(a.stdout, noColor)
	if sw, ok := a.stdout.(*safetext.Writer); ok {
		sw.SetColor(a.color) // let ccski's own colour sequences through
	}
}

// discoveryFlags adds the shared discovery flags to cmd.
func discoveryFlags(cmd *cobra.Command) {
	configs.AddFlags(cmd.Flags())
}

// process is this process as the actions see it: the current folder, the
// home folder and the environment.
func process() (action.Process, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return action.Process{}, failErr(fmt.Errorf("cannot read the current folder: %w", err))
	}
	home, _ := os.UserHomeDir()
	// Environ lets the configuration see every CCSKI_ variable, so that an
	// unknown one is an error rather than silently ignored.
	return action.Process{Cwd: cwd, Home: home, AccountHome: accountHome(), Getenv: os.Getenv, Environ: setEnviron}, nil
}

// config reads the configuration layers the flags of cmd and the
// environment set.
func (a *app) config(cmd *cobra.Command) (*action.Config, error) {
	p, err := process()
	if err != nil {
		return nil, err
	}
	c, err := action.LoadConfig(p, cmd.Flags())
	return c, exitOf(err)
}

// exitOf gives the error of an action its exit code: 2 for an
// action.UsageError, else 1. nil stays nil.
func exitOf(err error) error {
	switch {
	case err == nil:
		return nil
	case action.IsUsage(err):
		return usageErr(err)
	}
	return failErr(err)
}

// setEnviron is os.Environ without the variables set to "": an empty
// CCSKI_ variable counts as unset, as it does for Getenv.
func setEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		if _, v, ok := strings.Cut(kv, "="); ok && v != "" {
			out = append(out, kv)
		}
	}
	return out
}

// jsonError is what --json prints on stdout when a command fails.
type jsonError struct {
	Error       string   `json:"error"`
	Code        string   `json:"code"`
	Candidates  []string `json:"candidates,omitempty"`
	Suggestions []string `json:"suggestions,omitempty"`
}

// printError writes err to stderr and, with --json, an error object to
// stdout.
func (a *app) printError(err error) {
	var nf *pipeline.NotFoundError
	var amb *pipeline.AmbiguousError
	var tok *filters.TokenError
	je := jsonError{Error: err.Error(), Code: "error"}
	switch {
	case errors.As(err, &nf):
		je.Code, je.Suggestions = "not_found", nf.Suggestions
	case errors.As(err, &amb):
		je.Code, je.Candidates = "ambiguous", amb.Candidates
	case errors.As(err, new(*pipeline.PluginDisabledError)):
		je.Code = "plugin_disabled"
	case errors.As(err, &tok):
		je.Code, je.Suggestions = "invalid_filter", tok.Suggestions
	default:
		var ee *exitError
		if errors.As(err, &ee) && ee.code == exitUsage {
			je.Code = "usage"
		}
	}
	fmt.Fprintf(a.stderr, "ccski: %v\n", err)
	if a.json {
		a.writeJSON(je)
	}
}

func (a *app) writeJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeJSONArray writes items as writeJSON would write the slice, byte for
// byte, but a chunk at a time: a list of 10,000 skills never sits in
// memory as one document, twice (marshalled, then indented). Chunks are
// encoded on every core, at most two per core ahead of the writer, and
// written in order.
func writeJSONArray[T any](w io.Writer, items []T) error {
	if len(items) == 0 {
		_, err := io.WriteString(w, "[]\n")
		return err
	}
	const chunk = 256
	chunks := (len(items) + chunk - 1) / chunk
	type encoded struct {
		buf *bytes.Buffer
		err error
	}
	out := make([]chan encoded, chunks)
	for i := range out {
		out[i] = make(chan encoded, 1)
	}
	ahead := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := range chunks {
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				buf, err := encodeJSONItems(items[i*chunk:min(len(items), (i+1)*chunk)], i == 0)
				out[i] <- encoded{buf, err}
			}()
		}
	}()
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("[\n  ")
	for i := range chunks {
		e := <-out[i]
		<-ahead
		if e.err != nil {
			return e.err
		}
		bw.Write(e.buf.Bytes())
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

// encodeJSONItems encodes items as the elements of an indented array,
// each preceded by the separator from the previous one unless first.
func encodeJSONItems[T any](items []T, first bool) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	for i := range items {
		if i > 0 || !first {
			buf.WriteString(",\n  ")
		}
		if err := enc.Encode(items[i]); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // the Encoder's newline
	}
	return &buf, nil
}

// flagChanged reports whether the user set the named flag.
func flagChanged(fs *pflag.FlagSet, name string) bool {
	f := fs.Lookup(name)
	return f != nil && f.Changed
}
