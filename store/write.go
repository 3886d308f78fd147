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
// ok and seq are read back. Over HTTP it is one request (two when
// journaled: the read of its before-images first, journal.go).
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
	var keys [][]byte
	if s.recorder != nil {
		keys = mutationKeys(muts)
	}
	stmts, hasSet, err := buildCommit(checks, muts, s.Now(), s.commitLimits(), len(keys) > 0)
	if err != nil {
		return CommitResult{}, err
	}
	w := PendingWrite{Kind: "commit", Keys: keys, Checks: checks, Mutations: muts}
	return s.commitImaged(ctx, w, stmts, hasSet, func(j *journaled, res CommitResult, err error) (CommitResult, error) {
		if errors.Is(err, ErrOutcomeUnknown) {
			if settled, applied := s.settle(ctx, checks, muts); applied {
				j.settled(settled.Versionstamp)
				return settled, nil
			}
		}
		return res, err
	})
}

// commitImaged runs a commit's statements as the journaled write w: the
// images of its keys read and recorded first (beginImaged), the commit
// behind their guard, read and tried again while the guard fails, up to
// guardTries times. then sees each attempt's answer before its outcome is
// recorded (it may settle it itself).
func (s *Store) commitImaged(ctx context.Context, w PendingWrite, stmts []stmt, hasSet bool, then func(*journaled, CommitResult, error) (CommitResult, error)) (CommitResult, error) {
	for try := 1; ; try++ {
		j, err := s.beginImaged(ctx, w)
		if err != nil {
			return CommitResult{}, err
		}
		res, err := s.runCommit(ctx, j.guarded(stmts), hasSet)
		if err != nil || !j.moved() {
			res, err = then(j, res, err)
			j.end(res.OK, res.Versionstamp, err)
			return res, err
		}
		j.end(false, "", nil)
		if try == guardTries {
			return CommitResult{}, fmt.Errorf("%s not made: %w (%d tries)", w.Kind, ErrKeysChanging, try)
		}
	}
}

