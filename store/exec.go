package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"kvdeck/internal/retry"
)

// stmt is one SQL statement with its positional arguments.
type stmt struct {
	sql  string
	args []any
	// ddl marks schema statements: they are never prepared ahead, since a
	// statement prepared on another connection cannot see tables created
	// inside the open transaction.
	ddl bool
	// read, when not nil, is handed the statement's rows in a write
	// transaction (execBatch): a commit's ok and seq, a journal guard's
	// verdict, the keys a DELETE ... RETURNING removed.
	// It runs while the transaction is open on a file, and after the
	// answer came over a server.
	read txResult
	// result marks the head of a commit: the statement whose rows are
	// (ok, seq) (write.go, commitHead); runCommit gives it its read.
	result bool
}

// prepared returns a cached prepared statement for q, or nil when q should
// run unprepared.
func (f *fileConn) prepared(ctx context.Context, q string) (*sql.Stmt, error) {
	if f.imm != nil {
		// An immutable read may move to another connection pool
		// (readonly.go); its statements run unprepared.
		return nil, nil
	}
	st, err := f.cache.get(ctx, f.db, q)
	if err != nil {
		return nil, f.s.classify(err)
	}
	return st, nil
}

// requestCtx bounds one request to a server with the store's request
// timeout (or ctx's own earlier deadline): a server that accepts and never
// answers fails the request instead of hanging it. Embedded files are
// bounded by the busy timeout instead, so ctx is returned as it is.
func (s *Store) requestCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return s.writeCtx(ctx, 0)
}

// writeCtx is requestCtx for a write of n statements: each adds
// perStatement to the deadline, so that a commit of thousands of
// mutations (one request) is not cut short on a busy server.
func (s *Store) writeCtx(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	return s.conn.requestCtx(ctx, n)
}

// requestCtx: see writeCtx.
func (c *serverConn) requestCtx(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.s.reqTimeout+time.Duration(n)*perStatement, errRequestTimeout)
}

// errRequestTimeout is the cause of a request context's end when the
// request timeout passed; any other cause is the caller's own (its
// deadline, an interrupt).
var errRequestTimeout = errors.New("the request timeout passed")

// callerDeadline reports whether rctx, a request's context, ended at the
// caller's own deadline rather than at the request timeout.
func callerDeadline(rctx context.Context) bool {
	return errors.Is(rctx.Err(), context.DeadlineExceeded) && !errors.Is(context.Cause(rctx), errRequestTimeout)
}

// perStatement is the deadline a write request gains per statement.
const perStatement = 10 * time.Millisecond

// reqRows are the rows of one read; closing them ends the request's
// deadline too (database/sql closes rows whose context ends, so the
// deadline must outlive the reading).
type reqRows struct {
	rowSource
	cancel context.CancelFunc
	// after, when not nil, checks the statement once its rows are read
	// (an immutable read whose file changed meanwhile, readonly.go).
	after func() error
	err   error
}

// rowSource is what reqRows reads: database/sql's rows (a file), or the
// rows of a server's answer (hranaread.go).
type rowSource interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// Next moves to the next row; after the last it runs the after check.
func (r *reqRows) Next() bool {
	if r.rowSource.Next() {
		return true
	}
	r.check()
	return false
}

func (r *reqRows) check() {
	if r.after != nil {
		r.err, r.after = r.after(), nil
	}
}

// Err is the error that ended the rows, or the after check's.
func (r *reqRows) Err() error {
	if err := r.rowSource.Err(); err != nil {
		return err
	}
	return r.err
}

// Close closes the rows and releases the request's deadline.
func (r *reqRows) Close() error {
	r.check()
	err := r.rowSource.Close()
	r.cancel()
	if err == nil {
		err = r.err
	}
	return err
}

// query runs one read statement: one round trip on every transport, within
// the request deadline. On a rollback-journal file it reads without
// SQLite's locks where it can (conn.readFree: the statement is over, and
// its rows read whole, before they are handed on), and with them only
// after the store said so once (lockedRead).
func (s *Store) query(ctx context.Context, q string, args ...any) (*reqRows, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	rows, ok, err := s.conn.readFree(ctx, q, args)
	if ok || err != nil {
		return rows, err
	}
	return s.queryLocked(ctx, q, args...)
}

// queryLocked is query with SQLite's locks on a file (said once on a
// rollback-journal file: lockedRead).
func (s *Store) queryLocked(ctx context.Context, q string, args ...any) (*reqRows, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	s.statements.Add(1)
	s.roundTrips.Add(1)
	ctx, cancel := s.requestCtx(ctx)
	rows, after, err := s.conn.rows(ctx, q, args)
	if err != nil {
		cancel()
		return nil, err
	}
	return &reqRows{rowSource: rows, cancel: cancel, after: after}, nil
}

// rows: one request to where reads go.
func (c *serverConn) rows(ctx context.Context, q string, args []any) (rowSource, func() error, error) {
	rows, err := c.remoteRows(ctx, q, args)
	if err != nil {
		return nil, nil, c.s.classify(c.s.timedOut(ctx, err))
	}
	return rows, nil, nil
}

