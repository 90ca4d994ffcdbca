//go:build unix

package action

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
	"testing"
)

// TestOpenBrowserTriesEach checks that $BROWSER's commands are tried in
// order until one succeeds, and that when none does the error names each
// and tells the user to open the URL.
func TestOpenBrowserTriesEach(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == BrowserVariable {
				return v
			}
			return ""
		}
	}
	if err := OpenBrowser("http://127.0.0.1:1/", env("false:true")); err != nil {
		t.Errorf("false then true: %v, want the second to open it", err)
	}
	err := OpenBrowser("http://127.0.0.1:1/", env("false:/no/such/browser"))
	if err == nil || !strings.Contains(err.Error(), "false: exit status 1") ||
		!strings.Contains(err.Error(), "/no/such/browser") || !strings.Contains(err.Error(), "open the URL yourself") {
		t.Errorf("no browser that works: %v", err)
	}
}

// TestOpenBrowserDetached checks that the opener runs in a session of its
// own, so that the Ctrl-C sent to ccski ui's process group does not stop
// the browser it started, and that an opener's output is kept only up to
// a few KB for the error.
func TestOpenBrowserDetached(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ids")
	script := filepath.Join(dir, "browser")
	// The shell's process id, process group and session.
	body := "#!/bin/sh\necho $$ $(ps -o pgid= -p $$) $(ps -o sid= -p $$) > " + out + "\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == BrowserVariable {
			return script
		}
		return ""
	}
	if err := OpenBrowser("http://127.0.0.1:1/", env); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(data))
	if len(f) != 3 {
		t.Fatalf("the opener wrote %q, want its pid, pgid and sid", data)
	}
	mySid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if f[0] != f[1] || f[0] != f[2] || f[2] == strconv.Itoa(mySid) || f[1] == strconv.Itoa(syscall.Getpgrp()) {
		t.Errorf("opener pid/pgid/sid %q; want a session and group of its own (ours: sid %d, pgid %d)", f, mySid, syscall.Getpgrp())
	}

	// An opener that writes 1 MB and fails: the error holds a few KB.
	loud := filepath.Join(dir, "loud")
	if err := os.WriteFile(loud, []byte("#!/bin/sh\nhead -c 1048576 /dev/zero | tr '\\0' x >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err = OpenBrowser("http://127.0.0.1:1/", func(k string) string {
		if k == BrowserVariable {
			return loud
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || len(err.Error()) > 8<<10 {
		t.Errorf("loud opener: error of %d bytes (%.80q), want exit status 3 within a few KB", len(errText(err)), errText(err))
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
