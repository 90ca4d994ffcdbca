package action

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccski/ccski/internal/skillsext/skillsexttest"
	"github.com/ccski/ccski/internal/testfs"
)

// sent returns how many requests up got with the bearer token want and
// how many with another header (or none), and forgets them.
func sent(up *skillsexttest.Server, want string) (with, without int) {
	up.Lock()
	defer up.Unlock()
	for _, a := range up.Auth {
		if a == "Bearer "+want {
			with++
		} else {
			without++
		}
	}
	up.Auth = nil
	return with, without
}

// TestMCPTokenGoesOnlyWhereTheUserSaid installs from MCP servers: the
// origin the user gave a token in http.tokens gets it on every request,
// restores from a clone's lock included; a server the user typed but gave
// no token gets none; a project's http.tokens sets nothing.
func TestMCPTokenGoesOnlyWhereTheUserSaid(t *testing.T) {
	up := skillsexttest.Start(t, map[string]map[string]string{"up/pdf": {"SKILL.md": skillText("pdf", "Use it.")}})
	other := skillsexttest.Start(t, map[string]map[string]string{"up/docx": {"SKILL.md": skillText("docx", "Use it.")}})
	origin := strings.TrimSuffix(up.URL(), "/mcp")
	b := newBox(t)
	// The project's config names a token for the server: ignored.
	testfs.Write(t, b.proj, map[string]string{"ccski.yaml": "http:\n  tokens: [\"" + origin + "=PROJECT\"]\n"})
	ctx := context.Background()
	install := func(req InstallRequest) {
		t.Helper()
		req.Run = Run{Scope: "project"}
		rep, err := Install(ctx, b.config(t), req)
		if err != nil || rep.Failed() > 0 {
			t.Fatalf("install %s: %v %+v", req.Source, err, rep)
		}
	}
	install(InstallRequest{Source: "mcp+" + up.URL(), Skills: []string{"pdf"}})
	if with, _ := sent(up, "PROJECT"); with > 0 {
		t.Fatalf("the token of the project's http.tokens went out on %d requests", with)
	}

	b.vars["CCSKI_HTTP__TOKENS"] = origin + "=s3cret"
	install(InstallRequest{Source: "mcp+" + other.URL(), Skills: []string{"docx"}})
	if with, without := sent(other, "s3cret"); with > 0 || without == 0 {
		t.Errorf("a server without a token of its own got the token on %d requests", with)
	}

	// A clone of the project: the lock names both servers.
	for _, dir := range []string{".agents", ".claude"} {
		if err := os.RemoveAll(filepath.Join(b.proj, dir)); err != nil {
			t.Fatal(err)
		}
	}
	install(InstallRequest{Frozen: true})
	if with, without := sent(up, "s3cret"); with == 0 || without > 0 {
		t.Errorf("the origin the user gave a token got it on %d requests and not on %d; want every one", with, without)
	}
	if with, _ := sent(other, "s3cret"); with > 0 {
		t.Errorf("the other server got the token on %d requests on restore", with)
	}
}

// TestRetiredTokenSettings: the settings that gave one token to every
// server, or named a host's token lossily, are errors saying what
// replaces them.
func TestRetiredTokenSettings(t *testing.T) {
	for name, v := range map[string]string{"CCSKI_PROVIDERS__REMOTE__TOKEN": "x", "CCSKI_HTTP_TOKEN_SKILLS_CORP_COM": "x"} {
		b := newBox(t)
		b.vars[name] = v
		_, err := LoadConfig(b.process(), nil)
		if err == nil || !strings.Contains(err.Error(), "CCSKI_HTTP__TOKENS") {
			t.Errorf("%s: err = %v, want it retired, naming CCSKI_HTTP__TOKENS", name, err)
		}
	}
	b := newBox(t)
	testfs.Write(t, b.home, map[string]string{".config/ccski/config.yaml": "providers:\n  remote:\n    token: x\n"})
	if _, err := LoadConfig(b.process(), nil); err == nil || !strings.Contains(err.Error(), "http.tokens") {
		t.Errorf("providers.remote.token in the user config: err = %v, want it retired, naming http.tokens", err)
	}
}
