package action

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/ccski/ccski/configs"
	"github.com/ccski/ccski/internal/engine"
	"github.com/ccski/ccski/internal/engine/live"
	"github.com/ccski/ccski/internal/scanmode"
	"github.com/ccski/ccski/internal/security"
	"github.com/ccski/ccski/internal/trust"
	"github.com/ccski/ccski/internal/web"
	"github.com/ccski/ccski/mcp"
	"github.com/ccski/ccski/providers"
	"github.com/ccski/ccski/providers/all"
)

// ServeRequest is ccski mcp; the rest of what the server does is the
// configuration's mcp section.
type ServeRequest struct {
	// Version is ccski's version, which the server announces.
	Version string
	// Log receives the server's log (stderr: over stdio, stdout carries
	// the protocol and nothing else).
	Log io.Writer
	// Signals stop the server, after the calls in flight drain.
	Signals []os.Signal
	// UI, when set, serves the web page to this machine (ccski ui): the
	// http transport at UI's address, behind a token, whatever the
	// configuration's mcp.transport, host and port say.
	UI *UIRequest
}

// Serve serves the skills over MCP until one of req.Signals arrives or
// the transport ends. Discovery runs once the server is serving, and
// again as the files change (mcp.refresh). The server catches the signals
// itself, to log them and drain the calls in flight: ctx's cancellation,
// which the same signals may cause, does not cut that short.
func Serve(ctx context.Context, c *Config, req ServeRequest) error {
	e, err := c.Engine()
	if err != nil {
		return err
	}
	// A slow git server must not hold up discovery: with rescans, the
	// providers fetch in the background. Without them (mcp.refresh off),
	// the one snapshot fetches in the foreground, as a command does.
	e.SetBackground(c.Loaded.Config.MCP.Refresh)
	// A policy that cannot be read serves nothing: the server does not
	// start.
	pol, err := c.Policy()
	if err != nil {
		return err
	}
	mc := c.Loaded.Config.MCP
	log := newLogger(req.Log, mc.LogLevel, mc.LogFormat)
	logIgnored(log, c.Loaded.Ignored)
	scan := mc.Scan
	if pol.NeedsScan() {
		// The policy's scan verdict is decided inside discovery, on the
		// bytes served (as under block).
		scan = string(scanmode.Block)
	}
	// The engines of other workspaces (ForWorkspace) take its signing
	// options.
	require, err := c.RequireSigned()
	if err != nil {
		return err
	}
	if err := signServer(c, e, require, needsSignatures(pol), log); err != nil {
		return err
	}
	lo := live.Options{Interval: mc.RefreshInterval, Watch: mc.Watch, Logger: log}
	if !mc.Refresh {
		lo.Interval, lo.Watch = 0, false
	}
	// Discovery of a workspace: the server's own, and over HTTP that of
	// each session whose client's roots name another folder, with the
	// same scan and trust rules. rec is the server's own recorder, whose
	// drift the skill tool's header shows.
	var rec *trust.Recorder
	var scans *security.Monitor // the server's own: its findings are a metric
	discover := func(e *engine.Engine) *live.Refresher {
		d := live.New(e, lo)
		m := guardServer(e, d, scan, log)
		r := trustServer(e, d, c.TrustFile(), mc.RequireTrusted, log)
		// The policy drops what it refuses before the filters; under
		// policy.allow_unsigned false that is every skill without a
		// verified signature (pol.RequireSigned: what mcp.require_signed
		// asks of the server, which it implies).
		e.SetPolicy(pol, c.examiner(pol, e.Env(), false))
		if rec == nil {
			rec, scans = r, m
		}
		return d
	}
	disc := discover(e)
	transport, host, port, token := mc.Transport, mc.Host, mc.Port, mc.AuthToken
	var listening func(net.Addr)
	var codes *mcp.LoginCodes
	// The catalogue page (mcp.web; ccski ui serves it whatever that
	// says), with each skill's lock origin, hosts and install command.
	page := webPage(mc.Web || req.UI != nil)
	if page != nil {
		page.Facts = webFacts(e, disc.Subscribe)
		page.Public = web.Public{Local: req.UI != nil, Origins: mc.AllowedOrigins, MCP: "/mcp"}
		if mc.Transport == "sse" && req.UI == nil {
			page.Public.MCP = "" // the SSE endpoint, which ccski install does not read
		}
	}
	if req.UI != nil {
		transport = "http"
		if host, port, err = uiAddress(req.UI); err != nil {
			return err
		}
		if token == "" {
			token = newToken()
		}
		// The page opens with a one-time code, never the token: the
		// token stays out of the browser's history and argv.
		codes = mcp.NewLoginCodes()
		if ready := req.UI.Ready; ready != nil {
			listening = func(a net.Addr) { ready(pageURL(a, codes.Issue())) }
		}
	}
	var findings func() map[string]int
	if scans != nil {
		findings = scans.Findings
	}
	forWorkspace := func(dir string) (mcp.Discovery, error) {
		we, err := e.ForWorkspace(dir)
		if err != nil {
			return nil, err
		}
		return discover(we), nil
	}
	err = mcp.Serve(context.WithoutCancel(ctx), mcp.ServeOptions{
		Options: mcp.Options{Version: req.Version, Logger: log, SkillPrompts: mc.SkillPrompts,
			// Optional tools, catalogue budget, ask context cap.
			Tools: mc.Tools, Catalog: mc.Catalog, AskContext: mc.AskContext,
			// Clients may cache lists until the next rescan.
			ListTTL: lo.Interval,
			// The skill tool's header says a skill changed, as list does.
			Drift: rec.Drift,
			// The count of loads that orders the catalogue's descriptions.
			Usage: c.UsageFile(), ScanFindings: findings,
			// The body index of skills_search, kept between runs.
			SearchIndex: c.SearchIndexFile(),
			// The digests of skills/list, kept between runs.
			SkillDigests: c.SkillDigestsFile()},
		Discovery: disc, ForWorkspace: forWorkspace,
		Transport: transport, Host: host, Port: port, Listening: listening,
		HTTP: mcp.HTTPOptions{Stateless: mc.Stateless, AuthToken: token, LoginCodes: codes, AllowedOrigins: mc.AllowedOrigins,
			SessionIdleTimeout: mc.SessionIdleTimeout, MaxSessions: mc.MaxSessions, Web: page},
		DrainDelay: mc.DrainDelay, DrainTimeout: mc.DrainTimeout,
		Signals: req.Signals, ClientName: clientView(c, e, disc, log),
	})
	if engine.IsConfigError(err) { // a filter token that names nothing in the scan
		return usage(err)
	}
	return err
}

