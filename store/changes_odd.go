package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"kvdeck/codec"
)

// OddStamps lists the rows under the prefixes (none: every row) whose ver
// is not a whole number (TEXT, a BLOB, a fractional REAL: another
// writer's). They have no place in stamp order, so the change feed never
// returns them; a reader of the feed (watch, Activity) asks here once, at
// its start, and says so. It answers at most limit rows, in key order,
// without their values (Value nil), and how many there are in all. One
// statement that walks the table (without locks on a rollback-journal
// file, as the feed does).
func (s *Store) OddStamps(ctx context.Context, prefixes []codec.Key, limit int) ([]Entry, int64, error) {
	if len(prefixes) == 0 {
		prefixes = []codec.Key{nil}
	}
	var rngs []string
	var args []any
	for _, p := range prefixes {
		lo, hi, err := bounds(ListOptions{Prefix: p, Unbounded: len(p) == 0})
		if err != nil {
			return nil, 0, err
		}
		rng, rargs := rangeWhere(lo, hi)
		rngs = append(rngs, "("+rng+")")
		args = append(args, rargs...)
	}
	where := "NOT " + wholeVerSQL + " AND (" + strings.Join(rngs, " OR ") + ")"
	q := "WITH o AS (SELECT k, ver, expires_at FROM kv WHERE " + where + ") " +
		"SELECT " + fmt.Sprint(rowHeader) + ", NULL, NULL, 0, NULL, (SELECT count(*) FROM o), NULL, NULL UNION ALL " +
		"SELECT * FROM (SELECT " + fmt.Sprint(rowChange) + ", k, NULL, ver, expires_at, NULL, NULL, NULL FROM o ORDER BY k LIMIT ?)"
	args = append(args, limit)
	var found []Entry
	var total int64
	collect := func(kind int, e Entry, x, _, _ sql.NullInt64) {
		if kind == rowHeader {
			total = x.Int64
			return
		}
		e.Value, e.ValueNull = nil, false
		found = append(found, e)
	}
	if !s.conn.windowed() {
		err := s.scanKinds(ctx, q, args, collect)
		return found, total, err
	}
	// A rollback-journal file: the statement walks the whole table, and
	// a locked walk would fail the commits of a writer without a busy
	// timeout (the reference's), so it goes without locks or not at all.
	_, ok, err := s.readLockFree(ctx, func(ctx context.Context, conn lfConn) error {
		found, total = found[:0], 0
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			return s.classify(err)
		}
		defer rows.Close()
		return s.readKinds(rows, collect)
	})
	if err == nil && !ok {
		err = fmt.Errorf("%w: the file was written during every read kvdeck tried without locks", ErrLocked)
	}
	return found, total, err
}
