//go:build unix

package editsession

import (
	"os/exec"
	"syscall"
)

// OwnGroup starts cmd in a process group of its own, which its Cancel
// kills whole: the shell and everything it started (dash forks the last
// command of a script rather than exec it, and a child in the background
// holds the output open after the shell is gone).
func OwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return KillGroup(cmd) }
}

// KillGroup kills every process left in cmd's group.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
