//go:build unix

package tui

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// lockFixedPath holds an exclusive lock on dir+".lock" until the test ends
// (cleanups run last-in first-out, so after dir is removed), waiting while
// another process's test holds it.
func lockFixedPath(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
