package httpfetch

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// recorder answers every request 200 and records the Authorization it got, by URL.
type recorder struct {
	mu   sync.Mutex
	auth map[string]string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.auth == nil {
		r.auth = map[string]string{}
	}
	r.auth[req.URL.String()] = req.Header.Get("Authorization")
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("ok")), Request: req, Header: http.Header{}}, nil
}

func mustTokens(t *testing.T, entries ...string) Tokens {
	t.Helper()
	var list []Token
	for _, e := range entries {
		list = append(list, Token(e))
	}
	tok, err := ParseTokens(list)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// Hosts whose per-host variable names used to collide
// (CCSKI_HTTP_TOKEN_SKILLS_CORP_COM) are different origins: one's token
// never reaches the other.
func TestTokenIsForOneOriginOnly(t *testing.T) {
	rec := &recorder{}
	tokens := mustTokens(t, "https://skills.corp.com=CORP", "http://127.0.0.1:9=LOOP")
	// ParseTokens refuses a plain-http origin that is not loopback; set
	// one by hand to show the transport would not send it either.
	tokens["http://skills.corp.com"] = "PLAIN"
	c := Client(Options{Tokens: tokens, Base: rec})
	for _, u := range []string{
		"https://skills.corp.com/x.zip", "https://SKILLS.corp.com:443/y.zip", // the origin, spelled two ways
		"https://skills-corp.com/x.zip", "https://skills.corp.com.evil.example/x.zip", "https://skills.corp.com:8443/x.zip",
		"http://skills.corp.com/x.zip",                                           // same host, plain http: never a token
		"http://127.0.0.1:9/x", "http://127.0.0.1:10/x", "https://127.0.0.1:9/x", // loopback: its port and scheme only
	} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := map[string]string{
		"https://skills.corp.com/x.zip": "Bearer CORP", "https://SKILLS.corp.com:443/y.zip": "Bearer CORP",
		"https://skills-corp.com/x.zip": "", "https://skills.corp.com.evil.example/x.zip": "", "https://skills.corp.com:8443/x.zip": "",
		"http://skills.corp.com/x.zip": "",
		"http://127.0.0.1:9/x":         "Bearer LOOP", "http://127.0.0.1:10/x": "", "https://127.0.0.1:9/x": "",
	}
	for u, w := range want {
		if got := rec.auth[u]; got != w {
			t.Errorf("%s got Authorization %q, want %q", u, got, w)
		}
	}
}

// A caller's own Authorization header never goes out: only the origin's
// token does.
func TestCallerAuthorizationIsDropped(t *testing.T) {
	rec := &recorder{}
	c := Client(Options{Base: rec})
	req, _ := http.NewRequest("GET", "https://a.example/x", nil)
	req.Header.Set("Authorization", "Bearer LEAK")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := rec.auth["https://a.example/x"]; got != "" {
		t.Errorf("Authorization %q went out", got)
	}
}

// A redirect to another origin (here another port of the loopback
// address) carries that origin's token, or none: never the first one's.
func TestRedirectLooksTheTokenUpAgain(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	record := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			got[name] = r.Header.Get("Authorization")
			mu.Unlock()
			w.Write([]byte(name))
		}
	}
	other := httptest.NewServer(record("other"))
	defer other.Close()
	third := httptest.NewServer(record("third"))
	defer third.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-other":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/to-third":
			http.Redirect(w, r, third.URL+"/x", http.StatusTemporaryRedirect)
		}
	}))
	defer first.Close()
	c := Client(Options{Tokens: mustTokens(t, first.URL+"=FIRST", third.URL+"=THIRD")})
	for _, p := range []string{"/to-other", "/to-third"} {
		resp, err := c.Get(first.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if got["other"] != "" || got["third"] != "Bearer THIRD" {
		t.Errorf("after redirects: other got %q (want none), third got %q (want its own)", got["other"], got["third"])
	}
}

// A redirect from https down to http is refused.
func TestRedirectDowngradeRefused(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:9/x", http.StatusFound)
	}))
	defer srv.Close()
	c := Client(Options{Base: srv.Client().Transport})
	_, err := c.Get(srv.URL)
	if err == nil || !strings.Contains(err.Error(), "down to") {
		t.Fatalf("err = %v, want the downgrade refused", err)
	}
}

