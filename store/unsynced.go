package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
)

// A sweep's delete commits on a WAL file are made without a sync of
// their own, but for the sweep's last: its sync of the WAL makes every
// frame before it durable too, before the sweep reports (a checkpoint,
// which syncs the WAL first, does so meanwhile). The sweep holds each
// commit back until it knows whether another follows. What such a
// commit removes was already expired, so a power cut that takes
// unsynced ones back loses nothing a reader sees; the journal's images
// of them stay (an undo of a row still there is refused, never applied
// over it). On a rollback-journal file a commit without its syncs may
// corrupt the database at a power cut, so there every commit syncs; the
// mode is checked inside each transaction (a WAL file cannot leave WAL
// while this connection has it open). A sync cost about as much as
// deleting a commit's 1,000 rows.

// errNotWAL: the file was not in WAL mode within the transaction.
var errNotWAL = errors.New("not a WAL file")

// execDeletes runs stmts, a sweep's delete commit, as execBatch does;
// on a WAL file, unless sync, the commit is not synced.
func (s *Store) execDeletes(ctx context.Context, stmts []stmt, sync bool) error {
	f, ok := s.conn.(*fileConn)
	if !sync && ok && !s.readOnly && s.watch.journal.Load() == journalOther {
		if err := f.execUnsynced(ctx, stmts); !errors.Is(err, errNotWAL) {
			s.toldSynced(false, err)
			return err
		}
	}
	err := s.execBatch(ctx, stmts)
	s.toldSynced(true, err)
	return err
}

// toldSynced tells the test hook whether a delete commit synced.
func (s *Store) toldSynced(synced bool, err error) {
	if s.knobs.deleteSynced != nil && err == nil {
		s.knobs.deleteSynced(synced)
	}
}

// execUnsynced runs stmts as one transaction committed with
// synchronous=NORMAL on a connection of its own, which goes back to the
// pool at FULL (or is discarded). It fails with errNotWAL, having
// written nothing, unless the file is in WAL mode.
func (f *fileConn) execUnsynced(ctx context.Context, stmts []stmt) error {
	conn, err := f.db.Conn(ctx)
	if err != nil {
		return f.s.classify(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = NORMAL"); err != nil {
		return f.s.classify(err)
	}
	defer func() {
		// A background context: the setting must be restored even when
		// ctx has ended. A connection that cannot be restored is dropped.
		if _, err := conn.ExecContext(context.Background(), "PRAGMA synchronous = FULL"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	wal := stmt{sql: "PRAGMA journal_mode", read: func(rs resultRows) error {
		var mode string
		for rs.Next() {
			if err := rs.Scan(&mode); err != nil {
				return err
			}
		}
		if err := rs.Err(); err != nil {
			return err
		}
		if !strings.EqualFold(mode, "wal") {
			return errNotWAL
		}
		return nil
	}}
	return f.execOn(ctx, conn, append([]stmt{wal}, stmts...))
}
