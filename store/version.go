package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
)

// Version is a cheap fingerprint of the store's content for change
// detection: seq moves on every commit with a set, the row count on inserts,
// deletes and sweeps.
type Version struct {
	Seq  int64
	Rows int64
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
}

// Version reads seq and the row count in one statement. On an embedded
// file it first asks data_version and answers from the last reading when
// no commit happened since (one cheap pragma instead of a count).
func (s *Store) Version(ctx context.Context) (Version, error) {
	if s.target.Transport != TransportFile || s.imm != nil {
		// An immutable read's data_version never moves (readonly.go).
		return s.readVersion(ctx)
	}
	w := &s.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	data, err := s.dataVersion(ctx)
	if err != nil {
		return Version{}, err
	}
	if w.valid && data == w.data {
		return w.last, nil
	}
	v, err := s.readVersion(ctx)
	if err != nil {
		return v, err
	}
	// A commit between the pragma and the count makes the next call read
	// again: data_version will have moved past data.
	w.data, w.last, w.valid = data, v, true
	return v, nil
}

// dataVersion reads PRAGMA data_version on the watch connection (w.mu held).
func (s *Store) dataVersion(ctx context.Context) (int64, error) {
	w := &s.watch
	if w.conn == nil {
		conn, err := s.db.Conn(ctx)
		if err != nil {
			return 0, s.classify(err)
		}
		w.conn = conn
	}
	s.statements.Add(1)
	s.roundTrips.Add(1)
	var data int64
	if err := w.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&data); err != nil {
		w.conn.Close()
		w.conn, w.valid = nil, false
		return 0, s.classify(err)
	}
	return data, nil
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
