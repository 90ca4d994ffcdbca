//go:build ccski_hold

package configs

// With the ccski_hold build tag, which only the integration tests use, the
// variable CCSKITEST_MANAGED_CONFIG names the managed config in place of
// the system's (/etc/ccski/config.yaml), as Options.ManagedFile does for
// a test of this package: a release build always reads the system's.
func init() {
	testManagedFile = func(getenv func(string) string) string { return getenv("CCSKITEST_MANAGED_CONFIG") }
}
