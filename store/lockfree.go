package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Reading a rollback-journal file without SQLite's locks; the rule and
// why it holds are told in docs/design/lock-free-reads.md.
//
// A read's SHARED lock fails the commit of a writer that sets no busy
// timeout (the reference's service), so the reads of the feed, of
// Version, the census and sweep run on a connection of their own opened
// with nolock=1 and mode=ro, and validate as a seqlock reader does. A try
//
//  0. drains the inotify watch of the database file and notes the count
//     of its events (fileWatch);
//  1. reads data_version, then checks that the journal is cold;
//  2. runs its one statement (one read transaction);
//  3. checks the journal again, reads data_version again, compares the
//     file's identity, size and time, and checks that no event came (the
//     count did not move: a try beside it on another connection may have
//     read the event from the queue);
//
// and is kept only when nothing moved; otherwise its page cache is
// dropped and it is tried again (lockFreeTries, backing off), and after
// that the caller reads with locks. Every write a read can see is made
// while a journal is hot; if the journal is cold at step 3, that write's
// system call has returned, and so queued its event. Where the file
// cannot be watched (not Linux, a network or FUSE file system, inotify's
// limits) no read is made without locks, and LockFreeNotice says so.
// kvdeck never opens a descriptor of its own on the database file (closing
// one would drop the process's locks, readonly.go).

// lockFreeTries is how many times a read is tried without locks before
// the caller reads with them, or before it shrinks a window (readWindow)
// when it may.
const lockFreeTries = 12

// lockFreePatience is how long a read that would otherwise be made with
// locks keeps trying without them, lockFreeTries past: a service whose
// commits take most of each period (fsync on a busy machine) leaves gaps
// that a dozen tries, ~130 ms, often miss, and a read with locks then
// costs it commits. A file that stayed hot that long (a crashed writer's
// journal, a long transaction) is taken as written without a gap for
// lockFreeImpatient after: its reads try lockFreeTries times only, else
// every read would wait out the patience.
const (
	lockFreePatience  = 2 * time.Second
	lockFreeImpatient = 10 * time.Second
)

// lockFreeMark tags a Mark read on the lock-free connection, so that it
// never equals one read on the watch connection (they count apart).
const lockFreeMark = int64(1) << 48

// lockFreeLanes is how many lock-free connections a store may hold: lane
// 0 makes every lock-free read, lane 1 a whole-store listing's second
// reader (listExpired), so that both cores work.
const lockFreeLanes = 2

// lockFree is the store's lock-free connections to a rollback-journal
// file; nil until first used.
type lockFree struct {
	db   *sql.DB
	path string
	// lanes are the connections, each read on by one read at a time.
	lanes [lockFreeLanes]lfLane
	// mu guards the fields below it, shared by the lanes.
	mu sync.Mutex
	// reads, retries, fallbacks and shrinks count what happened (tests,
	// benches).
	reads, retries, fallbacks, shrinks int
	// mark, markDrops and markData are the mark of lane 0's last read
	// kept and the drops and data_version it was read at.
	mark, markDrops, markData int64
	// impatient is until when reads try lockFreeTries times only (a
	// patience ran out: lockFreePatience).
	impatient time.Time
	// watch reports the writes to the file, set up once (armed); nil
	// where the file cannot be watched, and blind then says why.
	watchOnce sync.Once
	watch     *fileWatch
	blind     string
}

// lfLane is one lock-free connection: mu is held by the read on it.
type lfLane struct {
	mu sync.Mutex
	// conn is the connection, held from the first read to the store's
	// close (nil after it was given up), and stmts its statements,
	// prepared once (renewed).
	conn  *sql.Conn
	stmts stmtCache
	// drops counts the page caches dropped with a discarded try, kept the
	// reads kept (tests).
	drops int64
	kept  int
}

// armed reports whether the file is watched, watching it on first use.
func (l *lockFree) armed() bool {
	l.watchOnce.Do(func() { l.watch, l.blind = newFileWatch(l.path) })
	return l.watch != nil
}

// LockFreeCounts are what the lock-free reads of a store did: reads kept,
// reads discarded and tried again, reads given up to the locked path,
// and windows given up to be read again shorter (readWindow).
type LockFreeCounts struct{ Reads, Retries, Fallbacks, Shrinks int }

