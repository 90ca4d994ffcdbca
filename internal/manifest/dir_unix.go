//go:build unix

package manifest

import (
	"os"
	"syscall"
)

// openDir opens the folder path for listing. O_DIRECTORY makes the open
// fail, rather than block, when path was replaced by a FIFO since it was
// stated.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY, 0)
}
