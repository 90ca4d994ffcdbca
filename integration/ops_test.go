package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// opsPort returns a port of 127.0.0.1:17850-17899, the operations tests'
// range, that was free a moment ago.
func opsPort(t *testing.T) int {
	t.Helper()
	for port := 17850; port <= 17899; port++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			_ = ln.Close()
			return port
		}
	}
	t.Fatal("no free port in 127.0.0.1:17850-17899")
	return 0
}

// get GETs base+path, with token when not empty, and returns the status
// and body; code 0 when the request failed (err says why).
func get(base, path, token string) (code int, body string, err error) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	// A connection of its own each time: a kept-alive one would hide a
	// closed listener.
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 5 * time.Second}).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return resp.StatusCode, b.String(), nil
}

// TestMCPHTTPKubernetesDrain runs `ccski mcp --transport http` as a
// Kubernetes pod would be run (a token, JSON logs, a drain delay) and
// sends it SIGTERM while a tool call is in flight: /readyz goes from 200
// to 503 while the server still serves, then the listener closes (new
// connections refused), the call in flight is answered in full, and the
// process exits 0. /metrics, scraped with the token and parsed with the
// Prometheus text parser, counts the calls; every line on stderr is JSON.
func TestMCPHTTPKubernetesDrain(t *testing.T) {
	const token = "drain-token"
	m := newMachine(t)
	ctx := mcpContext(t)
	s := startHTTPOn(t, opsPort(t), m, map[string]string{
		"CCSKI_AUTH_TOKEN":         token,
		"CCSKI_MCP__DRAIN_DELAY":   "4s",
		"CCSKI_MCP__DRAIN_TIMEOUT": "60s",
		"CCSKI_MCP__LOG_FORMAT":    "json",
	}, nil, "--transport", "http", "--no-refresh")
	if !waitUntil(10*time.Second, func() bool { code, _, _ := get(s.base, "/readyz", ""); return code == http.StatusOK }) {
		t.Fatalf("/readyz never answered 200\nstderr:\n%s", s.stderr)
	}
	if code, _, _ := get(s.base, "/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without the token = %d, want 401", code)
	}

	cs, err := connectHTTP(ctx, s, "2025-11-25", tokenClient(token), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := loadSkill(ctx, cs, "commit-helper"); err != nil {
		t.Fatal(err)
	}
	metrics := scrapeMetrics(t, s.base, token)
	if v := metricValue(metrics, "ccski_mcp_requests_total", "method", "tools/call", "result", "ok"); v < 1 {
		t.Errorf("ccski_mcp_requests_total{method=tools/call,result=ok} = %v after a call, want >= 1", v)
	}
	if v := metricValue(metrics, "ccski_skills_served"); v < 1 {
		t.Errorf("ccski_skills_served = %v, want the machine's skills", v)
	}
	if v := metricValue(metrics, "ccski_mcp_sessions"); v < 1 {
		t.Errorf("ccski_mcp_sessions = %v with a session open, want >= 1", v)
	}

	call := startSlowCall(t, ctx, m, cs, s.stderr)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Not ready, still serving: the drain delay.
	if !waitUntil(10*time.Second, func() bool {
		code, body, _ := get(s.base, "/readyz", "")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "shutting down")
	}) {
		t.Fatalf("/readyz never answered 503 after SIGTERM\nstderr:\n%s", s.stderr)
	}
	// Then the listener closes: new connections are refused, while the
	// call in flight is still held.
	if !waitUntil(20*time.Second, func() bool { _, _, err := get(s.base, "/healthz", ""); return err != nil }) {
		t.Fatalf("the listener never closed\nstderr:\n%s", s.stderr)
	}
	if _, _, err := get(s.base, "/mcp", token); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("a new request while draining: %v, want connection refused", err)
	}
	call.finish(t, s.stderr)
	s.waitExit(t, 10*time.Second)
	if code := s.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d\nstderr:\n%s", code, s.stderr)
	}

	// Structured logs: every line one JSON object with time, level and msg.
	msgs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
		var rec struct{ Time, Level, Msg string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Time == "" || rec.Level == "" || rec.Msg == "" {
			t.Errorf("a log line that is not a JSON record (%v): %s", err, line)
			continue
		}
		msgs[rec.Msg] = true
	}
	for _, want := range []string{"ccski MCP server starting", "signal received; shutting down",
		"not ready; serving on while the load balancer lets go"} {
		if !msgs[want] {
			t.Errorf("no %q on the log:\n%s", want, s.stderr)
		}
	}
}

// scrapeMetrics GETs /metrics with token and parses it with the
// Prometheus text parser.
func scrapeMetrics(t *testing.T, base, token string) map[string]float64 {
	t.Helper()
	code, body, err := get(base, "/metrics", token)
	if err != nil || code != http.StatusOK {
		t.Fatalf("GET /metrics = %d, %v", code, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	// Flatten: name{l1=v1,l2=v2} (labels in the order given) → value.
	out := map[string]float64{}
	for name, f := range families {
		for _, mt := range f.GetMetric() {
			key := name
			for _, l := range mt.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case mt.Counter != nil:
				out[key] = mt.GetCounter().GetValue()
			case mt.Gauge != nil:
				out[key] = mt.GetGauge().GetValue()
			case mt.Untyped != nil:
				out[key] = mt.GetUntyped().GetValue()
			}
		}
	}
	return out
}

// metricValue is the value of name with exactly the given labels
// (name=value pairs, sorted by name as the exposition has them); -1 when
// absent.
func metricValue(metrics map[string]float64, name string, labels ...string) float64 {
	key := name
	for i := 0; i+1 < len(labels); i += 2 {
		key += "," + labels[i] + "=" + labels[i+1]
	}
	if v, ok := metrics[key]; ok {
		return v
	}
	return -1
}
