//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package trust

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockStore takes an exclusive lock on the lock file beside the store
// (<store>.lock, made when missing), and returns its release.
func lockStore(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
