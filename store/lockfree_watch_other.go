//go:build !linux

package store

import (
	"fmt"
	"runtime"
)

// fileWatch would report the writes to the database file; kvdeck watches
// files with Linux's inotify only (lockfree_watch_linux.go).
type fileWatch struct{}

// newFileWatch says why the file cannot be watched here.
func newFileWatch(string) (*fileWatch, string) {
	return nil, fmt.Sprintf("kvdeck cannot watch a file for writes on %s (it uses Linux's inotify)", runtime.GOOS)
}

func (*fileWatch) begin() (uint64, bool) { return 0, false }
func (*fileWatch) still(uint64) bool     { return false }
func (*fileWatch) close()                {}
