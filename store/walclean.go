package store

import "os"

// A read-only connection to a WAL database needs the -shm file (the WAL
// index) and opens the -wal file; SQLite creates both when they are
// missing and the directory is writable, and a read-only connection never
// removes them at close (removing them is the last writer's job). So a
// read-only open of a WAL file nobody else has open would leave two new
// files behind.
//
// kvdeck keeps SQLite's ordinary read-only mode (mode=ro with locking), not
// immutable=1: immutable tells SQLite the file cannot change, so a writer
// starting later would go unnoticed (the TUI's live refresh would show stale
// or, mid-checkpoint, corrupt pages). Instead, Open notes whether -wal and
// -shm were both absent; if so, Close removes them again, but only when they
// are still unused: no other connection, in this process or another, holds
// the -shm (probed with the lock SQLite itself holds while it has the WAL
// index open) and the -wal holds no commits. When -wal and -shm already
// existed they belong to a live (or crashed) writer and are left as they
// are. The cleanup needs open-file-description locks (Linux); elsewhere, or
// when the process is killed before Close, the files stay.

// walSidecars are the -wal and -shm paths of an embedded database.
func walSidecars(path string) (wal, shm string) { return path + "-wal", path + "-shm" }

// absentSidecars reports whether neither the -wal nor the -shm of path
// exists: nobody has the database open in WAL mode.
func absentSidecars(path string) bool {
	wal, shm := walSidecars(path)
	for _, p := range []string{wal, shm} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			return false
		}
	}
	return true
}
