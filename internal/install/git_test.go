package install

import (
	"testing"

	"github.com/ccski/ccski/internal/gitfetch/gitfetchtest"
)

// gitRepo makes a bare repository at <base>/repo.git with one commit per
// file set, each on main, and returns its file:// URL and the commits.
func gitRepo(t *testing.T, base string, commits ...map[string]string) (string, []string) {
	t.Helper()
	return gitfetchtest.Commits(t, base, commits...)
}
