package store

import (
	"context"
	"fmt"
	"strings"
)

// SetMany commits sets without checks, like Commit(ctx, nil, sets) (one
// transaction, seq bumped once, every row the same stamp, a later set of a
// key winning), with all the rows in one multi-row statement: a commit of
// thousands of sets is a few statements for the driver to split and the
// server to parse, not one per row (load over a server).
func (s *Store) SetMany(ctx context.Context, sets []Mutation) (CommitResult, error) {
	if err := s.checkWritable("atomic commit"); err != nil {
		return CommitResult{}, err
	}
	for i, m := range sets {
		if m.Type != MutationSet {
			return CommitResult{}, fmt.Errorf("%w: SetMany mutation %d has type %q; want set", ErrInvalidArgument, i, m.Type)
		}
	}
	if len(sets) == 0 {
		return s.Commit(ctx, nil, nil)
	}
	stmts, _, err := buildCommit(nil, sets, s.Now())
	if err != nil {
		return CommitResult{}, err
	}
	// buildCommit validated and normalised every row (statement i+1 holds
	// row i's k, v, expires_at); they go into one VALUES list.
	args := make([]any, 0, 3*len(sets))
	for _, st := range stmts[1:] {
		args = append(args, st.args...)
	}
	insert := stmt{
		sql: "INSERT INTO kv (k, v, ver, expires_at) SELECT column1, column2, (SELECT seq FROM kv_meta WHERE id = 0), column3 FROM (VALUES (?, ?, ?)" +
			strings.Repeat(", (?, ?, ?)", len(sets)-1) + ") WHERE (SELECT ok FROM kv_meta WHERE id = 0) = 1 " +
			"ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at",
		args: args,
	}
	var keys [][]byte
	if s.recorder != nil {
		keys = mutationKeys(sets)
	}
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "set-many", Keys: keys, Mutations: sets})
	if err != nil {
		return CommitResult{}, err
	}
	res, err := s.runCommit(ctx, withCapture([]stmt{stmts[0], insert}, j.capture(keys)), true)
	if err == nil && !res.OK {
		err = fmt.Errorf("%w: a commit without checks failed", ErrNotStore)
	}
	j.end(res.OK, res.Versionstamp, err)
	return res, err
}
