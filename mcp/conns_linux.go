//go:build linux

package mcp

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unreadBytesKnown reports whether unreadBytes can tell.
const unreadBytesKnown = true

// unreadBytes reports whether bytes the peer sent wait unread on c.
func unreadBytes(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	_ = rc.Control(func(fd uintptr) {
		n, _ = unix.IoctlGetInt(int(fd), unix.SIOCINQ)
	})
	return n > 0
}
