package store

import (
	"context"
	"database/sql"
	"fmt"
)

// The opt-in index on kv(ver). The reference creates none: without it the
// change feed (Changes) scans the table in windows whenever seq moves; with
// it, a page of changes is one indexed range read. It costs every set one
// more b-tree write and the rows' size again in the index (ver and rowid,
// ~10 bytes a row), and building it holds the write lock for the time it
// takes (about a second per million rows on a file). The reference's own
// statements (CREATE TABLE IF NOT EXISTS, its upserts, deletes and
// sweeps) run unchanged beside it. kvdeck never creates it unless asked.

// VerIndexInfo describes an index of kv whose first column is ver.
type VerIndexInfo struct {
	// Name is the index's name; Ours is true for VerIndex, the one
	// AddVerIndex creates and DropVerIndex removes.
	Name string
	Ours bool
	// Partial is true for an index with a WHERE clause, which Changes
	// does not rely on.
	Partial bool
	// SQL is the statement that created it.
	SQL string
}

// VerIndexes lists the indexes of kv whose first column is ver.
func (s *Store) VerIndexes(ctx context.Context) ([]VerIndexInfo, error) {
	rows, err := s.query(ctx, "SELECT l.name, l.partial, coalesce(m.sql, '') FROM pragma_index_list('kv') AS l "+
		"JOIN pragma_index_info(l.name) AS i ON i.seqno = 0 AND i.name = 'ver' "+
		"LEFT JOIN sqlite_master AS m ON m.type = 'index' AND m.name = l.name ORDER BY l.name")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []VerIndexInfo
	for rows.Next() {
		var ix VerIndexInfo
		var partial sql.NullInt64
		if err := rows.Scan(&ix.Name, &partial, &ix.SQL); err != nil {
			return nil, s.classify(err)
		}
		ix.Partial, ix.Ours = partial.Int64 != 0, ix.Name == VerIndex
		out = append(out, ix)
	}
	return out, s.classify(rows.Err())
}

// AddVerIndex creates VerIndex on kv(ver) unless it exists; created
// reports whether it did.
func (s *Store) AddVerIndex(ctx context.Context) (created bool, err error) {
	return s.changeVerIndex(ctx, true, "CREATE INDEX IF NOT EXISTS "+VerIndex+" ON kv (ver)")
}

// DropVerIndex removes VerIndex when it exists (never another index);
// dropped reports whether it did.
func (s *Store) DropVerIndex(ctx context.Context) (dropped bool, err error) {
	return s.changeVerIndex(ctx, false, "DROP INDEX IF EXISTS "+VerIndex)
}

func (s *Store) changeVerIndex(ctx context.Context, add bool, ddl string) (bool, error) {
	what := map[bool]string{true: "adding the index on ver", false: "dropping the index on ver"}[add]
	if err := s.checkWritable(what); err != nil {
		return false, err
	}
	before, err := s.hasOurIndex(ctx)
	if err != nil {
		return false, err
	}
	if before == add {
		return false, nil
	}
	s.watch.verIndexed.Store(indexUnknown)
	if err := s.execBatch(ctx, []stmt{{sql: ddl, ddl: true}}); err != nil {
		return false, fmt.Errorf("%s: %w", what, err)
	}
	return true, nil
}

func (s *Store) hasOurIndex(ctx context.Context) (bool, error) {
	var n int64
	_, err := s.queryRow(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = ?", []any{VerIndex}, &n)
	return n > 0, err
}
