package store_test

import (
	"context"
	"testing"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// bigKey is key i of the big-commit tests.
func bigKey(prefix string, i int) codec.Key {
	return codec.Key{codec.String(prefix), codec.Number(float64(i))}
}

// absentCommit is n absent checks with a set each under prefix.
func absentCommit(prefix string, n int) ([]store.Check, []store.Mutation) {
	checks := make([]store.Check, n)
	muts := make([]store.Mutation, n)
	for i := range n {
		checks[i] = store.Check{Key: bigKey(prefix, i)}
		muts[i] = store.Mutation{Type: store.MutationSet, Key: bigKey(prefix, i), Value: []byte(`1`)}
	}
	return checks, muts
}

// smallLimits makes every commit statement of s bind at most 40 values, a
// check expression test at most 7 keys and an INSERT carry at most 9 rows:
// a commit of 60 checks then takes the paths of one of thousands (several
// chunks, the verdict over several statements, several INSERTs).
func smallLimits(t *testing.T, s *store.Store) {
	t.Helper()
	t.Cleanup(store.SetCommitLimits(s, 40, 7, 9))
}

// commitAbsentChecks writes ["a", 7] expired and ["live", 5], then
// commits n absent checks with their sets under "a" (one of them of the
// expired key), which must pass.
func commitAbsentChecks(t *testing.T, ctx context.Context, s *store.Store, c *storetest.Clock, n int) store.CommitResult {
	t.Helper()
	past := c.Now() - 1
	if _, err := s.Commit(ctx, nil, []store.Mutation{
		{Type: store.MutationSet, Key: bigKey("a", 7), Value: []byte(`"expired"`), ExpiresAt: &past},
		{Type: store.MutationSet, Key: bigKey("live", 5), Value: []byte(`"live"`)},
	}); err != nil {
		t.Fatal(err)
	}
	checks, muts := absentCommit("a", n)
	res, err := s.Commit(ctx, checks, muts)
	if err != nil || !res.OK {
		t.Fatalf("%d absent checks (one key expired): %+v %v", n, res, err)
	}
	return res
}

// commitStampChecks: stamp checks of the first n keys under prefix "a", at
// the stamp they have, and again the checks at the indexes repeat, commit
// a set; the check of key n-1 made stale, they fail at that index and
// write nothing; an absent and a stamp check of one key fail the set. It
// returns the set and key 0's entry.
func commitStampChecks(t *testing.T, ctx context.Context, s *store.Store, n int, repeat ...int) ([]store.Mutation, store.Entry) {
	t.Helper()
	first, _, err := s.Get(ctx, bigKey("a", 0))
	if err != nil {
		t.Fatal(err)
	}
	stamped := make([]store.Check, 0, n+len(repeat))
	for i := range n {
		stamped = append(stamped, store.Check{Key: bigKey("a", i), Versionstamp: first.Versionstamp()})
	}
	for _, i := range repeat {
		stamped = append(stamped, stamped[i])
	}
	set := []store.Mutation{{Type: store.MutationSet, Key: bigKey("c", 0), Value: []byte(`2`)}}
	res, err := s.Commit(ctx, stamped, set)
	if err != nil || !res.OK {
		t.Fatalf("%d stamp checks that hold: %+v %v", len(stamped), res, err)
	}
	stamped[n-1].Versionstamp = codec.FormatStamp(1)
	res, err = s.Commit(ctx, stamped, []store.Mutation{{Type: store.MutationSet, Key: bigKey("c", 1), Value: []byte(`3`)}})
	if err != nil || res.OK || len(res.Failed) != 1 || res.Failed[0].Index != n-1 {
		t.Fatalf("%d stamp checks, one stale: %+v %v", len(stamped), res, err)
	}
	if _, found, _ := s.Get(ctx, bigKey("c", 1)); found {
		t.Fatal("a commit with a stale stamp wrote its set")
	}
	// Absent and stamp checks of one key together never both hold.
	both := []store.Check{{Key: bigKey("a", 1)}, {Key: bigKey("a", 1), Versionstamp: first.Versionstamp()}}
	if res, err := s.Commit(ctx, both, set); err != nil || res.OK {
		t.Fatalf("absent and present at once: %+v %v", res, err)
	}
	return set, first
}

// TestCommitChecksInChunks: with small limits, 60 absent checks (one of an
// expired key) pass and write every row under one stamp; a live key among
// them, first or last (in the verdict's first or last statement), fails
// the commit whole; 60 stamp checks pass (a check repeated included) and
// one stale stamp fails them; absent and present at once never holds.
// bigcommit_large_test.go does the same at SQLite's real limits.
func TestCommitChecksInChunks(t *testing.T) {
	const n = 60
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		smallLimits(t, s)
		ctx := storetest.Ctx(t)
		res := commitAbsentChecks(t, ctx, s, c, n)
		seq, _ := s.Seq(ctx)
		if st, err := s.Stats(ctx, c.Now()); err != nil || st.Live != n+1 || res.Versionstamp != codec.FormatStamp(seq) {
			t.Fatalf("after the commit: %d live rows (%v), stamp %s at seq %d", st.Live, err, res.Versionstamp, seq)
		}
		for _, at := range []int{0, n - 1} {
			checks, muts := absentCommit("b", n)
			checks[at] = store.Check{Key: bigKey("live", 5)}
			res, err := s.Commit(ctx, checks, muts)
			if err != nil || res.OK || len(res.Failed) != 1 || res.Failed[0].Index != at {
				t.Fatalf("%d absent checks, check %d of a live key: %+v %v", n, at, res, err)
			}
		}
		if st, _ := s.Stats(ctx, c.Now()); st.Live != n+1 {
			t.Fatalf("a failed commit wrote rows: %d live", st.Live)
		}
		if seq2, _ := s.Seq(ctx); seq2 != seq {
			t.Fatalf("failed commits moved seq from %d to %d", seq, seq2)
		}

		// The same check twice, in two chunks and in one (checks 56 to 62).
		set, first := commitStampChecks(t, ctx, s, n, 3, 58)
		// One key checked at two stamps (the one it has and another) fails.
		two := []store.Check{{Key: bigKey("a", 1), Versionstamp: first.Versionstamp()}, {Key: bigKey("a", 1), Versionstamp: codec.FormatStamp(1)}}
		if res, err := s.Commit(ctx, two, set); err != nil || res.OK {
			t.Fatalf("one key at two stamps: %+v %v", res, err)
		}
	})
}

