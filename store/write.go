package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kvdeck/codec"
)

// Check is a versionstamp condition of an atomic commit: it passes when the
// live row at Key has exactly Versionstamp, or, when Versionstamp is empty
// (the reference's null), when the key is absent or expired.
type Check struct {
	Key          codec.Key
	Versionstamp string
}

// MutationType is set or delete.
type MutationType string

// The mutation types of an atomic commit.
const (
	MutationSet    MutationType = "set"
	MutationDelete MutationType = "delete"
)

// Mutation is one write of an atomic commit.
type Mutation struct {
	Type MutationType
	Key  codec.Key
	// Value is JSON text (sets only); it is stored the way the reference's
	// JSON.stringify would write it.
	Value []byte
	// ExpireIn, when not nil, sets expires_at = now + ExpireIn (in whole
	// milliseconds); zero or negative means dead on arrival, as in the
	// reference.
	ExpireIn *time.Duration
	// ExpiresAt, when not nil, sets expires_at to this epoch millisecond
	// itself, any int64 (restoring a dump: a span from now would overflow
	// a Duration past ~292 years). At most one of ExpireIn and ExpiresAt.
	ExpiresAt *int64
}

// CheckFailure explains one check of a failed commit.
type CheckFailure struct {
	Index int
	Key   codec.Key
	// Expected is the stamp the check asked for ("" = absent).
	Expected string
	// Actual is the stamp found when the failure was re-read ("" = absent).
	Actual string
}

// CommitResult is the outcome of an atomic commit.
type CommitResult struct {
	// OK is false when a check failed; then nothing was applied.
	OK bool
	// Versionstamp is the commit's stamp; empty when it had no set or failed.
	Versionstamp string
	// Failed lists the checks that do not hold, re-read after the failure.
	// The re-read is best-effort: another writer may have changed the keys
	// between the failed commit and the re-read.
	Failed []CheckFailure
	// Settled is true when the server's answer was lost (a timeout, an
	// interrupt, a dropped connection) and re-reading the set keys found
	// the commit applied: each holds exactly the value it set, all under
	// one new stamp (Versionstamp).
	Settled bool
}

// Atomic builds an atomic commit.
type Atomic struct {
	s      *Store
	checks []Check
	muts   []Mutation
}

// Atomic starts an atomic commit.
func (s *Store) Atomic() *Atomic { return &Atomic{s: s} }

// Check adds a versionstamp check ("" = the key must be absent).
func (a *Atomic) Check(key codec.Key, versionstamp string) *Atomic {
	a.checks = append(a.checks, Check{Key: key, Versionstamp: versionstamp})
	return a
}

// Set adds a set without expiry.
func (a *Atomic) Set(key codec.Key, value []byte) *Atomic {
	a.muts = append(a.muts, Mutation{Type: MutationSet, Key: key, Value: value})
	return a
}

// SetExpiring adds a set that expires expireIn after the commit's now.
func (a *Atomic) SetExpiring(key codec.Key, value []byte, expireIn time.Duration) *Atomic {
	a.muts = append(a.muts, Mutation{Type: MutationSet, Key: key, Value: value, ExpireIn: &expireIn})
	return a
}

// Delete adds a delete.
func (a *Atomic) Delete(key codec.Key) *Atomic {
	a.muts = append(a.muts, Mutation{Type: MutationDelete, Key: key})
	return a
}

// Commit runs the commit.
func (a *Atomic) Commit(ctx context.Context) (CommitResult, error) {
	return a.s.Commit(ctx, a.checks, a.muts)
}

// Set is an unconditional commit with one set; expireIn nil means no expiry.
func (s *Store) Set(ctx context.Context, key codec.Key, value []byte, expireIn *time.Duration) (string, error) {
	res, err := s.Commit(ctx, nil, []Mutation{{Type: MutationSet, Key: key, Value: value, ExpireIn: expireIn}})
	return res.Versionstamp, err
}

// Commit runs checks and mutations as one write transaction with the
// reference's statement shape: the verdict of every check (against the state
// before any mutation) goes into kv_meta.ok, seq is bumped once when there is
// a set and the verdict holds, every mutation is guarded by the verdict, and
// ok and seq are read back. Over HTTP it is one request.
func (s *Store) Commit(ctx context.Context, checks []Check, muts []Mutation) (CommitResult, error) {
	res, err := s.TryCommit(ctx, checks, muts)
	if err == nil && !res.OK {
		res.Failed, err = s.explain(ctx, checks)
	}
	return res, err
}

