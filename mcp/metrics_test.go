package mcp

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// opsPorts are the loopback ports the operations tests listen on.
const opsFirstPort, opsLastPort = 17800, 17849

// opsServer serves h on the first free port of opsPorts on 127.0.0.1.
func opsServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	for port := opsFirstPort; port <= opsLastPort; port++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
		ts.Start()
		t.Cleanup(ts.Close)
		return ts
	}
	t.Fatalf("no free port in 127.0.0.1:%d-%d", opsFirstPort, opsLastPort)
	return nil
}

// scrape GETs /metrics with token and parses it with the Prometheus text
// parser.
func scrape(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics = %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return families
}

// sample returns the value of the metric of family name whose labels are
// labels (name=value pairs): a counter's or gauge's value, a histogram's
// count; -1 when there is none.
func sample(families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	f := families[name]
	if f == nil {
		return -1
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return -1
}

// probe GETs path and returns its status and body.
func probe(t *testing.T, url string) (int, string) {
	t.Helper()
	code, _, body := rawRequest(t, http.MethodGet, url, "", nil)
	return code, strings.TrimSpace(body)
}

// TestMetricsScraped scrapes /metrics before and after calls over
// streamable HTTP, in both eras, parses it with the Prometheus text
// parser, and checks that the counters moved by the calls made: requests
// by method and result, their latency histogram, the skills served, the
// rescans, the sessions and the scan findings. /metrics needs the token;
// /healthz and /readyz do not.
func TestMetricsScraped(t *testing.T) {
	const token = "metrics-secret"
	recs := makeRecords(t, t.TempDir(),
		skillSpec{provider: "claude", name: "pdf", desc: "PDF files"},
		skillSpec{provider: "codex", name: "docx", desc: "Word files"})
	findings := map[string]int{"warning": 3, "error": 1}
	srv := New(snapOf(recs), Options{Version: "metrics-test", Logger: discard(),
		ScanFindings: func() map[string]int { return findings }})
	ts := opsServer(t, srv.Handler(HTTPOptions{AuthToken: token}))
	t.Cleanup(srv.CloseSessions)

	if code, _ := probe(t, ts.URL+"/metrics"); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token = %d, want 401", code)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := probe(t, ts.URL+path); code != http.StatusOK {
			t.Errorf("GET %s without the token = %d %q, want 200", path, code, body)
		}
	}

	before := scrape(t, ts.URL, token)
	for name, want := range map[string]float64{"ccski_skills_served": 2, "ccski_rescans_total": 1, "ccski_ready": 1} {
		if got := sample(before, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := sample(before, "ccski_scan_findings", "severity", "warning"); got != 3 {
		t.Errorf("ccski_scan_findings{severity=warning} = %v, want 3", got)
	}
	if got := sample(before, "ccski_scan_findings", "severity", "error"); got != 1 {
		t.Errorf("ccski_scan_findings{severity=error} = %v, want 1", got)
	}
	if sample(before, "go_goroutines") <= 0 || sample(before, "process_resident_memory_bytes") <= 0 {
		t.Error("the Go runtime's and the process's metrics are missing")
	}

	ctx := testCtx(t, 20*time.Second)
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	for _, pv := range protocolVersions {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "scraper", Version: "1"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc},
			&sdk.ClientSessionOptions{ProtocolVersion: pv})
		if err != nil {
			t.Fatalf("%s: connect: %v", pvName(pv), err)
		}
		listAndCall(t, ctx, cs) // tools/list, a load that succeeds
		res, err := call(ctx, cs, map[string]any{"name": "no-such-skill"})
		if err != nil || !res.IsError {
			t.Fatalf("%s: loading a missing skill: %v %+v", pvName(pv), err, res)
		}
		if pv == "2025-11-25" {
			// The 2025-era client holds a session while connected.
			if got := sample(scrape(t, ts.URL, token), "ccski_mcp_sessions"); got < 1 {
				t.Errorf("ccski_mcp_sessions = %v with a 2025-era session open, want >= 1", got)
			}
		}
		_ = cs.Close()
	}
	srv.Update(snapOf(recs[:1]))

	after := scrape(t, ts.URL, token)
	n := float64(len(protocolVersions))
	for _, c := range []struct {
		name   string
		labels []string
		moved  float64
	}{
		{"ccski_mcp_requests_total", []string{"method", "tools/call", "result", "ok"}, n},
		{"ccski_mcp_requests_total", []string{"method", "tools/call", "result", "tool_error"}, n},
		{"ccski_mcp_requests_total", []string{"method", "tools/list", "result", "ok"}, n},
		{"ccski_mcp_request_duration_seconds", []string{"method", "tools/call"}, 2 * n},
		{"ccski_rescans_total", nil, 1},
	} {
		was := max(0, sample(before, c.name, c.labels...))
		if got := sample(after, c.name, c.labels...); got-was != c.moved {
			t.Errorf("%s%v went from %v to %v, want +%v", c.name, c.labels, was, got, c.moved)
		}
	}
	if got := sample(after, "ccski_skills_served"); got != 1 {
		t.Errorf("ccski_skills_served = %v after an update to one skill, want 1", got)
	}
}

// TestMethodLabelBounded: a method the server does not know is counted as
// "other", so that clients cannot grow the metrics without bound.
func TestMethodLabelBounded(t *testing.T) {
	for method, want := range map[string]string{
		"tools/call": "tools/call", "skills/list": "skills/list", "x/" + strings.Repeat("a", 50): "other", "": "other",
	} {
		if got := methodLabel(method); got != want {
			t.Errorf("methodLabel(%q) = %q, want %q", method, got, want)
		}
	}
}

// TestReadyz: /readyz answers 503 until the first snapshot is in, 200
// then, and 503 again once the server is stopping (SIGTERM's first step)
// or draining, while /healthz answers 200 throughout.
func TestReadyz(t *testing.T) {
	for _, stop := range []struct {
		name string
		do   func(*Server)
	}{
		{"stopping", (*Server).Stopping},
		{"draining", func(s *Server) { s.Drain(time.Second) }},
	} {
		t.Run(stop.name, func(t *testing.T) {
			srv := New(nil, Options{Logger: discard()})
			ts := opsServer(t, srv.Handler(HTTPOptions{AuthToken: "probes-need-none"}))
			if code, body := probe(t, ts.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "first scan") {
				t.Errorf("GET /readyz before the first snapshot = %d %q, want 503", code, body)
			}
			if code, _ := probe(t, ts.URL+"/healthz"); code != http.StatusOK {
				t.Errorf("GET /healthz before the first snapshot = %d, want 200", code)
			}
			srv.Update(snapOf(makeRecords(t, t.TempDir(), skillSpec{provider: "claude", name: "pdf", desc: "PDF files"})))
			if code, body := probe(t, ts.URL+"/readyz"); code != http.StatusOK || body != "ready" {
				t.Errorf("GET /readyz after the first snapshot = %d %q, want 200 ready", code, body)
			}
			stop.do(srv)
			if code, body := probe(t, ts.URL+"/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "shutting down") {
				t.Errorf("GET /readyz while %s = %d %q, want 503 shutting down", stop.name, code, body)
			}
			if code, _ := probe(t, ts.URL+"/healthz"); code != http.StatusOK {
				t.Errorf("GET /healthz while %s = %d, want 200", stop.name, code)
			}
		})
	}
}