// LockFreeCounts reports the lock-free reads so far.
func (s *Store) LockFreeCounts() LockFreeCounts {
	l := s.conn.lockFree()
	if l == nil {
		return LockFreeCounts{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return LockFreeCounts{l.reads, l.retries, l.fallbacks, l.shrinks}
}

// lockFreeUsable reports whether reads may go without locks: a
// rollback-journal file read with locks otherwise, where nothing keeps a
// read without them from being correct (lockFreeBlocked: a file being
// switched to WAL, a file kvdeck cannot watch for writes, is read the
// ordinary way).
func (f *fileConn) lockFreeUsable() bool {
	return f.rollback() && f.s.lockFreeBlocked() == ""
}

// LockFreeNotice is "" unless the store is a rollback-journal file whose
// reads kvdeck would make without SQLite's locks but cannot here, since
// it cannot watch the file for writes: it then says so, and why, for the
// user to read once before kvdeck takes a lock there (a writer that sets
// no busy timeout, as the reference's service, fails a commit that meets
// one).
func (s *Store) LockFreeNotice() string {
	if s.knobs.lockFreeOff || !s.conn.rollback() {
		return ""
	}
	l := s.conn.lockFree()
	if l == nil || l.armed() {
		return ""
	}
	return fmt.Sprintf("%s is in rollback-journal mode, where kvdeck reads without SQLite's locks only a file it can watch for writes, and here %s: its reads take SQLite's read lock, and a writer that sets no busy timeout (the reference's service sets none) fails a commit that meets that lock", s.display, l.blind)
}

// lockFree returns the lock-free connection pool, opening it when the
// file is read through SQLite's locks (nil when read as immutable).
func (f *fileConn) lockFree() *lockFree {
	f.lfOnce.Do(func() {
		if f.imm != nil {
			return
		}
		abs, err := filepath.Abs(f.s.target.Path)
		if err != nil {
			return
		}
		db, err := sql.Open("sqlite", "file:"+abs+"?mode=ro&nolock=1")
		if err != nil {
			return
		}
		db.SetMaxOpenConns(lockFreeLanes)
		db.SetMaxIdleConns(lockFreeLanes)
		db.SetConnMaxIdleTime(0)
		f.lf = &lockFree{db: db, path: f.s.target.Path}
		for i := range f.lf.lanes {
			f.lf.lanes[i].stmts = stmtCache{renew: true}
		}
	})
	return f.lf
}

// closeLockFree closes the lock-free connections.
func (f *fileConn) closeLockFree() error {
	if f.lf == nil {
		return nil
	}
	for i := range f.lf.lanes {
		ln := &f.lf.lanes[i]
		ln.mu.Lock()
		ln.release(false)
		ln.mu.Unlock()
	}
	if f.lf.watch != nil {
		f.lf.watch.close()
	}
	return f.lf.db.Close()
}

// open takes the connection to hold from the pool when none is held.
func (ln *lfLane) open(ctx context.Context, db *sql.DB) error {
	if ln.conn == nil {
		conn, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		ln.conn = conn
	}
	return nil
}

// release closes the statements and gives the connection back, as bad
// (the pool closes it) when bad is true.
func (ln *lfLane) release(bad bool) {
	ln.stmts.close()
	if ln.conn != nil {
		if bad {
			_ = ln.conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		_ = ln.conn.Close()
	}
	ln.conn = nil
}

// lfConn is a lock-free connection as a read sees it: its statements
// are prepared once (lfLane.stmts).
type lfConn struct{ ln *lfLane }

// prepared returns q prepared on the held connection.
func (c lfConn) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	return c.ln.stmts.get(ctx, c.ln.conn, q)
}

// QueryContext runs q, prepared once.
func (c lfConn) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	st, err := c.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// QueryRowContext runs q, prepared once (unprepared when preparing
// fails: the row then carries the error).
func (c lfConn) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	st, err := c.prepared(ctx, q)
	if err != nil {
		return c.ln.conn.QueryRowContext(ctx, q, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// readLockFree runs read (one statement, on conn) without locks and
// validated (see the top of this file). read is called once per try and
// must start afresh each time. mark stands for the data_version the read
// saw (markOf), tagged (lockFreeMark); ok is false when the read could
// not be made without locks (the caller reads the ordinary way).
func (s *Store) readLockFree(ctx context.Context, read func(ctx context.Context, conn lfConn) error) (mark int64, ok bool, err error) {
	return s.readLockFreeTries(ctx, 0, lockFreeTries, true, read)
}

// readLockFreeTries is readLockFree on lane's connection giving up after
// tries tries, counted as a fallback to the locked path when fallback is
// true, else as a window to shrink (readWindow). Only lane 0's reads
// carry a mark (zero on the others).
func (s *Store) readLockFreeTries(ctx context.Context, lane, tries int, fallback bool, read func(ctx context.Context, conn lfConn) error) (mark int64, ok bool, err error) {
	l := s.conn.lockFree()
	if l == nil || !l.armed() {
		return 0, false, nil
	}
	ln := &l.lanes[lane]
	ln.mu.Lock()
	defer ln.mu.Unlock()
	wait := 500 * time.Microsecond
	patience := l.patience(s.knobs.lockFreePatience, fallback) // zero: tries only
	for try := 0; try < tries || time.Now().Before(patience); try++ {
		if try > 0 {
			l.tally(&l.retries)
			select {
			case <-ctx.Done():
				return 0, false, ctx.Err()
			case <-time.After(wait):
			}
			wait = min(2*wait, 20*time.Millisecond)
		}
		if err := ln.open(ctx, l.db); err != nil {
			// The caller's context ended: no read at all, not one with
			// locks.
			return 0, false, ctx.Err()
		}
		d, kept, rerr := l.try(ctx, lfConn{ln}, s.knobs.lockFreeHook, read)
		if !kept {
			ln.dropCache(ctx)
		}
		s.statements.Add(3)
		s.roundTrips.Add(1)
		if kept {
			ln.kept++
			return l.kept(lane, d, ln.drops), true, rerr
		}
	}
	l.gaveUp(fallback, !patience.IsZero())
	return 0, false, nil
}

// patience is until when a read keeps trying past its tries (zero: it
// does not): lockFreePatience, or the knob's p when not zero, for a read
// that falls back to locks, unless a patience ran out lately.
func (l *lockFree) patience(p time.Duration, fallback bool) time.Time {
	if p == 0 {
		p = lockFreePatience
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); fallback && p > 0 && now.After(l.impatient) {
		return now.Add(p)
	}
	return time.Time{}
}

// tally counts one in n (a field of l).
func (l *lockFree) tally(n *int) {
	l.mu.Lock()
	*n++
	l.mu.Unlock()
}

// kept counts a read kept on lane at data_version d, its lane's page
// caches dropped drops times, and returns its mark.
func (l *lockFree) kept(lane int, d, drops int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.reads++
	if lane != 0 {
		return 0
	}
	return lockFreeMark | l.markOf(d, drops)
}

// gaveUp counts a read whose tries all failed: a fallback to the locked
// path (after a patience when waited), else a window to shrink.
func (l *lockFree) gaveUp(fallback, waited bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !fallback {
		l.shrinks++
		return
	}
	l.fallbacks++
	if waited {
		l.impatient = time.Now().Add(lockFreeImpatient)
	}
}

// dropCache empties the page cache of the held connection (see the top
// of this file): PRAGMA shrink_memory frees every page no statement holds
// (a prepared statement between two runs holds none), and the next
// transaction reads page 1, and with it the counter, from the file. When
// it fails, the connection is given up (a new connection's cache is
// empty).
func (ln *lfLane) dropCache(ctx context.Context) {
	ln.drops++
	if _, err := ln.conn.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
		ln.release(true)
	}
}

// markOf is the mark of a read kept on lane 0 at data_version d, its
// page caches dropped drops times: it moves when d did, and after a
// cache was dropped (its next page 1 may carry a new counter without
// data_version moving, and a new connection's starts afresh), so on
// every commit.
func (l *lockFree) markOf(d, drops int64) int64 {
	if l.mark == 0 || drops != l.markDrops || d != l.markData {
		l.mark++
		l.markDrops, l.markData = drops, d
	}
	return l.mark
}

// try is one validated read: kept is false when a write may have been
// under way during it. The order of the steps is the point (the top of
// this file). hook, when not nil, runs between step 1's two checks
// (tests).
func (l *lockFree) try(ctx context.Context, conn lfConn, hook func(), read func(context.Context, lfConn) error) (data int64, kept bool, err error) {
	if l.watch == nil {
		return 0, false, nil
	}
	at, watched := l.watch.begin()
	if !watched {
		return 0, false, nil
	}
	var d1, d2 int64
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&d1); err != nil {
		return 0, false, nil
	}
	if hook != nil {
		hook()
	}
	if !journalCold(l.path) {
		return 0, false, nil
	}
	st1, err1 := os.Stat(l.path)
	rerr := read(ctx, conn)
	if hotJournal(rerr) {
		// SQLite took the journal for hot as the statement began: a
		// writer's transaction ended just then (hotJournal).
		return 0, false, nil
	}
	if !journalCold(l.path) {
		return 0, false, nil
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&d2); err != nil || d2 != d1 {
		return 0, false, nil
	}
	st2, err2 := os.Stat(l.path)
	if err1 != nil || err2 != nil || st1.Size() != st2.Size() || !st1.ModTime().Equal(st2.ModTime()) || !os.SameFile(st1, st2) {
		return 0, false, nil
	}
	if !l.watch.still(at) {
		return 0, false, nil
	}
	if rerr != nil && ctx.Err() != nil {
		return 0, false, rerr
	}
	return d1, true, rerr
}

// journalCold reports whether the rollback journal beside the database
// at path holds no transaction: absent, empty, or with a zeroed header
// (the journal modes DELETE, TRUNCATE and PERSIST after a commit). A
// journal that cannot be read counts as hot.
func journalCold(path string) bool {
	f, err := os.Open(path + "-journal")
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	if err != nil {
		return false
	}
	defer f.Close()
	var head [8]byte
	n, err := io.ReadFull(f, head[:])
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return false
	}
	for _, b := range head[:n] {
		if b != 0 {
			return false
		}
	}
	return true
}
