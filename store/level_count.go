package store

import (
	"context"
	"fmt"

	"kvdeck/codec"
)

// CountChildren counts the distinct next key parts under prefix, up to
// bound (default DefaultCountBound): capped reports that there are more
// than bound, and n is then bound. One statement: the skip-scan of
// Children (one indexed single-row seek per child, at most bound+1 of
// them), without the per-child row counts, answering one row. An
// undecodable row counts as one child, as Children lists it. Browse shows
// it as the size of a level it loads page by page (issue 22 point 14).
func (s *Store) CountChildren(ctx context.Context, prefix codec.Key, bound int) (n int64, capped bool, err error) {
	p, err := codec.Encode(prefix)
	if err != nil {
		return 0, false, err
	}
	if bound <= 0 {
		bound = DefaultCountBound
	}
	rng := "k >= %s"
	var hi []byte
	if len(prefix) > 0 {
		hi = codec.PrefixEnd(p)
		rng += " AND k < ?"
	}
	pos := append(append([]byte{}, p...), 0x00)
	args := []any{pos}
	if hi != nil {
		args = append(args, hi)
	}
	q := "WITH RECURSIVE w(n, nx) AS (" +
		"SELECT 1, " + childNextSQL("k", len(p)) + " FROM (SELECT k FROM kv WHERE " + fmt.Sprintf(rng, "?") + " ORDER BY k LIMIT 1)" +
		" UNION ALL " +
		"SELECT w.n + 1, " + childNextSQL("kv.k", len(p)) +
		" FROM w JOIN kv ON kv.k = (SELECT k FROM kv WHERE " + fmt.Sprintf(rng, "w.nx") + " ORDER BY k LIMIT 1) WHERE w.n <= ?)" +
		" SELECT count(*) FROM w"
	if hi != nil {
		args = append(args, hi)
	}
	args = append(args, bound)
	found, err := s.queryRow(ctx, q, args, &n)
	if err != nil {
		return 0, false, err
	}
	if !found {
		return 0, false, fmt.Errorf("count children: no result row")
	}
	if n > int64(bound) {
		return int64(bound), true, nil
	}
	return n, false, nil
}
