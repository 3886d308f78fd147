//go:build !unix

package storeconfig

import "os/exec"

// ownGroup leaves cmd as exec starts it: without process groups, Cancel
// kills the shell alone and WaitDelay stops waiting for its children.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills cmd's process (its children cannot be reached here).
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
