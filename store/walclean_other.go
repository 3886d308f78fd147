//go:build !linux

package store

// removeUnusedSidecars cannot tell here whether another connection holds
// the WAL index open, so it leaves the -wal and -shm files in place.
func removeUnusedSidecars(string) bool { return false }
