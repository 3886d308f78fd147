package store

import (
	"context"
	"database/sql"
)

// ReadLockFree exposes readLockFree to the tests of lockfree.go.
func ReadLockFree(s *Store, ctx context.Context, read func(ctx context.Context, conn *sql.Conn) error) (mark int64, ok bool, err error) {
	return s.readLockFree(ctx, read)
}

// ReadNoLockUnvalidated runs read on the lock-free connection without
// the checks: what the torture test's control measures.
func ReadNoLockUnvalidated(s *Store, ctx context.Context, read func(ctx context.Context, conn *sql.Conn) error) error {
	l := s.lockFreeConn()
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return read(ctx, conn)
}

// SetLockFreeHook makes every lock-free try of s call fn between the two
// checks that open it (nil: none).
func SetLockFreeHook(s *Store, fn func()) { s.knobs.lockFreeHook = fn }

// SetLockFreeOff turns the lock-free reads of s off (true) or on.
func SetLockFreeOff(s *Store, off bool) { s.knobs.lockFreeOff = off }