// TryCommit is Commit without the explanation of a failed check (no
// re-read of the checked keys): one request per attempt over HTTP, for
// callers that retry on failure anyway (the CAS race).
func (s *Store) TryCommit(ctx context.Context, checks []Check, muts []Mutation) (CommitResult, error) {
	if err := s.checkWritable("atomic commit"); err != nil {
		return CommitResult{}, err
	}
	stmts, hasSet, err := buildCommit(checks, muts, s.Now())
	if err != nil {
		return CommitResult{}, err
	}
	var keys [][]byte
	if s.recorder != nil {
		keys = mutationKeys(muts)
	}
	j, err := s.beginWrite(ctx, PendingWrite{Kind: "commit", Keys: keys, Checks: checks, Mutations: muts})
	if err != nil {
		return CommitResult{}, err
	}
	res, err := s.runCommit(ctx, withCapture(stmts, j.capture(keys)), hasSet)
	if errors.Is(err, ErrOutcomeUnknown) {
		if settled, applied := s.settle(ctx, checks, muts); applied {
			j.settled(settled.Versionstamp)
			return settled, nil
		}
	}
	j.end(res.OK, res.Versionstamp, err)
	return res, err
}

// runCommit runs a commit's statements (statement 0 returns ok, seq).
func (s *Store) runCommit(ctx context.Context, stmts []stmt, hasSet bool) (CommitResult, error) {
	var ok, seq int64
	stmts[0].read = func(rows resultRows) error {
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return err
			}
			return fmt.Errorf("%w: kv_meta has no row 0", ErrNotStore)
		}
		return rows.Scan(&ok, &seq)
	}
	err := s.execBatch(ctx, stmts)
	if err != nil || ok != 1 {
		return CommitResult{}, err
	}
	res := CommitResult{OK: true}
	if hasSet {
		res.Versionstamp = codec.FormatStamp(seq)
	}
	return res, nil
}

// settle re-reads the keys a commit without checks whose answer was lost
// sets, and reports it applied when every one holds exactly the value the
// commit set, all under one stamp. It never reports a commit not applied:
// a request still queued at the server may apply after the re-read, so
// "not seen yet" stays unknown. A commit with checks is never settled: a
// rival that passed the same check and set the same value (two workers
// incrementing one counter from the same read) leaves exactly the state
// this commit would have, so reading cannot tell whose commit landed; the
// WebSocket race test counted such a commit twice before this rule. A
// commit without sets cannot be settled either.
func (s *Store) settle(ctx context.Context, checks []Check, muts []Mutation) (CommitResult, bool) {
	if len(checks) > 0 {
		return CommitResult{}, false
	}
	want := map[string][]byte{}
	for _, m := range muts {
		enc, err := codec.Encode(m.Key)
		if err != nil {
			return CommitResult{}, false
		}
		switch m.Type {
		case MutationSet:
			v, err := codec.NormalizeJSON(m.Value)
			if err != nil {
				return CommitResult{}, false
			}
			want[string(enc)] = v
		default:
			delete(want, string(enc))
		}
	}
	if len(want) == 0 {
		return CommitResult{}, false
	}
	// The caller's context may be the cancelled one: the re-read gets its
	// own short deadline.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), min(5*time.Second, s.reqTimeout))
	defer cancel()
	args := make([]any, 0, len(want))
	for k := range want {
		args = append(args, []byte(k))
	}
	rows, err := s.collect(rctx, "SELECT k, v, ver, expires_at FROM kv WHERE k IN (?"+strings.Repeat(", ?", len(args)-1)+")", args)
	if err != nil || len(rows) != len(want) {
		return CommitResult{}, false
	}
	stamp := rows[0].Ver
	for _, e := range rows {
		if e.Ver != stamp || e.Malformed != "" || !bytes.Equal(e.Value, want[string(e.Raw)]) {
			return CommitResult{}, false
		}
	}
	return CommitResult{OK: true, Versionstamp: codec.FormatStamp(stamp), Settled: true}, true
}

