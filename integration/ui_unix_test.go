//go:build unix

package integration

import (
	"bufio"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ccski/ccski/internal/testfs"
)

// uiServer is a running `ccski ui`.
type uiServer struct {
	cmd    *exec.Cmd
	url    string // the URL it printed
	stderr *lockedBuffer
	exited chan struct{}
}

// startUI runs `ccski ui args...` in the box's project with the extra
// variables, and waits for the URL it prints.
func startUI(t *testing.T, b *installBox, extra []string, args ...string) *uiServer {
	t.Helper()
	s := &uiServer{stderr: &lockedBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(binary, append([]string{"ui"}, args...)...)
	s.cmd.Dir = b.proj
	s.cmd.Env = append(append([]string{}, b.vars...), extra...)
	s.cmd.Stderr = s.stderr
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "Serving the skills at "); ok {
				urls <- u
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.exited:
			case <-time.After(10 * time.Second):
				_ = s.cmd.Process.Kill()
				<-s.exited
			}
		}
	})
	select {
	case s.url = <-urls:
	case <-s.exited:
		t.Fatalf("ccski ui exited before printing its URL: %v\nstderr:\n%s", s.cmd.ProcessState, s.stderr)
	case <-time.After(20 * time.Second):
		t.Fatalf("ccski ui printed no URL\nstderr:\n%s", s.stderr)
	}
	return s
}

// TestUI runs `ccski ui --no-open` on a project with a skill ccski
// installed from git, follows the URL it prints as a browser does (its
// one-time code becomes a cookie, 303 to the URL without it; the token
// is in no URL, and the code works once), and reads the
// skill's page: where the lock says it came from, the hosts that load it
// and the command that installs it elsewhere.
func TestUI(t *testing.T) {
	b := newInstallBox(t)
	repo, shas := newGitSource(t, filepath.Join(b.root, "repo"), map[string]string{"skills/pdf/SKILL.md": skillText("pdf", "v1")})
	mustOK(t, b.run(t, "install", repo.url+"#skills/pdf", "pdf", "--agent", "claude"))
	// Claude Code and Codex are set up; Codex does not read .claude/skills.
	testfs.Write(t, b.home, map[string]string{".claude/settings.json": "{}", ".codex/config.toml": ""})

	s := startUI(t, b, nil, "--no-open")
	u, err := url.Parse(s.url)
	if err != nil || u.Scheme != "http" || u.Path != "/" || len(u.Query().Get("code")) < 26 || u.Query().Has("token") ||
		!strings.HasPrefix(u.Host, "127.0.0.1:") || u.Port() == "0" {
		t.Fatalf("printed URL %q: want http://127.0.0.1:<port>/?code=<one-time code>", s.url)
	}

	// The first visit: 303 to the URL without the code, which a cookie
	// now stands for.
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := hc.Get(s.url)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") == "" ||
		strings.Contains(resp.Header.Get("Location"), "code") {
		t.Fatalf("first visit: %d to %q, want 303 to the URL without its code", resp.StatusCode, resp.Header.Get("Location"))
	}
	base := "http://" + u.Host
	if cs := jar.Cookies(u); len(cs) != 1 || cs[0].Name != "ccski_session_"+u.Port() {
		t.Fatalf("cookies after the first visit: %v, want ccski_session_%s", cs, u.Port())
	}
	// The code works once: the URL printed, visited again, lets no one in.
	if resp, err := http.Get(s.url); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the printed URL a second time: %v %v, want 401", resp.StatusCode, err)
	}
	get := func(path string) string {
		t.Helper()
		resp, err := hc.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", path, resp.StatusCode, body)
		}
		return string(body)
	}
	// Without the cookie, the page is refused: the token guards it.
	if resp, err := http.Get(base + "/"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET / without the cookie: %v %v, want 401", resp.StatusCode, err)
	}

	// Discovery runs once the server listens: wait for its snapshot.
	link := regexp.MustCompile(`href="(/skill/[^"]*pdf[^"]*)"`)
	var cat string
	var m []string
	if !waitUntil(20*time.Second, func() bool {
		cat = get("/")
		m = link.FindStringSubmatch(cat)
		return m != nil
	}) {
		t.Fatalf("the catalogue links no pdf skill:\n%s", cat)
	}
	page := get(html.UnescapeString(m[1]))
	wantInstall := "ccski install " + repo.url + "#skills/pdf pdf"
	for what, want := range map[string]string{
		"the locked commit":   shas[0],
		"the source":          html.EscapeString(repo.url + "#skills/pdf"),
		"the project's lock":  html.EscapeString(filepath.Join(b.proj, "ccski.lock")),
		"Claude Code's line":  `<tr data-host="claude"><td>claude</td><td>yes</td>`,
		"Codex's line":        `<tr data-host="codex"><td>codex</td><td>no: Codex does not read `,
		"the install command": `<code id="install">` + html.EscapeString(wantInstall) + `</code>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the skill page lacks %s (%q):\n%s", what, want, page)
		}
	}
}

// TestUIOpensTheBrowser checks that ccski ui hands the URL it prints to
// the browser ($BROWSER), and that a browser that cannot be opened is
// said and the page served all the same.
func TestUIOpensTheBrowser(t *testing.T) {
	b := newInstallBox(t)
	opened := filepath.Join(b.root, "opened")
	browser := filepath.Join(b.root, "browser")
	testfs.Write(t, b.root, map[string]string{"browser": "#!/bin/sh\nprintf '%s' \"$1\" > " + opened + ".tmp && mv " +
		opened + ".tmp " + opened + "\n"})
	if err := os.Chmod(browser, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startUI(t, b, []string{"BROWSER=" + browser})
	var got []byte
	if !waitUntil(20*time.Second, func() bool {
		got, _ = os.ReadFile(opened)
		return len(got) > 0
	}) {
		t.Fatalf("the browser was not opened\nstderr:\n%s", s.stderr)
	}
	if string(got) != s.url {
		t.Errorf("the browser was given %q, want the URL printed, %q", got, s.url)
	}

	broken := startUI(t, b, []string{"BROWSER=" + filepath.Join(b.root, "no-such-browser")})
	if !waitUntil(20*time.Second, func() bool { return strings.Contains(broken.stderr.String(), "could not open the browser") }) {
		t.Fatalf("no word of the browser that could not be opened\nstderr:\n%s", broken.stderr)
	}
	if !strings.Contains(broken.stderr.String(), "still serving") {
		t.Errorf("stderr does not say ccski still serves:\n%s", broken.stderr)
	}
	resp, err := http.Get(broken.url)
	if err != nil {
		t.Fatalf("the server stopped with the browser: %v", err)
	}
	_ = resp.Body.Close()
	select {
	case <-broken.exited:
		t.Errorf("ccski ui exited when the browser could not be opened\nstderr:\n%s", broken.stderr)
	default:
	}
}
