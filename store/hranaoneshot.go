package store

import (
	"context"
	"errors"
	"kvdeck/store/internal/hrana"
)

// A one-shot (Options.OneShot on a server) sends nothing at Open: its
// first call carries the schema check in the same request as its
// statements, and the stream's close: open and a get, set, delete or
// atomic are one request over HTTP, and one round trip after the
// handshake over WebSocket. The engine's statements are the same as on every transport
// (Get's SELECT, a commit's batch from buildCommit); only the way they
// travel differs.
//
// A write's batch begins with guardStmt, inside its transaction: when the
// tables are not a complete store's, the guard fails, the batch is rolled
// back, and the schema is checked (and created, as Open would) from the
// tables the same request listed before the write is sent again.

// guardSQL fails (malformed JSON) unless kv and kv_meta have a store's
// columns, in order.
const guardSQL = "SELECT json(CASE WHEN " +
	"(SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('kv') ORDER BY cid)) = 'k,v,ver,expires_at' AND " +
	"(SELECT group_concat(name) FROM (SELECT name FROM pragma_table_info('kv_meta') ORDER BY cid)) = 'id,seq,ok' " +
	"THEN '1' ELSE 'kvdeck: not a store' END)"

// takeDeferred returns the options of a schema check still to come, and
// marks it done: the caller checks (oneShotRow, execHTTP) or falls back
// to ready's check.
func (s *Store) takeDeferred() *Options { return s.conn.takeDeferred() }

func (c *serverConn) takeDeferred() *Options {
	c.deferredMu.Lock()
	defer c.deferredMu.Unlock()
	opts := c.deferred
	c.deferred = nil
	return opts
}

// takeDeferred: a file's schema is checked at Open.
func (f *fileConn) takeDeferred() *Options { return nil }

// ready runs a deferred schema check on its own, as Open would have
// (every call but a one-shot's first read or write).
func (s *Store) ready(ctx context.Context) error {
	opts := s.takeDeferred()
	if opts == nil {
		return nil
	}
	ictx, cancel := s.requestCtx(ctx)
	defer cancel()
	return s.classify(s.timedOut(ictx, s.initPatiently(ictx, false, *opts)))
}

// tablesChecked finishes a one-shot's schema check from the tables its
// request listed: done is true when they are a complete store's (the
// request's statements ran on a store); otherwise the check ran as Open's
// (creating the schema where Open would) and its error, if any, is
// returned, and the caller sends its statements again.
func (s *Store) tablesChecked(ctx context.Context, res hrana.Result, opts Options) (done bool, err error) {
	if res.Error != nil {
		return false, s.classify(hrana.StmtError(res.Error))
	}
	if res.Stmt == nil {
		return false, hrana.ErrNoAnswer
	}
	tables, others, err := scanTables(&batchRows{rows: res.Stmt.Rows, at: -1})
	if err != nil {
		return false, err
	}
	if storeTables(tables) {
		return true, nil
	}
	ictx, cancel := s.requestCtx(ctx)
	defer cancel()
	return false, s.classify(s.timedOut(ictx, s.checkTables(ictx, tables, others, opts)))
}

// oneShotRow is queryRow's first call of a one-shot: the schema check,
// the statement and the close in one request.
func (s *Store) oneShotRow(ctx context.Context, opts Options, q string, args []any, dest ...any) (bool, error) {
	rows, err := s.oneShotRows(ctx, opts, q, args)
	if err != nil {
		return false, err
	}
	if rows == nil {
		return s.queryRow(ctx, q, args, dest...)
	}
	if !rows.Next() {
		return false, nil
	}
	s.rowsRead.Add(1)
	return true, s.classify(rows.Scan(dest...))
}

