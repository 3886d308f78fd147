package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// shmDMSByte is the byte of the -shm file every SQLite connection with the
// WAL index open holds a shared lock on (UNIX_SHM_DMS in os_unix.c).
const shmDMSByte = 128

// removeUnusedSidecars removes the -wal and -shm of path when no connection
// has the WAL index open and the -wal holds no commits; otherwise it leaves
// both. It reports whether it removed them.
func removeUnusedSidecars(path string) bool {
	walPath, shmPath := walSidecars(path)
	f, err := os.OpenFile(shmPath, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	// An open-file-description lock conflicts with SQLite's POSIX locks
	// even when both are taken by this process, so another Store here
	// counts as a user too. Held until f closes: a connection opening the
	// WAL index meanwhile fails its lock and retries rather than mapping a
	// file about to be removed.
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: shmDMSByte, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		return false
	}
	if st, err := os.Lstat(walPath); err == nil && st.Size() > 0 {
		return false // commits not yet checkpointed: never drop them
	}
	if err := os.Remove(walPath); err != nil && !os.IsNotExist(err) {
		return false
	}
	return os.Remove(shmPath) == nil
}