// runCommit runs a commit's statements (the head, the statement marked
// result, returns ok, seq).
func (s *Store) runCommit(ctx context.Context, stmts []stmt, hasSet bool) (CommitResult, error) {
	var ok, seq int64
	stmts[headIndex(stmts)].read = func(rows resultRows) error {
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
	rows, err := s.collect(rctx, "SELECT "+s.entrySQL()+" FROM kv WHERE k IN (?"+strings.Repeat(", ?", len(args)-1)+")", args)
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

// buildCommit produces the statements of a commit. The head evaluates
// the checks, stores the verdict and bumps seq, returning (ok, seq); it is
// statement 0 unless the checks bind more values than one statement may
// (commitHead), and is marked result.
func buildCommit(checks []Check, muts []Mutation, now int64, lim commitLimits, guarded bool) ([]stmt, bool, error) {
	parts, err := checksSQL(checks, now, lim.chunk)
	if err != nil {
		return nil, false, err
	}
	if guarded {
		// The journal's guard (journaled.guard) stored its verdict in ok
		// first: the commit's own verdict holds only with it.
		parts = append([]checkPart{{sql: "ok = 1"}}, parts...)
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
				return nil, false, fmt.Errorf("%w: mutation %d (%s): %w", ErrInvalidValue, i, m.Key, err)
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
	return append(commitHead(parts, hasSet, lim.args), body...), hasSet, nil
}

// The limits every commit's statements stay under, whatever its number of
// checks and rows. SQLite (modernc.org/sqlite, and sqld's libSQL 3.45)
// refuses a statement that binds more than 32766 values
// (SQLITE_MAX_VARIABLE_NUMBER) or nests an expression deeper than 1000
// (SQLITE_MAX_EXPR_DEPTH; an AND of 1000 checks is that deep). A
// statement binds at most maxStmtArgs values, with a wide margin; one
// check expression tests at most checkChunk keys, so that a statement's
// AND of them is at most maxStmtArgs/checkChunk deep. (Tests make them
// smaller on one store, knobs.go, to reach every path with small commits.)
const (
	maxStmtArgs = 10000
	checkChunk  = 500
)

// commitLimits are the limits one store's commits stay under: maxStmtArgs
// and checkChunk unless a test changed them.
type commitLimits struct{ args, chunk int }

// checkPart is one boolean SQL expression over a chunk of a commit's
// checks, with its arguments.
type checkPart struct {
	sql  string
	args []any
}

// checksSQL renders the checks as boolean expressions whose AND is the
// verdict, each over at most chunk checks (checkChunk): the absent checks as
// NOT EXISTS (a live row among their keys), the stamp checks as a count of
// the live rows matching their (key, stamp) pairs. A check passes exactly
// as the reference's does: an absent check for a key that is absent or
// expired, a stamp check for a live row with that stamp. No checks: none.
func checksSQL(checks []Check, now int64, chunk int) ([]checkPart, error) {
	var absent [][]byte
	var stamped []stampedKey
	for i, c := range checks {
		enc, err := codec.Encode(c.Key)
		if err != nil {
			return nil, fmt.Errorf("check %d: %w", i, err)
		}
		if c.Versionstamp == "" {
			absent = append(absent, enc)
			continue
		}
		ver, err := codec.ParseStamp(c.Versionstamp)
		if err != nil {
			return nil, fmt.Errorf("%w: check %d (%s): %w", ErrInvalidArgument, i, c.Key, err)
		}
		stamped = append(stamped, stampedKey{string(enc), ver})
	}
	var parts []checkPart
	for len(absent) > 0 {
		part := absent[:min(chunk, len(absent))]
		absent = absent[len(part):]
		parts = append(parts, absentPart(part, now))
	}
	for len(stamped) > 0 {
		part := stamped[:min(chunk, len(stamped))]
		stamped = stamped[len(part):]
		parts = append(parts, stampedPart(part, now))
	}
	return parts, nil
}

// stampedKey is a check that an encoded key holds a stamp.
type stampedKey struct {
	k   string
	ver int64
}

// absentPart checks that no live row is at any of keys.
func absentPart(keys [][]byte, now int64) checkPart {
	args := make([]any, 0, len(keys)+1)
	for _, k := range keys {
		args = append(args, k)
	}
	match := "k = ?"
	if len(keys) > 1 {
		match = "k IN (?" + strings.Repeat(", ?", len(keys)-1) + ")"
	}
	return checkPart{"NOT EXISTS (SELECT 1 FROM kv WHERE " + match + " AND " + liveSQL + ")", append(args, now)}
}

// stampedPart checks that each key is live at its stamp.
func stampedPart(chunk []stampedKey, now int64) checkPart {
	if len(chunk) == 1 {
		return checkPart{"EXISTS (SELECT 1 FROM kv WHERE k = ? AND ver = ? AND " + liveSQL + ")",
			[]any{[]byte(chunk[0].k), chunk[0].ver, now}}
	}
	// The same check twice counts once: k is the primary key, so each
	// distinct pair matches at most one row, and two pairs of one key
	// with different stamps can never both match.
	seen := make(map[stampedKey]bool, len(chunk))
	args := make([]any, 0, 2*len(chunk)+1)
	for _, p := range chunk {
		if !seen[p] {
			seen[p] = true
			args = append(args, []byte(p.k), p.ver)
		}
	}
	n := len(seen)
	return checkPart{fmt.Sprintf("(SELECT count(*) FROM kv WHERE (k, ver) IN (VALUES (?, ?)%s) AND %s) = %d",
		strings.Repeat(", (?, ?)", n-1), liveSQL, n), append(args, now)}
}

// commitHead returns the statements that evaluate the verdict of parts
// into kv_meta.ok and bump seq when it holds and the commit sets
// something; the last one, marked result, returns (ok, seq). When the
// verdict fits in one statement (bound twice with a set) that is the
// reference's single UPDATE; otherwise statements of at most maxArgs
// (maxStmtArgs) values AND their parts into ok first, all before any mutation, in the
// same transaction.
func commitHead(parts []checkPart, hasSet bool, maxArgs int) []stmt {
	const returning = " WHERE id = 0 RETURNING ok, seq"
	n := 0
	for _, p := range parts {
		n += len(p.args)
	}
	if hasSet {
		n *= 2
	}
	if n <= maxArgs {
		verdict, vargs := andParts(parts)
		bump := "0"
		var args []any
		if hasSet {
			bump = "CASE WHEN " + verdict + " THEN 1 ELSE 0 END"
			args = append(args, vargs...)
		}
		args = append(args, vargs...)
		return []stmt{{sql: "UPDATE kv_meta SET seq = seq + " + bump + ", ok = " + verdict + returning, args: args, result: true}}
	}
	var out []stmt
	for len(parts) > 0 {
		k, n := 0, 0
		for k < len(parts) && (k == 0 || n+len(parts[k].args) <= maxArgs) {
			n += len(parts[k].args)
			k++
		}
		verdict, args := andParts(parts[:k])
		if len(out) > 0 {
			verdict = "(ok = 1 AND " + verdict + ")"
		}
		out = append(out, stmt{sql: "UPDATE kv_meta SET ok = " + verdict + " WHERE id = 0", args: args})
		parts = parts[k:]
	}
	bump := "0"
	if hasSet {
		bump = "CASE WHEN ok = 1 THEN 1 ELSE 0 END"
	}
	return append(out, stmt{sql: "UPDATE kv_meta SET seq = seq + " + bump + ", ok = ok" + returning, result: true})
}

// andParts renders parts as one AND ("1" for none).
func andParts(parts []checkPart) (string, []any) {
	if len(parts) == 0 {
		return "1", nil
	}
	sqls := make([]string, len(parts))
	var args []any
	for i, p := range parts {
		sqls[i] = p.sql
		args = append(args, p.args...)
	}
	return "(" + strings.Join(sqls, " AND ") + ")", args
}

// headIndex is the index of a commit's head (the statement marked result).
func headIndex(stmts []stmt) int {
	for i, st := range stmts {
		if st.result {
			return i
		}
	}
	return 0
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
