//go:build largedata

package store_test

import (
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// The commits at SQLite's real limits (an expression
// depth of 1000, 32766 bound values), at sizes that take minutes under
// -race on a file: they run in scripts/test's largedata step, without
// -race. bigcommit_test.go takes the same paths with small limits.
//
//	go test -tags largedata -run 'Large' ./store

// TestCommitManyChecksLarge: a commit of 3000 absent checks (more than SQLite's
// expression depth of 1000) passes when every key is absent or expired
// and writes every row under one stamp; one live key among them fails it
// and nothing is written; 3000 stamp checks pass when every stamp holds
// (a check repeated included) and fail on one stale stamp.
func TestCommitManyChecksLarge(t *testing.T) {
	const n = 3000
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.CtxTimeout(t, 5*time.Minute)
		res := commitAbsentChecks(t, ctx, s, c, n)
		st, err := s.Stats(ctx, c.Now())
		if err != nil || st.Live != n+1 {
			t.Fatalf("after the commit: %d live rows (%v), want %d", st.Live, err, n+1)
		}

		checks, muts := absentCommit("b", n)
		checks[n/2] = store.Check{Key: bigKey("live", 5)}
		res, err = s.Commit(ctx, checks, muts)
		if err != nil || res.OK || len(res.Failed) != 1 || res.Failed[0].Index != n/2 {
			t.Fatalf("%d absent checks, one of a live key: %+v %v", n, res, err)
		}
		if st, _ := s.Stats(ctx, c.Now()); st.Live != n+1 {
			t.Fatalf("a failed commit wrote rows: %d live", st.Live)
		}

		commitStampChecks(t, ctx, s, n, 0) // the same check twice
	})
}

// TestSetManyCheckedPastTheVariableLimitLarge: 20,000 absent checks with their
// sets (load --if-absent's default batch over a server: more bound values
// than SQLite allows in one statement, so the verdict is evaluated over
// several statements) commit as one transaction with one stamp on every
// transport; 11,000 absent checks whose last key is live (its chunk in
// the verdict's last statement) fail whole.
func TestSetManyCheckedPastTheVariableLimitLarge(t *testing.T) {
	const n = 20000
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.CtxTimeout(t, 5*time.Minute)
		checks, muts := absentCommit("a", n)
		res, err := s.SetManyChecked(ctx, checks, muts)
		if err != nil || !res.OK {
			t.Fatalf("%d absent checks: %+v %v", n, res, err)
		}
		st, err := s.Stats(ctx, c.Now())
		if err != nil || st.Live != n {
			t.Fatalf("%d live rows (%v), want %d", st.Live, err, n)
		}
		seq, _ := s.Seq(ctx)
		if res.Versionstamp != codec.FormatStamp(seq) {
			t.Fatalf("stamp %s, seq %d", res.Versionstamp, seq)
		}
		const m = 11000
		checks, muts = absentCommit("b", m)
		checks[m-1] = store.Check{Key: bigKey("a", 0)}
		res, err = s.SetManyChecked(ctx, checks, muts)
		if err != nil || res.OK || len(res.Failed) != 1 || res.Failed[0].Index != m-1 {
			t.Fatalf("%d checks, the last of a live key: ok %v, failed %+v, %v", m, res.OK, res.Failed, err)
		}
		if seq2, _ := s.Seq(ctx); seq2 != seq {
			t.Fatalf("a failed commit moved seq from %d to %d", seq, seq2)
		}
		if st, _ := s.Stats(ctx, c.Now()); st.Rows != n {
			t.Fatalf("a failed commit wrote rows: %d, want %d", st.Rows, n)
		}
	})
}

// TestSetManyPastTheVariableLimitLarge: SetMany of 20,000 rows (60,000 values
// to bind) is one commit with one stamp on every transport.
func TestSetManyPastTheVariableLimitLarge(t *testing.T) {
	const n = 20000
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		ctx := storetest.CtxTimeout(t, 5*time.Minute)
		_, muts := absentCommit("m", n)
		res, err := s.SetMany(ctx, muts)
		if err != nil || !res.OK {
			t.Fatalf("SetMany of %d rows: %+v %v", n, res, err)
		}
		st, err := s.Stats(ctx, c.Now())
		if err != nil || st.Live != n {
			t.Fatalf("%d live rows (%v), want %d", st.Live, err, n)
		}
		last, found, err := s.Get(ctx, bigKey("m", n-1))
		if err != nil || !found || last.Versionstamp() != res.Versionstamp {
			t.Fatalf("the last row: %+v %v %v, want stamp %s", last, found, err, res.Versionstamp)
		}
	})
}
