package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kvdeck/codec"
)

// TestSweepSparesARowReSetMeanwhile: between a sweep step's read and its
// delete a service re-sets an expired key (to a later expiry, or again
// already expired); the delete must spare it, by seeks or by a walk.
func TestSweepSparesARowReSetMeanwhile(t *testing.T) {
	for _, walk := range []bool{false, true} {
		for _, again := range []time.Duration{time.Minute, 0} {
			sweepSparesReSet(t, walk, again)
		}
	}
}

func sweepSparesReSet(t *testing.T, walk bool, ttl time.Duration) {
	t.Helper()
	ctx := context.Background()
	now := int64(1767312000000)
	s := openFileAt(t, now)
	k := codec.Key{codec.String("lease")}
	zero := time.Duration(0)
	if _, err := s.Set(ctx, k, []byte(`1`), &zero); err != nil {
		t.Fatal(err)
	}
	w, err := s.newExpiredScan([]byte{}, nil, sweepClock{now: now, cut: now, real: now}, expiredKeys).next(ctx)
	if err != nil || len(w.keys) != 1 {
		t.Fatalf("window %+v %v", w, err)
	}
	if _, err := s.Set(ctx, k, []byte(`2`), &ttl); err != nil {
		t.Fatal(err)
	}
	n, _, err := s.deleteExpired(ctx, w.keys, now, w.seq, walk, w.odd > 0, false)
	if err != nil || n != 0 {
		t.Fatalf("deleted %d rows (%v): the re-set row must survive", n, err)
	}
	if _, found, _ := s.Get(ctx, k); !found && ttl > 0 {
		t.Fatal("the re-set row is gone")
	}
}

// openFileAt opens a new file store whose clock stands at now, closed
// when the test ends.
func openFileAt(t *testing.T, now int64) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "kv.db"), Options{Clock: func() int64 { return now }, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
