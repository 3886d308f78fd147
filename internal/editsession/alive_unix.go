//go:build unix

package editsession

import (
	"errors"
	"syscall"
)

// alive reports whether pid names a process (signal 0; EPERM means one
// that belongs to someone else, alive too).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
