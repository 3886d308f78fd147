package store

import (
	"context"
	"fmt"

	"kvdeck/store/internal/hrana"
)

// Reads over a server (Store.query, so Get, List pages, the change feed)
// go through kvdeck's own Hrana client (store/internal/hrana), not
// libsql-client-go: a 2 MB value read through it allocated 9 times its
// size over HTTP and took 70 times the file's time; through kvdeck's a
// large value costs a small multiple of its size
// (BenchmarkLargeValueRead). The client returns rows of Hrana values;
// batchRows hands them to the engine's destinations as database/sql
// would (assign).

// remoteRows runs one read statement on the server reads go to and
// returns its rows.
func (c *serverConn) remoteRows(ctx context.Context, q string, args []any) (*batchRows, error) {
	st, err := hranaStatement(stmt{sql: q, args: args})
	if err != nil {
		return nil, err
	}
	res, err := c.reads.Read(ctx, hrana.ExecuteReq(st))
	if err != nil {
		return nil, err
	}
	if res.Error != nil {
		return nil, hrana.StmtError(res.Error)
	}
	if res.Stmt == nil {
		return nil, hrana.ErrNoAnswer
	}
	return &batchRows{rows: res.Stmt.Rows, at: -1}, nil
}

// hranaStatement is st on the wire.
func hranaStatement(st stmt) (hrana.Stmt, error) {
	args := make([]hrana.Value, len(st.args))
	for i, a := range st.args {
		var err error
		if args[i], err = hrana.ValueOf(a); err != nil {
			return hrana.Stmt{}, fmt.Errorf("%w: %w", ErrInvalidArgument, err)
		}
	}
	return hrana.Stmt{SQL: st.sql, Args: args, WantRows: true}, nil
}

// resultRows is what a write transaction hands its result reader: the
// rows of one statement, from database/sql (file) or from a batch answer.
type resultRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// batchRows are the rows of one statement of a server's answer.
type batchRows struct {
	rows [][]hrana.Value
	at   int
	err  error
}

// Next moves to the next row.
func (r *batchRows) Next() bool {
	if r == nil || r.err != nil || r.at+1 >= len(r.rows) {
		return false
	}
	r.at++
	return true
}

// Err returns the first decoding error.
func (r *batchRows) Err() error {
	if r == nil {
		return nil
	}
	return r.err
}

// Scan copies the current row into dest (see assign for the
// destinations it takes).
func (r *batchRows) Scan(dest ...any) error {
	row := r.rows[r.at]
	if len(dest) != len(row) {
		return fmt.Errorf("scan: %d destinations for %d columns", len(dest), len(row))
	}
	for i, d := range dest {
		v, err := row[i].Native()
		if err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
		if err := assign(d, v); err != nil {
			return fmt.Errorf("scan column %d: %w", i, err)
		}
	}
	return nil
}

// Close implements rowSource: the rows hold no connection.
func (r *batchRows) Close() error { return nil }
