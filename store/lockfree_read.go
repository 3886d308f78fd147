package store

import (
	"context"
	"database/sql"
)

// readShort runs one read statement and hands its rows to read: on a
// rollback-journal file without SQLite's locks where it can (lockfree.go:
// a service's commit that meets kvdeck's SHARED lock fails, the reference
// setting no busy timeout; read may then be called more than once, and
// must start afresh each time), else, or when the file kept being written
// during every try, the ordinary way. For the statements that examine many
// rows and run again and again: the census's windows, sweep's counts.
func (s *Store) readShort(ctx context.Context, q string, args []any, read func(resultRows) error) error {
	if s.lockFreeUsable() {
		_, ok, err := s.readLockFree(ctx, func(ctx context.Context, conn *sql.Conn) error {
			rows, err := conn.QueryContext(ctx, q, args...)
			if err != nil {
				return s.classify(err)
			}
			defer rows.Close()
			return read(rows)
		})
		if ok || err != nil {
			return err
		}
	}
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	return read(rows)
}
