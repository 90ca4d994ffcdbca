//go:build unix

package action

import (
	"os/exec"
	"syscall"
)

// detach makes cmd a session of its own: the browser an opener starts
// is no child of the terminal's foreground group, so the Ctrl-C that
// stops ccski ui does not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
