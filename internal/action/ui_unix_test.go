//go:build unix

package action

import (
	"context"
	"strings"
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
	if err := OpenBrowser(context.Background(), "http://127.0.0.1:1/", env("false:true")); err != nil {
		t.Errorf("false then true: %v, want the second to open it", err)
	}
	err := OpenBrowser(context.Background(), "http://127.0.0.1:1/", env("false:/no/such/browser"))
	if err == nil || !strings.Contains(err.Error(), "false: exit status 1") ||
		!strings.Contains(err.Error(), "/no/such/browser") || !strings.Contains(err.Error(), "open the URL yourself") {
		t.Errorf("no browser that works: %v", err)
	}
}
