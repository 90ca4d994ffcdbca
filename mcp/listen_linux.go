//go:build linux

package mcp

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenConfig is how the HTTP listener is opened: with TCP_DEFER_ACCEPT,
// the kernel hands the server a connection only once its first bytes
// arrive (or HeaderTimeout passes), so connections opened and left idle
// take neither a file descriptor nor a place in the accept queue.
func listenConfig() *net.ListenConfig {
	return &net.ListenConfig{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, int(HeaderTimeout.Seconds()))
		}); err != nil {
			return err
		}
		return serr
	}}
}
