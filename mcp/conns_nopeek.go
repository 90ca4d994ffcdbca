//go:build !linux

package mcp

import "net"

// unreadBytes reports whether bytes the peer sent wait unread on c; where the
// system cannot tell cheaply, never.
func unreadBytes(net.Conn) bool { return false }

// unreadBytesKnown reports whether unreadBytes can tell; here it cannot.
const unreadBytesKnown = false
