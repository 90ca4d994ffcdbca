package action

import (
	"net"
	"slices"
	"strings"
	"testing"
)

// TestUIAddress checks where ccski ui listens: 127.0.0.1 at --port (0, a
// free port, by default), or --listen's host:port; bad values are usage
// errors naming the flag.
func TestUIAddress(t *testing.T) {
	for _, tc := range []struct {
		req      UIRequest
		host     string
		port     int
		wantFlag string // "" for no error
	}{
		{UIRequest{}, "127.0.0.1", 0, ""},
		{UIRequest{Port: 18231}, "127.0.0.1", 18231, ""},
		{UIRequest{Listen: "[::1]:18232"}, "::1", 18232, ""},
		{UIRequest{Listen: ":18233"}, "127.0.0.1", 18233, ""},
		{UIRequest{Listen: "localhost"}, "", 0, "--listen"},
		{UIRequest{Listen: "127.0.0.1:http"}, "", 0, "--listen"},
		{UIRequest{Listen: "127.0.0.1:70000"}, "", 0, "--listen"},
		{UIRequest{Port: -1}, "", 0, "--port"},
	} {
		host, port, err := uiAddress(&tc.req)
		if tc.wantFlag != "" {
			if err == nil || !IsUsage(err) || !strings.Contains(err.Error(), tc.wantFlag) {
				t.Errorf("%+v: err %v, want a usage error naming %s", tc.req, err, tc.wantFlag)
			}
			continue
		}
		if err != nil || host != tc.host || port != tc.port {
			t.Errorf("%+v: %s %d %v, want %s %d", tc.req, host, port, err, tc.host, tc.port)
		}
	}
}

// TestPageURL checks the printed URL: the listener's address (loopback
// for one on every interface) and the one-time code that sets the cookie.
func TestPageURL(t *testing.T) {
	for _, tc := range []struct {
		addr  net.Addr
		token string
		want  string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41377}, "ABC", "http://127.0.0.1:41377/?code=ABC"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "a b&c", "http://[::1]:8080/?code=a+b%26c"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 9}, "T", "http://127.0.0.1:9/?code=T"},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, "", "http://127.0.0.1:1/"},
	} {
		if got := pageURL(tc.addr, tc.token); got != tc.want {
			t.Errorf("pageURL(%v, %q) = %q, want %q", tc.addr, tc.token, got, tc.want)
		}
	}
	if a, b := newToken(), newToken(); a == b || len(a) < 20 {
		t.Errorf("tokens %q and %q: want two different random ones", a, b)
	}
}

// TestBrowserCommand checks the command that opens the URL: $BROWSER's,
// the URL in place of %s or last, else the system's opener.
func TestBrowserCommand(t *testing.T) {
	const u = "http://127.0.0.1:1/?code=T"
	for _, tc := range []struct {
		f    []string
		want []string
	}{
		{[]string{"firefox"}, []string{"firefox", u}},
		{[]string{"chromium", "--new-window"}, []string{"chromium", "--new-window", u}},
		{[]string{"open-in", "--url=%s", "--x"}, []string{"open-in", "--url=" + u, "--x"}},
	} {
		if got := withURL(tc.f, u); !slices.Equal(got, tc.want) {
			t.Errorf("withURL(%v) = %v, want %v", tc.f, got, tc.want)
		}
	}
	for goos, want := range map[string][]string{
		"linux":   {"xdg-open", u},
		"freebsd": {"xdg-open", u},
		"darwin":  {"open", u},
		"windows": {"rundll32", "url.dll,FileProtocolHandler", u},
	} {
		if got := opener(goos, u); !slices.Equal(got, want) {
			t.Errorf("opener(%s) = %v, want %v", goos, got, want)
		}
	}
}