// clientView returns, when the agent key is left at its default, the
// hook that makes a stdio server take the view of the host whose MCP
// client starts it (providers.ClientHost): a server Claude Code starts
// never serves a skill Claude Code's own switches turn off, however it
// was registered. A value the user gave the key wins; nil then.
func clientView(c *Config, e *engine.Engine, d *live.Refresher, log *slog.Logger) func(string, bool) {
	if src := c.Loaded.Sources["agent"]; src != "" && src != "default" {
		return nil
	}
	return func(name string, late bool) {
		if h := providers.ClientHost(all.Hosts(), name); h != "" {
			e.SetAgent(h)
			log.Info("serving the view of the client's agent: its own skill switches decide what is off",
				"client", name, "agent", h)
			if late {
				// Discovery did not wait: the snapshot served so far is of
				// all agents. The client's initialize waits for this
				// rescan, so that no answer comes from that view.
				d.Refresh(context.Background())
			}
		}
	}
}

// newLogger is the server's logger, writing to w at level in format (text
// or json).
func newLogger(w io.Writer, level, format string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	o := &slog.HandlerOptions{Level: lv}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}

// logIgnored logs, once at startup, each value of a config file that was
// not taken as written: a project config's that would have loosened a
// sensitive key (configs.Loaded.Ignored). ccski config lists them too.
func logIgnored(log *slog.Logger, ignored []configs.Ignored) {
	for _, ig := range ignored {
		log.Warn("config value ignored", "key", ig.Key, "value", ig.Value, "used", ig.Used,
			"layer", ig.Layer, "reason", ig.Reason)
	}
}

// guardServer applies mcp.scan to a server: under block the engine scans
// inside discovery and drops the skills with an error before they are
// served; under warn and block a monitor logs each flagged skill once (under
// warn it scans in the background, so serving never waits for it). It
// returns the monitor, nil under off.
func guardServer(e *engine.Engine, d *live.Refresher, setting string, log *slog.Logger) *security.Monitor {
	mode, err := scanmode.Parse(setting)
	if err != nil || mode == scanmode.Off {
		return nil // the configuration checked the value; off scans nothing
	}
	if mode == scanmode.Block {
		e.SetScan(scanmode.Block)
		e.SetScanCache(security.CachePath())
	}
	m := security.NewMonitor(mode, log)
	m.CacheFile = security.CachePath()
	d.Subscribe(m.Observe)
	d.SubscribeUnchanged(m.Recheck) // a script edited in place
	return m
}

// trustServer applies mcp.require_trusted to a server, with the trust
// store file: when set, the engine checks the project and plugin skills
// inside discovery and drops the untrusted project skills before they are
// served; either way a recorder records first sights and logs changed
// skills once (without the setting it checks in the background, so
// serving never waits for it). It returns the recorder, nil without a
// store (a nil recorder's Drift says nothing).
func trustServer(e *engine.Engine, d *live.Refresher, file string, require bool, log *slog.Logger) *trust.Recorder {
	if require {
		// Without a store (no home folder), no project skill is served.
		e.SetTrust(engine.TrustOptions{File: file, Require: true})
	}
	if file == "" {
		return nil
	}
	rec := trust.NewRecorder(file, log)
	rec.DigestFile, rec.ResultsFile = trust.DigestCachePath(), trust.ResultsCachePath()
	d.Subscribe(rec.Observe)
	d.SubscribeUnchanged(rec.Recheck) // a script edited in place
	return rec
}

// webPage is the web catalogue's options when mcp.web serves it, else nil.
func webPage(on bool) *web.Options {
	if !on {
		return nil
	}
	return &web.Options{}
}
