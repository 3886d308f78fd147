package store

import (
	"context"
	"fmt"

	"kvdeck/codec"
)

// CountChildren counts the distinct next key parts under prefix, up to
// bound (default DefaultCountBound): capped reports that there are more
// than bound, and n is then bound. The skip-scan of Children (one indexed
// single-row seek per child, at most bound+1 of them), without the
// per-child row counts, answering the count and where the walk stopped:
// one statement, or on a rollback-journal file a window of children per
// statement (readWindowed: ten thousand seeks took longer than a busy
// service leaves between two commits for a read without locks). An
// undecodable row counts as one child, as Children lists it. Browse shows
// it as the size of a level it loads page by page.
func (s *Store) CountChildren(ctx context.Context, prefix codec.Key, bound int) (n int64, capped bool, err error) {
	p, err := codec.Encode(prefix)
	if err != nil {
		return 0, false, err
	}
	if bound <= 0 {
		bound = DefaultCountBound
	}
	var hi []byte
	if len(prefix) > 0 {
		hi = codec.PrefixEnd(p)
	}
	pos := append(append([]byte{}, p...), 0x00)
	w := s.newReadWindow(windowLevel, min(or(s.knobs.windowRows, bound+1), bound+1))
	for {
		var used int
		got, next, err := s.countWindow(ctx, w, func(size int) (string, []any) {
			used = min(size, bound+1-int(n))
			return levelCountSQL(len(p), pos, hi, used)
		})
		if err != nil {
			return 0, false, s.classify(err)
		}
		n += got
		if n > int64(bound) {
			return int64(bound), true, nil
		}
		if got < int64(used) || next == nil {
			return n, false, nil
		}
		pos = next
	}
}

// countWindow runs a counting statement over one window of w
// (readWindowed) and reads its one row: a count and the key it stopped at
// (0 and nil when it answers no row).
func (s *Store) countWindow(ctx context.Context, w *readWindow, stmt func(n int) (string, []any)) (n int64, last []byte, err error) {
	err = s.readWindowed(ctx, w, stmt, func(rows resultRows) error {
		n, last = 0, nil
		if rows.Next() {
			if err := rows.Scan(&n, &last); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	return n, last, err
}

// levelCountSQL is the skip-scan of up to limit children from pos (under
// a prefix of plen bytes, below hi when not nil): how many it found and
// the position past the last.
func levelCountSQL(plen int, pos, hi []byte, limit int) (string, []any) {
	rng := "k >= %s"
	if hi != nil {
		rng += " AND k < ?"
	}
	args := []any{pos}
	if hi != nil {
		args = append(args, hi)
	}
	q := "WITH RECURSIVE w(n, nx) AS (" +
		"SELECT 1, " + childNextSQL("k", plen) + " FROM (SELECT k FROM kv WHERE " + fmt.Sprintf(rng, "?") + " ORDER BY k LIMIT 1)" +
		" UNION ALL " +
		"SELECT w.n + 1, " + childNextSQL("kv.k", plen) +
		" FROM w JOIN kv ON kv.k = (SELECT k FROM kv WHERE " + fmt.Sprintf(rng, "w.nx") + " ORDER BY k LIMIT 1) WHERE w.n < ?)" +
		" SELECT count(*), (SELECT nx FROM w ORDER BY n DESC LIMIT 1) FROM w"
	if hi != nil {
		args = append(args, hi)
	}
	return q, append(args, limit)
}
