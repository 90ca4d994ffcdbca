//go:build !unix

package manifest

import "os"

// openDir opens the folder path for listing.
func openDir(path string) (*os.File, error) { return os.Open(path) }
