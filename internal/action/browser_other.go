//go:build !unix

package action

import "os/exec"

// detach leaves cmd as it is: on Windows, the console's Ctrl-C reaches
// the processes attached to it, and rundll32 hands the URL to the browser
// and exits at once.
func detach(*exec.Cmd) {}