// A body over MaxBody fails the read, whether or not the server says its
// length, long before the server is done.
func TestHugeBodyIsCutOff(t *testing.T) {
	const limit = 1 << 10
	chunk := strings.Repeat("x", 32<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/sized" {
			w.Header().Set("Content-Length", "1073741824")
		}
		for range 1 << 15 { // 1 GiB, unless the client hangs up
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := Client(Options{MaxBody: limit})
	for _, p := range []string{"/sized", "/chunked"} {
		resp, err := c.Get(srv.URL + p)
		if err == nil {
			var n int64
			n, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if n > limit {
				t.Errorf("%s: read %d bytes, limit %d", p, n, limit)
			}
		}
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: err = %v, want ErrTooLarge", p, err)
		}
	}
}

func TestParseTokens(t *testing.T) {
	tok, err := ParseTokens([]Token{"https://Skills.Example.com:443=a=b", "http://[::1]:8080/=c"})
	if err != nil {
		t.Fatal(err)
	}
	if tok["https://skills.example.com"] != "a=b" || tok["http://[::1]:8080"] != "c" {
		t.Errorf("tokens = %v", tok)
	}
	for _, bad := range []string{"https://a.example", "https://a.example=", "a.example=SECRET", "https://u@a.example=SECRET",
		"https://a.example/path=SECRET", "ftp://a.example=SECRET", "https://a.example?x=SECRET",
		"SECRET", "http://a.example=SECRET"} {
		_, err := ParseTokens([]Token{Token(bad)})
		if err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%q: the error shows the token: %v", bad, err)
		}
	}
	if _, err := ParseTokens([]Token{"https://a.example=x", "https://A.example:443=y"}); err == nil {
		t.Error("one origin with two tokens accepted")
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://a.example/x.zip": true, "http://127.0.0.1:8080/mcp": true, "https://a.example/x.zip?v=1": true,
		"https://ghp_token@a.example/x.zip": false, "https://u:p@a.example/x": false, "https://a.example/x#frag": false,
		"ftp://a.example/x": false, "https:///x": false, "https://a.example/\x01": false,
	} {
		if err := CheckURL(raw); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v, want ok=%v", raw, err, ok)
		}
	}
	u, _ := url.Parse("https://ghp_token@a.example/x")
	if err := CheckURL(u.String()); err == nil || strings.Contains(err.Error(), "ghp_token") {
		t.Errorf("the user is shown or accepted: %v", err)
	}
}

// TestNoTokenThroughAProxy: a token for a loopback origin never travels
// to a proxy, however the host is spelled (Go's ProxyFromEnvironment
// sends http://LOCALHOST:port through the proxy): the default transport
// reaches loopback directly, and a base transport that would use a proxy
// for the request gets no token.
func TestNoTokenThroughAProxy(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte("via proxy"))
	}))
	t.Cleanup(proxy.Close)
	pu, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	base := &http.Transport{Proxy: http.ProxyURL(pu)}
	c := Client(Options{Tokens: mustTokens(t, "http://localhost:9=LOOP"), Base: base})
	resp, err := c.Get("http://LOCALHOST:9/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "" {
		t.Errorf("the proxy saw Authorization %q, want one request without a token", seen)
	}

	for _, host := range []string{"LOCALHOST", "localhost", "127.0.0.1", "[::1]"} {
		r := httptest.NewRequest("GET", "http://"+host+":9/x", nil)
		got, err := noProxyForLoopback(http.ProxyURL(pu))(r)
		if err != nil || got != nil {
			t.Errorf("%s: proxy %v, %v; want none", host, got, err)
		}
	}
	r := httptest.NewRequest("GET", "http://skills.example:9/x", nil)
	if got, _ := noProxyForLoopback(http.ProxyURL(pu))(r); got == nil {
		t.Error("a non-loopback host lost its proxy")
	}
}
