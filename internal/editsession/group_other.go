//go:build !unix

package editsession

import "os/exec"

// OwnGroup leaves cmd as exec starts it: without process groups, Cancel
// kills the shell alone and WaitDelay stops waiting for its children.
func OwnGroup(cmd *exec.Cmd) {}

// KillGroup kills cmd's process (its children cannot be reached here).
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