// buildCommit produces the statements of a commit. Statement 0 evaluates
// the checks, stores the verdict and bumps seq, returning (ok, seq).
func buildCommit(checks []Check, muts []Mutation, now int64) ([]stmt, bool, error) {
	verdict, vargs, err := checksSQL(checks, now)
	if err != nil {
		return nil, false, err
	}
	hasSet := false
	body := make([]stmt, 0, len(muts))
	for i, m := range muts {
		enc, err := codec.Encode(m.Key)
		if err != nil {
			return nil, false, fmt.Errorf("mutation %d: %w", i, err)
		}
		switch m.Type {
		case MutationSet:
			hasSet = true
			value, err := codec.NormalizeJSON(m.Value)
			if err != nil {
				return nil, false, fmt.Errorf("%w: mutation %d (%s): %v", ErrInvalidValue, i, m.Key, err)
			}
			var expires any
			switch {
			case m.ExpireIn != nil && m.ExpiresAt != nil:
				return nil, false, fmt.Errorf("%w: mutation %d (%s) has both ExpireIn and ExpiresAt", ErrInvalidArgument, i, m.Key)
			case m.ExpireIn != nil:
				expires = now + m.ExpireIn.Milliseconds()
			case m.ExpiresAt != nil:
				expires = *m.ExpiresAt
			}
			body = append(body, stmt{
				sql: "INSERT INTO kv (k, v, ver, expires_at) SELECT ?, ?, seq, ? FROM kv_meta WHERE id = 0 AND ok = 1 " +
					"ON CONFLICT (k) DO UPDATE SET v = excluded.v, ver = excluded.ver, expires_at = excluded.expires_at",
				args: []any{enc, string(value), expires},
			})
		case MutationDelete:
			body = append(body, stmt{
				sql:  "DELETE FROM kv WHERE k = ? AND (SELECT ok FROM kv_meta WHERE id = 0) = 1",
				args: []any{enc},
			})
		default:
			return nil, false, fmt.Errorf("%w: mutation %d has type %q; want set or delete", ErrInvalidArgument, i, m.Type)
		}
	}
	bump := "0"
	var args []any
	if hasSet {
		bump = "CASE WHEN " + verdict + " THEN 1 ELSE 0 END"
		args = append(args, vargs...)
	}
	args = append(args, vargs...)
	head := stmt{
		sql:  "UPDATE kv_meta SET seq = seq + " + bump + ", ok = " + verdict + " WHERE id = 0 RETURNING ok, seq",
		args: args,
	}
	return append([]stmt{head}, body...), hasSet, nil
}

// checksSQL renders the verdict of the checks as one SQL boolean expression.
func checksSQL(checks []Check, now int64) (string, []any, error) {
	if len(checks) == 0 {
		return "1", nil, nil
	}
	parts := make([]string, 0, len(checks))
	var args []any
	for i, c := range checks {
		enc, err := codec.Encode(c.Key)
		if err != nil {
			return "", nil, fmt.Errorf("check %d: %w", i, err)
		}
		if c.Versionstamp == "" {
			parts = append(parts, "NOT EXISTS (SELECT 1 FROM kv WHERE k = ? AND "+liveSQL+")")
			args = append(args, enc, now)
			continue
		}
		ver, err := codec.ParseStamp(c.Versionstamp)
		if err != nil {
			return "", nil, fmt.Errorf("%w: check %d (%s): %v", ErrInvalidArgument, i, c.Key, err)
		}
		parts = append(parts, "EXISTS (SELECT 1 FROM kv WHERE k = ? AND ver = ? AND "+liveSQL+")")
		args = append(args, enc, ver, now)
	}
	return "(" + strings.Join(parts, " AND ") + ")", args, nil
}

// explain re-reads the checked keys after a failed commit and lists the
// checks that do not hold.
func (s *Store) explain(ctx context.Context, checks []Check) ([]CheckFailure, error) {
	keys := make([]codec.Key, len(checks))
	for i, c := range checks {
		keys[i] = c.Key
	}
	found, err := s.GetMany(ctx, keys)
	if err != nil {
		return nil, fmt.Errorf("the commit failed a check; re-reading the checked keys failed too: %w", err)
	}
	var out []CheckFailure
	for i, c := range checks {
		actual := ""
		if found[i] != nil {
			actual = found[i].Versionstamp()
		}
		if actual != c.Versionstamp {
			out = append(out, CheckFailure{Index: i, Key: c.Key, Expected: c.Versionstamp, Actual: actual})
		}
	}
	return out, nil
}