// oneShotRows is a read's first call of a one-shot: the schema check,
// the statement and the close in one request. Its rows are nil when the
// tables were not a store's (the check then made them one, as Open
// would): the caller reads again.
func (s *Store) oneShotRows(ctx context.Context, opts Options, q string, args []any) (*batchRows, error) {
	st, err := hranaStatement(stmt{sql: q, args: args})
	if err != nil {
		return nil, err
	}
	s.statements.Add(2)
	s.roundTrips.Add(1)
	rctx, cancel := s.requestCtx(ctx)
	defer cancel()
	tables := hrana.ExecuteReq(hrana.Stmt{SQL: tablesSQL, WantRows: true})
	res, err := s.server.reads.SendReads(rctx, []hrana.Req{tables, hrana.ExecuteReq(st)})
	if err != nil {
		return nil, s.classify(s.timedOut(rctx, err))
	}
	done, err := s.tablesChecked(ctx, res[0], opts)
	if err != nil || !done {
		return nil, err
	}
	if res[1].Error != nil || res[1].Stmt == nil {
		return nil, s.classify(errors.Join(hrana.StmtError(res[1].Error), hrana.ErrNoAnswer))
	}
	return &batchRows{rows: res[1].Stmt.Rows, at: -1}, nil
}

// execRemote runs stmts as one transaction in one request to a server:
// the batch of batchSteps (BEGIN IMMEDIATE, the statements, COMMIT, each
// step on the success of the one before, ROLLBACK unless the COMMIT ran)
// and the stream's close; a one-shot's first write adds the schema check
// before it and the guard inside it.
func (s *Store) execRemote(ctx context.Context, stmts []stmt) error {
	opts := s.takeDeferred()
	batch := stmts
	if opts != nil {
		batch = append([]stmt{{sql: guardSQL}}, stmts...)
	}
	wire := make([]hrana.Stmt, len(batch))
	for i, st := range batch {
		var err error
		if wire[i], err = hranaStatement(st); err != nil {
			return err
		}
	}
	steps, commit := hrana.Transaction(wire)
	reqs := []hrana.Req{hrana.BatchReq(steps)}
	if opts != nil {
		reqs = append([]hrana.Req{hrana.ExecuteReq(hrana.Stmt{SQL: tablesSQL, WantRows: true})}, reqs...)
	}
	s.statements.Add(int64(len(stmts) + 2))
	s.roundTrips.Add(1)
	rctx, cancel := s.writeCtx(ctx, len(stmts))
	defer cancel()
	res, err := s.server.primary.Send(rctx, reqs)
	if err != nil {
		return s.remoteWriteError(rctx, err)
	}
	if opts != nil {
		done, err := s.tablesChecked(ctx, res[0], *opts)
		if err != nil || !done {
			// The guard failed: nothing was written.
			return errors.Join(err, s.execAgain(ctx, err, stmts))
		}
		res = res[1:]
	}
	if res[0].Error != nil || res[0].Batch == nil {
		return s.classify(errors.Join(hrana.StmtError(res[0].Error), hrana.ErrNoAnswer))
	}
	results, err := hrana.Committed(res[0].Batch, commit, len(batch))
	if err != nil {
		return s.classify(err)
	}
	return readResults(stmts, results[len(batch)-len(stmts):])
}

// execAgain sends a one-shot's write again once its schema check created
// the store (err nil); after a failed check it does nothing.
func (s *Store) execAgain(ctx context.Context, err error, stmts []stmt) error {
	if err != nil {
		return nil
	}
	return s.execRemote(ctx, stmts)
}

// remoteWriteError is the error of a write request that failed as a
// whole: not sent, refused by the server (not applied), or sent without
// an answer (the outcome is unknown).
func (s *Store) remoteWriteError(rctx context.Context, err error) error {
	switch {
	case errors.Is(err, hrana.ErrNotSent):
		return s.classify(s.timedOut(rctx, err))
	case hrana.Answered(err):
		return s.classify(err)
	case s.server.primary.OverWebSocket() && tokenReadOnly(s.server.token):
		// sqld drops the WebSocket of a read-only token's write.
		return s.scrub(s.readOnlyTokenRefused(err))
	}
	return s.unknownOutcome(rctx, err)
}

// readResults hands each statement with a read func its rows (nil: a
// statement without a result).
func readResults(stmts []stmt, results [][][]hrana.Value) error {
	for i, st := range stmts {
		if st.read == nil {
			continue
		}
		if err := st.read(&batchRows{rows: results[i], at: -1}); err != nil {
			return err
		}
	}
	return nil
}
