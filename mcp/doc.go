// Package mcp serves skills over the Model Context Protocol with the
// official go-sdk. A Server holds the current pipeline.Snapshot behind an
// atomic pointer: a request reads the snapshot once when it starts and
// keeps it, and Update swaps in a new one without waiting for requests.
// The skill tool's description is rendered once per snapshot; when it
// changes the tool is registered again, which makes the SDK send
// notifications/tools/list_changed to every session.
//
// The package also holds the HTTP front (Origin check, bearer token, body
// cap and deadline, the connection gate, the session limiter, /healthz)
// and Serve, the server's lifecycle: transport, signals, draining on
// shutdown, and new snapshots from a Discovery (the live refresher of
// package engine/live, which owns rescans and the file watcher; this
// package does not import it). Over HTTP each session whose client's roots
// name another workspace is served by a Server of that workspace
// (workspaces.go), so that no client moves another's.
package mcp
