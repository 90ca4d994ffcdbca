//go:build !linux

package mcp

import "net"

// listenConfig is how the HTTP listener is opened.
func listenConfig() *net.ListenConfig { return &net.ListenConfig{} }