// rows: on the pool (or the immutable read's), prepared, with SQLite's
// locks, said once on a rollback-journal file (lockedRead).
func (f *fileConn) rows(ctx context.Context, q string, args []any) (rowSource, func() error, error) {
	f.lockedRead()
	var rows *sql.Rows
	var after func() error
	err := f.s.retryHotJournal(ctx, func() error {
		st, err := f.prepared(ctx, q)
		if err != nil {
			return err
		}
		var db *sql.DB
		if db, after, err = f.reader(); err != nil {
			return err
		}
		if st != nil {
			rows, err = st.QueryContext(ctx, args...)
		} else {
			rows, err = db.QueryContext(ctx, q, args...)
		}
		if err != nil {
			return f.s.classify(f.s.timedOut(ctx, err))
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return rows, after, nil
}

// timedOut names a request that outlived the request timeout (ctx is the
// request's own context).
func (s *Store) timedOut(ctx context.Context, err error) error {
	if callerDeadline(ctx) {
		// The caller's deadline: its own error, as for a file.
		return fmt.Errorf("%s did not answer before the deadline it was given: %w (%s)", s.display, context.DeadlineExceeded, redact(err.Error()))
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.Is(err, ErrUnreachable) {
		return fmt.Errorf("%w: %s did not answer within %s (is the server overloaded or the link down?): %s", ErrUnreachable, s.display, s.reqTimeout, redact(err.Error()))
	}
	return err
}

// queryRow runs a statement that returns at most one row.
func (s *Store) queryRow(ctx context.Context, q string, args []any, dest ...any) (bool, error) {
	if opts := s.takeDeferred(); opts != nil {
		return s.oneShotRow(ctx, *opts, q, args, dest...)
	}
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

// txResult reads the rows of one statement of a write transaction.
type txResult func(rows resultRows) error

// execBatch runs stmts as one write transaction. Over HTTP the whole
// transaction is one Hrana batch (one request): BEGIN IMMEDIATE, the
// statements, COMMIT, each step conditioned on the previous one, with a
// ROLLBACK when any fails; over WebSocket the same batch is one request
// (hrana.Client.Send). On a file it is one transaction on one connection. Each
// statement with a read func is handed its rows, in statement order, on
// every transport: however many statements return rows, the write is
// still one request. A remote write whose request was sent but not
// answered (a timeout, a cancel, a dropped connection) returns an error
// wrapping ErrOutcomeUnknown: it may or may not have been applied.
func (s *Store) execBatch(ctx context.Context, stmts []stmt) error {
	if s.readOnly {
		return fmt.Errorf("%w: write refused", ErrReadOnly)
	}
	return s.conn.exec(ctx, stmts)
}

// exec runs stmts as one transaction in one request (execBatch).
func (c *serverConn) exec(ctx context.Context, stmts []stmt) error {
	s := c.s
	// A server answers "database is locked" when its own wait for the
	// write lock ran out; the batch was rolled back, so it is tried again,
	// for up to the busy timeout in all, as SQLite's busy handler would.
	deadline := time.Now().Add(s.busy)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := c.execTurn(ctx, stmts)
		if err == nil || !errors.Is(err, ErrLocked) || errors.Is(err, ErrOutcomeUnknown) || time.Now().Add(wait).After(deadline) {
			return err
		}
		// Jitter keeps the writers that met the lock together from
		// meeting it together again.
		if !retry.Sleep(ctx, wait/2+rand.N(wait)) {
			return err
		}
	}
}

// execTurn runs stmts in this process's turn to write to the server
// (hrana.Client.LockWrite: over WebSocket one write at a time).
func (c *serverConn) execTurn(ctx context.Context, stmts []stmt) error {
	unlock, err := c.primary.LockWrite(ctx)
	if err != nil {
		return err // nothing sent
	}
	defer unlock()
	return c.s.execRemote(ctx, stmts)
}

// unknownOutcome is the error of a write whose request left but whose
// answer did not come: it may have been applied. When the caller's own
// deadline passed (not the request timeout), the error says so and is
// also context.DeadlineExceeded, so a caller that set it recognises it.
func (s *Store) unknownOutcome(ctx context.Context, err error) error {
	why := "the connection failed before the answer came"
	switch {
	case callerDeadline(ctx):
		why = "the deadline it was given passed before the answer came"
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		why = fmt.Sprintf("no answer came in time (the request timeout is %s)", s.reqTimeout)
	case errors.Is(ctx.Err(), context.Canceled):
		why = "it was interrupted before the answer came"
	}
	err = fmt.Errorf("%w: the write was sent to %s but %s, so it may or may not have been applied; read the keys back to see: %s", ErrOutcomeUnknown, s.display, why, redact(err.Error()))
	if callerDeadline(ctx) {
		return fmt.Errorf("%w (%w)", err, context.DeadlineExceeded)
	}
	return err
}

// exec runs stmts as one transaction of an embedded file.
func (f *fileConn) exec(ctx context.Context, stmts []stmt) error {
	return f.execOn(ctx, f.db, stmts)
}

// txBeginner is the pool or one connection of it.
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

// execOn runs stmts as one transaction on db.
func (f *fileConn) execOn(ctx context.Context, db txBeginner, stmts []stmt) (err error) {
	s := f.s
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return s.classify(err)
	}
	s.statements.Add(1)
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
	for _, st := range stmts {
		s.statements.Add(1)
		var prep *sql.Stmt
		if !st.ddl {
			if prep, err = f.prepared(ctx, st.sql); err != nil {
				return err
			}
		}
		if st.read != nil {
			var rows *sql.Rows
			if prep != nil {
				rows, err = tx.StmtContext(ctx, prep).QueryContext(ctx, st.args...)
			} else {
				rows, err = tx.QueryContext(ctx, st.sql, st.args...)
			}
			if err != nil {
				return s.classify(err)
			}
			err = st.read(rows)
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
