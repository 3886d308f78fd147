package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Version is a cheap fingerprint of the store's content for change
// detection: seq moves on every commit with a set, the row count on inserts,
// deletes and sweeps.
type Version struct {
	Seq int64
	// Rows is the number of rows, -1 when they were not counted: on a
	// rollback-journal file, where a count would block a service's
	// commits, and in ChangesPage.Version on a file.
	Rows int64
	// Mark is, when Rows is -1 on a rollback-journal file, what stands for
	// the file's data_version: as kvdeck's lock-free connection counts
	// it (lockfree.go, tagged lockFreeMark: it also moves when that
	// connection drops its cache) or as its watch connection saw it; it
	// moves on every commit of another connection, deletions included (0
	// otherwise).
	Mark int64
}

// Seq returns the newest versionstamp number issued (kv_meta.seq).
func (s *Store) Seq(ctx context.Context) (int64, error) {
	var seq int64
	found, err := s.queryRow(ctx, "SELECT seq FROM kv_meta WHERE id = 0", nil, &seq)
	if err == nil && !found {
		err = fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
	}
	return seq, err
}

// versionWatch lets Version skip its row count on an embedded file while
// nothing was committed: PRAGMA data_version on a connection of its own
// moves whenever any other connection (another process, or this store's
// pool) commits. Counting a million rows takes ~15 ms, and on a
// rollback-journal file that read blocks a service's commit meanwhile.
type versionWatch struct {
	mu    sync.Mutex
	conn  *sql.Conn // taken from the pool on first use; nil until then
	data  int64     // data_version when last was read
	last  Version
	valid bool
	// verIndexed is what Changes last saw of an index on kv(ver)
	// (indexUnknown, indexNo, indexYes): it shapes the first statement
	// of the next page.
	verIndexed atomic.Int32
	// journal is what the last head or Version read of the file's
	// journal mode (journalUnknown, journalRollback, journalOther).
	journal atomic.Int32
}

// Version reads seq and the row count in one statement. On an embedded
// file it first asks data_version (and the journal mode) and answers from
// the last reading when no commit happened since (one cheap pragma
// instead of a count). On a rollback-journal file, where a read blocks a
// writer's commit, it reads seq alone in a point read and counts
// nothing: Rows is -1 and Mark moves on every commit (readVersionPoint).
func (s *Store) Version(ctx context.Context) (Version, error) { return s.conn.version(ctx) }

// version: a server has no data_version to ask.
func (c *serverConn) version(ctx context.Context) (Version, error) { return c.s.readVersion(ctx) }

func (f *fileConn) version(ctx context.Context) (Version, error) {
	s := f.s
	if f.imm != nil {
		// An immutable read's data_version never moves (readonly.go).
		return s.readVersion(ctx)
	}
	if f.lockFreeUsable() {
		if v, ok, err := s.versionLockFree(ctx); ok {
			return v, err
		}
	}
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	data, err := f.dataVersion(ctx)
	if err != nil {
		return Version{}, err
	}
	if w.valid && data == w.data {
		return w.last, nil
	}
	var v Version
	if f.rollback() {
		v, err = s.readVersionPoint(ctx, data)
	} else {
		v, err = s.readVersion(ctx)
	}
	if err != nil {
		return v, err
	}
	// A commit between the pragma and the count makes the next call read
	// again: data_version will have moved past data.
	w.data, w.last, w.valid = data, v, true
	return v, nil
}

// dataVersion reads PRAGMA data_version on the watch connection (w.mu held).
func (f *fileConn) dataVersion(ctx context.Context) (int64, error) {
	s := f.s
	f.lockedRead()
	conn, err := f.watchConn(ctx)
	if err != nil {
		return 0, err
	}
	var data int64
	var mode string
	if err := conn.QueryRowContext(ctx, dataVersionSQL).Scan(&data, &mode); err != nil {
		f.dropWatch()
		return 0, s.classify(err)
	}
	s.noteJournal(mode)
	return data, nil
}

// watchConn is the watch connection (w.mu held), taken from the pool on
// first use; it counts the statement about to run on it.
func (f *fileConn) watchConn(ctx context.Context) (*sql.Conn, error) {
	s, w := f.s, &f.s.watch
	if w.conn == nil {
		conn, err := f.db.Conn(ctx)
		if err != nil {
			return nil, s.classify(err)
		}
		w.conn = conn
	}
	s.statements.Add(1)
	s.roundTrips.Add(1)
	return w.conn, nil
}

// dropWatch gives up the watch connection after a failed statement
// (w.mu held): data_version counts per connection.
func (f *fileConn) dropWatch() {
	w := &f.s.watch
	w.conn.Close()
	w.conn, w.valid = nil, false
}

// dataVersionSQL reads the watch connection's data_version and the
// file's journal mode.
const dataVersionSQL = "SELECT (SELECT data_version FROM pragma_data_version()), (SELECT journal_mode FROM pragma_journal_mode())"

// readVersionPoint reads seq in a point read on a rollback-journal file,
// where counting the rows would hold a read lock for milliseconds (a
// count of 4096 rows in a statement failed 89 of 216 commits of a
// reference-shaped writer at a 25 ms period; a point read none of 190).
// Rows is -1 (not counted) and Mark is data, so that a deletion, which
// moves no stamp, still changes the Version.
func (s *Store) readVersionPoint(ctx context.Context, data int64) (Version, error) {
	seq, err := s.Seq(ctx)
	return Version{Seq: seq, Rows: -1, Mark: data}, err
}

// versionLockFree reads seq without locks on a rollback-journal file
// (lockfree.go): Rows is -1 and Mark the lock-free connection's count
// of data_version, which moves on every commit. ok is false when the file
// kept being written (the caller reads with locks).
func (s *Store) versionLockFree(ctx context.Context) (v Version, ok bool, err error) {
	v.Rows = -1
	v.Mark, ok, err = s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error {
		return conn.QueryRowContext(ctx, "SELECT seq FROM kv_meta WHERE id = 0").Scan(&v.Seq)
	})
	if errors.Is(err, sql.ErrNoRows) {
		err = fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
	}
	if ok && err == nil {
		s.rowsRead.Add(1)
	}
	return v, ok, s.classify(err)
}

// closeWatch gives the watch connection back.
func (s *Store) closeWatch() {
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

func (s *Store) readVersion(ctx context.Context) (Version, error) {
	var v Version
	found, err := s.queryRow(ctx, "SELECT seq, (SELECT count(*) FROM kv) FROM kv_meta WHERE id = 0", nil, &v.Seq, &v.Rows)
	if err == nil && !found {
		err = fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
	}
	return v, err
}

// What the reads of the feed know of the file's journal mode
// (versionWatch.journal).
const (
	journalUnknown = iota
	journalRollback
	journalOther // WAL, memory, off
)

// noteJournal records the journal mode a statement read.
func (s *Store) noteJournal(mode string) {
	j := int32(journalOther)
	switch strings.ToLower(mode) {
	case "delete", "truncate", "persist":
		j = journalRollback
	}
	s.watch.journal.Store(j)
}

// rollbackFile reports whether the store is a rollback-journal file read
// with locks (as the last head or Version read saw it), where a read
// blocks a writer's commit.
func (f *fileConn) rollback() bool {
	return f.imm == nil && f.s.watch.journal.Load() == journalRollback
}
