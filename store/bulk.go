package store

import (
	"context"
	"fmt"
	"strings"
)

// insertChunk is how many rows one multi-row INSERT of SetMany carries: 3
// bound values each, well under maxStmtArgs, and a VALUES list short
// enough for every SQLite a server may run (libSQL 3.45 refuses some
// shapes of a 1000-row VALUES subquery as too deep an expression).
const insertChunk = 500

// SetMany commits sets without checks, like Commit(ctx, nil, sets) (one
// transaction, seq bumped once, every row the same stamp, a later set of a
// key winning), with the rows in multi-row statements: a commit of
// thousands of sets is a few statements for the driver to split and the
// server to parse, not one per row (load over a server).
func (s *Store) SetMany(ctx context.Context, sets []Mutation) (CommitResult, error) {
	return s.SetManyChecked(ctx, nil, sets)
}

// SetManyChecked is SetMany with checks, like Commit(ctx, checks, sets):
// nothing is written unless every check holds (load --if-absent checks
// every key it writes). Any number of checks and rows is one transaction
// (one request over a server): the checks are evaluated in chunks and the
// rows inserted in chunks of insertChunk, each statement under SQLite's
// limits. A failed check is explained as Commit explains it.
func (s *Store) SetManyChecked(ctx context.Context, checks []Check, sets []Mutation) (CommitResult, error) {
	if err := s.checkWritable("atomic commit"); err != nil {
		return CommitResult{}, err
	}
	for i, m := range sets {
		if m.Type != MutationSet {
			return CommitResult{}, fmt.Errorf("%w: SetMany mutation %d has type %q; want set", ErrInvalidArgument, i, m.Type)
		}
	}
	if len(sets) == 0 {
		return s.Commit(ctx, checks, nil)
	}
	var keys [][]byte
	if s.recorder != nil {
		keys = mutationKeys(sets)
	}
	stmts, _, err := buildCommit(checks, sets, s.Now(), s.commitLimits(), len(keys) > 0)
	if err != nil {
		return CommitResult{}, err
	}
	// buildCommit validated and normalised every row (the statement after
	// the head holds row 0's k, v, expires_at, and so on); they go into
	// VALUES lists.
	head := headIndex(stmts)
	rows := stmts[head+1:]
	out := append([]stmt(nil), stmts[:head+1]...)
	for len(rows) > 0 {
		chunk := rows[:min(or(s.knobs.insertChunk, insertChunk), len(rows))]
		rows = rows[len(chunk):]
		args := make([]any, 0, 3*len(chunk))
		for _, st := range chunk {
			args = append(args, st.args...)
		}
		out = append(out, stmt{
			sql: "INSERT INTO kv (k, v, ver, expires_at) SELECT column1, column2, (SELECT seq FROM kv_meta WHERE id = 0), column3 FROM (VALUES (?, ?, ?)" +
				strings.Repeat(", (?, ?, ?)", len(chunk)-1) + ") WHERE (SELECT ok FROM kv_meta WHERE id = 0) = 1 " +
				"ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at",
			args: args,
		})
	}
	w := PendingWrite{Kind: "set-many", Keys: keys, Checks: checks, Mutations: sets}
	return s.commitImaged(ctx, w, out, true, func(_ *journaled, res CommitResult, err error) (CommitResult, error) {
		switch {
		case err != nil || res.OK:
		case len(checks) == 0:
			err = fmt.Errorf("%w: a commit without checks failed", ErrNotStore)
		default:
			res.Failed, err = s.explain(ctx, checks)
		}
		return res, err
	})
}