// TestSetManyInChunks: with small limits, SetMany and SetManyChecked of 60
// rows go into several INSERTs of one transaction: one stamp, a later set
// of a key winning across INSERTs, and nothing written when a check of the
// last chunk fails.
func TestSetManyInChunks(t *testing.T) {
	const n = 60
	storetest.EachStore(t, storetest.FileHTTPWS(), func(t *testing.T, s *store.Store, c *storetest.Clock) {
		smallLimits(t, s)
		ctx := storetest.Ctx(t)
		_, muts := absentCommit("m", n)
		muts[n-1] = store.Mutation{Type: store.MutationSet, Key: bigKey("m", 0), Value: []byte(`"last wins"`)}
		res, err := s.SetMany(ctx, muts)
		if err != nil || !res.OK {
			t.Fatalf("SetMany of %d rows: %+v %v", n, res, err)
		}
		e, found, err := s.Get(ctx, bigKey("m", 0))
		if err != nil || !found || string(e.Value) != `"last wins"` || e.Versionstamp() != res.Versionstamp {
			t.Fatalf("the key set twice: %+v %v %v", e, found, err)
		}
		if st, _ := s.Stats(ctx, c.Now()); st.Live != n-1 {
			t.Fatalf("%d live rows, want %d", st.Live, n-1)
		}
		checks, sets := absentCommit("n", n)
		res, err = s.SetManyChecked(ctx, checks, sets)
		if err != nil || !res.OK {
			t.Fatalf("SetManyChecked of %d absent rows: %+v %v", n, res, err)
		}
		checks, sets = absentCommit("o", n)
		checks[n-1] = store.Check{Key: bigKey("n", 3)}
		res, err = s.SetManyChecked(ctx, checks, sets)
		if err != nil || res.OK || len(res.Failed) != 1 || res.Failed[0].Index != n-1 {
			t.Fatalf("SetManyChecked, the last key live: %+v %v", res, err)
		}
		if st, _ := s.Stats(ctx, c.Now()); st.Live != 2*n-1 {
			t.Fatalf("a failed SetManyChecked wrote rows: %d live, want %d", st.Live, 2*n-1)
		}
	})
}
