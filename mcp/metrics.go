package mcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// metrics are the server's Prometheus metrics, in a registry of the
// server's own (never the global one: a test or a process may build many
// servers). /metrics serves them (serveOps).
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec   // method, result
	latency  *prometheus.HistogramVec // method
	skills   prometheus.Gauge
	rescans  prometheus.Counter
}

// The results a request is counted under.
const (
	resultOK        = "ok"         // answered
	resultError     = "error"      // a JSON-RPC error
	resultToolError = "tool_error" // a tools/call answered with isError
)

// newMetrics builds s's metrics: the requests by method and result, their
// latency, the skills served, the rescans, the live sessions, the scan
// findings (o.ScanFindings), and the Go runtime's and the process's own.
func newMetrics(s *Server, o Options) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ccski_mcp_requests_total",
		Help: "MCP requests and notifications received, by method and result (ok, error: a JSON-RPC error, tool_error: a tools/call answered with isError).",
	}, []string{"method", "result"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "ccski_mcp_request_duration_seconds",
		Help: "Time to answer an MCP request, by method, once the first snapshot is in.",
		// From a cached list (tens of µs) to a load of a large skill.
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
	}, []string{"method"})
	m.skills = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "ccski_skills_served",
		Help: "Skills and commands the current snapshot serves (visible records).",
	})
	m.rescans = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ccski_rescans_total",
		Help: "Snapshots the server took from discovery: the first one and every rescan since that changed something.",
	})
	sessions := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ccski_mcp_sessions",
		Help: "MCP sessions open: those of 2025-era clients over streamable HTTP or SSE, and requests of 2026-07-28 clients in flight.",
	}, func() float64 {
		n := 0
		for range s.sdk.Sessions() {
			n++
		}
		return float64(n)
	})
	ready := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "ccski_ready",
		Help: "1 while the server is ready for traffic (/readyz answers 200), else 0.",
	}, func() float64 {
		if s.Ready() {
			return 1
		}
		return 0
	})
	m.reg.MustRegister(m.requests, m.latency, m.skills, m.rescans, sessions, ready,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.ScanFindings != nil {
		m.reg.MustRegister(findingsCollector{
			desc: prometheus.NewDesc("ccski_scan_findings",
				"Findings of the security scan (mcp.scan) in the skills of the last snapshot scanned, by severity.",
				[]string{"severity"}, nil),
			count: o.ScanFindings,
		})
	}
	return m
}

// findingsCollector reports the scan's findings as the scanner counted
// them last.
type findingsCollector struct {
	desc  *prometheus.Desc
	count func() map[string]int
}

var _ prometheus.Collector = findingsCollector{}

func (c findingsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c findingsCollector) Collect(ch chan<- prometheus.Metric) {
	counts := c.count()
	for _, sev := range []string{"error", "warning", "info"} {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(counts[sev]), sev)
	}
}

// observe is the receiving middleware that counts each request by method
// and result, and times it. It runs inside untilReady, so a request held
// for the first snapshot is timed from then.
func (s *Server) observe(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		start := time.Now()
		res, err := next(ctx, method, req)
		label := methodLabel(method)
		result := resultOK
		switch {
		case err != nil:
			result = resultError
		case method == "tools/call":
			if r, ok := res.(*sdk.CallToolResult); ok && r.IsError {
				result = resultToolError
			}
		}
		s.metrics.requests.WithLabelValues(label, result).Inc()
		if !strings.HasPrefix(method, "notifications/") {
			s.metrics.latency.WithLabelValues(label).Observe(time.Since(start).Seconds())
		}
		return res, err
	}
}

// knownMethods are the methods counted under their own name; any other
// (a client's own, a typo) is counted as "other", so that a client cannot
// grow the metrics without bound.
var knownMethods = func() map[string]bool {
	known := map[string]bool{}
	for _, m := range []string{"initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get",
		"resources/list", "resources/read", "resources/templates/list", "resources/subscribe",
		"resources/unsubscribe", "resources/directory/read", "completion/complete", "logging/setLevel",
		"subscriptions/listen", "skills/list", "skills/get",
		"notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed",
		"notifications/progress"} {
		known[m] = true
	}
	return known
}()

func methodLabel(method string) string {
	if knownMethods[method] {
		return method
	}
	return "other"
}

// observeSnapshot counts a snapshot the server took (Update).
func (m *metrics) observeSnapshot(n int) {
	m.skills.Set(float64(n))
	m.rescans.Inc()
}

// Metrics returns the registry of the server's metrics (what /metrics
// serves).
func (s *Server) Metrics() *prometheus.Registry { return s.metrics.reg }

// Ready reports whether the server is ready for traffic: its first
// snapshot is in, no source of it is still waiting for its first content
// (pipeline.CodeSourceNotReady: a git repository never checked out), and
// it is not shutting down (Stopping, Drain).
func (s *Server) Ready() bool { return s.notReady() == "" }

// notReady says why the server is not ready, "" when it is.
func (s *Server) notReady() string {
	if s.stopping.Load() || s.draining.Load() {
		return "shutting down"
	}
	select {
	case <-s.ready:
	default:
		return "the first scan of the skills is still running"
	}
	if d := s.snap.Load().NotReady(); d != nil {
		// The probe is open: it names the provider, not the source's
		// address or error (ccski sources and the log say those).
		return "the skills of providers." + d.Provider + " are not fetched yet"
	}
	return ""
}

// Stopping marks the server as leaving: /readyz answers 503 from now on,
// so that a load balancer sends no new traffic, while requests are still
// served (Drain refuses them).
func (s *Server) Stopping() { s.stopping.Store(true) }

// serveOps adds the operations endpoints to mux: /readyz, open like
// /healthz (a kubelet's probe carries no token, and the answer says only
// ready or not), and /metrics, behind the same Origin and token checks as
// /mcp (the metrics name methods and counts; a scraper sends the token).
func (s *Server) serveOps(mux *http.ServeMux, o HTTPOptions) {
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if why := s.notReady(); why != "" {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready: " + why + "\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	metrics := promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{
		ErrorLog: promLogger{s}, ErrorHandling: promhttp.ContinueOnError})
	mux.Handle("GET /metrics", s.observeMistakes(s.guard(o, metrics)))
}

// promLogger passes promhttp's errors (a collector that failed) to the
// server's log.
type promLogger struct{ s *Server }

func (l promLogger) Println(v ...any) {
	l.s.log.Warn("collecting metrics failed", "err", strings.TrimSpace(fmt.Sprintln(v...)))
}
