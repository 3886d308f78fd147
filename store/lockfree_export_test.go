package store

import (
	"context"
	"database/sql"
	"time"
)

// Querier is what a test's read gets of the lock-free connection.
type Querier interface {
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

// ReadLockFree exposes readLockFree to the tests of lockfree.go.
func ReadLockFree(s *Store, ctx context.Context, read func(ctx context.Context, conn Querier) error) (mark int64, ok bool, err error) {
	return s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error { return read(ctx, conn) })
}

// ReadLockFreeLane is ReadLockFree on the lock-free connection of lane
// (a listing's second reader's is 1).
func ReadLockFreeLane(s *Store, ctx context.Context, lane int, read func(ctx context.Context, conn Querier) error) (ok bool, err error) {
	_, ok, err = s.readLockFreeTries(ctx, lane, lockFreeTries, true, func(ctx context.Context, conn lfConn) error { return read(ctx, conn) })
	return ok, err
}

// LaneReads is how many lock-free reads lane of s kept.
func LaneReads(s *Store, lane int) int {
	ln := &s.conn.lockFree().lanes[lane]
	ln.mu.Lock()
	defer ln.mu.Unlock()
	return ln.kept
}

// ReadNoLockUnvalidated runs read on the lock-free connection without
// the checks: what the torture test's control measures.
func ReadNoLockUnvalidated(s *Store, ctx context.Context, read func(ctx context.Context, conn Querier) error) error {
	l := s.conn.lockFree()
	ln := &l.lanes[0]
	ln.mu.Lock()
	defer ln.mu.Unlock()
	if err := ln.open(ctx, l.db); err != nil {
		return err
	}
	return read(ctx, lfConn{ln})
}

// SetLockFreeHook makes every lock-free try of s call fn between the two
// checks that open it (nil: none).
func SetLockFreeHook(s *Store, fn func()) { s.knobs.lockFreeHook = fn }

// SetLockFreeOff turns the lock-free reads of s off (true) or on.
func SetLockFreeOff(s *Store, off bool) { s.knobs.lockFreeOff = off }

// SetLockFreePatience sets how long a read of s keeps trying without
// locks past its tries (negative: not at all).
func SetLockFreePatience(s *Store, d time.Duration) { s.knobs.lockFreePatience = d }

// SetWindowRows sets the full window of the windowed reads of a
// rollback-journal file (listings, level counts, children's counts).
func SetWindowRows(s *Store, n int) { s.knobs.windowRows = n }

// BlindLockFree makes s's lock-free reads as where the file cannot be
// watched for writes, for the reason why.
func BlindLockFree(s *Store, why string) {
	l := s.conn.lockFree()
	l.watchOnce.Do(func() {})
	for i := range l.lanes {
		l.lanes[i].mu.Lock()
		defer l.lanes[i].mu.Unlock()
	}
	if l.watch != nil {
		l.watch.close()
	}
	l.watch, l.blind = nil, why
}
