//go:build !unix

package editsession

import "os"

// alive reports whether pid names a process. Outside Unix FindProcess
// opens the process and fails for one that does not exist; a process
// it cannot open is taken as alive, so a session is never removed under
// an editor that may still run.
func alive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
