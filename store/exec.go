package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
)

// stmt is one SQL statement with its positional arguments.
type stmt struct {
	sql  string
	args []any
	// ddl marks schema statements: they are never prepared ahead, since a
	// statement prepared on another connection cannot see tables created
	// inside the open transaction.
	ddl bool
}

// maxPrepared bounds the statement cache; statements past it (commits with
// unusual numbers of checks) are prepared each time.
const maxPrepared = 128

// stmtCache keeps prepared statements of an embedded database: preparing
// costs as much as running a point statement in modernc.org/sqlite. Remote
// transports gain nothing from it (statements are parsed by the server).
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// prepared returns a cached prepared statement for q, or nil when q should
// run unprepared.
func (s *Store) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if s.target.Transport != TransportFile {
		return nil, nil
	}
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	if st, ok := s.cache.m[q]; ok {
		return st, nil
	}
	if len(s.cache.m) >= maxPrepared {
		return nil, nil
	}
	st, err := s.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, s.classify(err)
	}
	if s.cache.m == nil {
		s.cache.m = map[string]*sql.Stmt{}
	}
	s.cache.m[q] = st
	return st, nil
}

// closePrepared closes the cached statements.
func (s *Store) closePrepared() {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	for _, st := range s.cache.m {
		st.Close()
	}
	s.cache.m = nil
}

// query runs one read statement: one round trip on every transport.
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s.statements.Add(1)
	s.roundTrips.Add(1)
	st, err := s.prepared(ctx, q)
	if err != nil {
		return nil, err
	}
	var rows *sql.Rows
	if st != nil {
		rows, err = st.QueryContext(ctx, args...)
	} else {
		rows, err = s.db.QueryContext(ctx, q, args...)
	}
	if err != nil {
		return nil, s.classify(err)
	}
	return rows, nil
}

// queryRow runs a statement that returns at most one row.
func (s *Store) queryRow(ctx context.Context, q string, args []any, dest ...any) (bool, error) {
	rows, err := s.query(ctx, q, args...)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return false, s.classify(rows.Err())
	}
	s.rowsRead.Add(1)
	if err := rows.Scan(dest...); err != nil {
		return false, s.classify(err)
	}
	return true, s.classify(rows.Close())
}

// txResult reads the rows of the statement marked by resultAt.
type txResult func(rows *sql.Rows) error

// execBatch runs stmts as one write transaction. Over HTTP the whole
// transaction is one Hrana batch (one request): BEGIN IMMEDIATE, the
// statements, COMMIT, each step conditioned on the previous one, with a
// ROLLBACK when any fails. On a file or a WebSocket it is one transaction on
// one connection. When scan is not nil, it is handed the rows of statement
// resultAt (an index into stmts).
func (s *Store) execBatch(ctx context.Context, stmts []stmt) error {
	return s.execBatchScan(ctx, stmts, -1, nil)
}

func (s *Store) execBatchScan(ctx context.Context, stmts []stmt, resultAt int, scan txResult) error {
	if s.readOnly {
		return fmt.Errorf("%w: write refused", ErrReadOnly)
	}
	if s.target.Transport == TransportHTTP {
		return s.execHrana(ctx, stmts, resultAt, scan)
	}
	return s.execTx(ctx, stmts, resultAt, scan)
}

func (s *Store) execHrana(ctx context.Context, stmts []stmt, resultAt int, scan txResult) error {
	var b strings.Builder
	var args []any
	b.WriteString("BEGIN IMMEDIATE")
	for _, st := range stmts {
		b.WriteString("; ")
		b.WriteString(st.sql)
		args = append(args, st.args...)
	}
	b.WriteString("; COMMIT")
	s.statements.Add(int64(len(stmts) + 2))
	s.roundTrips.Add(1)
	rows, err := s.db.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return s.classify(err)
	}
	defer rows.Close()
	// Result set 0 is BEGIN, statement i is set i+1, and the last set is the
	// COMMIT: moving onto it without an error proves the commit ran.
	for set := 1; set <= len(stmts)+1; set++ {
		if !rows.NextResultSet() {
			if err := rows.Err(); err != nil {
				return s.classify(err)
			}
			return fmt.Errorf("%w: the server did not confirm the commit on %s", ErrUnreachable, s.display)
		}
		if set-1 == resultAt && scan != nil {
			if err := scan(rows); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *Store) execTx(ctx context.Context, stmts []stmt, resultAt int, scan txResult) (err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.classify(err)
	}
	s.statements.Add(1)
	// BEGIN, each statement and COMMIT are a request each on a WebSocket.
	s.roundTrips.Add(int64(len(stmts) + 2))
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
		// database/sql rolls the transaction back when ctx ends; what
		// comes next then fails with ErrTxDone. The cause is the cancel
		// (a swept batch cancelled mid-way said "transaction has already
		// been committed or rolled back").
		if errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
			err = fmt.Errorf("%w: the transaction was rolled back", ctx.Err())
		}
	}()
	for i, st := range stmts {
		s.statements.Add(1)
		var prep *sql.Stmt
		if !st.ddl {
			if prep, err = s.prepared(ctx, st.sql); err != nil {
				return err
			}
		}
		if i == resultAt && scan != nil {
			var rows *sql.Rows
			if prep != nil {
				rows, err = tx.StmtContext(ctx, prep).QueryContext(ctx, st.args...)
			} else {
				rows, err = tx.QueryContext(ctx, st.sql, st.args...)
			}
			if err != nil {
				return s.classify(err)
			}
			err = scan(rows)
			if cerr := rows.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return s.classify(err)
			}
			continue
		}
		if prep != nil {
			_, err = tx.StmtContext(ctx, prep).ExecContext(ctx, st.args...)
		} else {
			_, err = tx.ExecContext(ctx, st.sql, st.args...)
		}
		if err != nil {
			return s.classify(err)
		}
	}
	s.statements.Add(1)
	return s.classify(tx.Commit())
}
