//go:build largedata

package store_test

import (
	"context"
	"math"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// BenchmarkMeasureLocksLarge measures, per kind of read, how many commits of a
// reference-shaped writer (no busy timeout, rollback journal) committing
// every 25 ms are lost while the read runs every 10 ms for 5 s beside it
// on 100k rows, and how long the read takes. It
// asserts nothing and measures once whatever b.N is:
//
//	go test -tags largedata -run '^$' -bench MeasureLocksLarge -benchtime 1x ./store/
//
// Figures on 2 shared cores (lost of 170-200 commits, runs of 2026-12-01
// and 02): a count of the rows (what Version read after every commit
// before it stopped counting on such a file) 10-50; with locked reads,
// Version 0-2, the feed's head 0-2, a recheck of 16 rows 1-7, a paced
// window of 2000 rows 11-25. Read without locks (lockfree.go) Version,
// head and recheck16 lose none, nor does "paced", which is then a whole
// read of the unindexed table in windows (~160 ms on 100k rows); seq
// and a List page of 200 rows, still read with locks, 0-4 and 3-16.
// Any locked read may meet a commit: the loss follows the time the reads
// hold the lock.
func BenchmarkMeasureLocksLarge(b *testing.B) {
	t := b
	const rows = 100_000
	path, s := storetest.RollbackJournalStore(t, rows, store.Options{})
	ctx := context.Background()
	db := storetest.RawDB(t, path)
	var recheck [][]byte
	for i := 1; i <= 16; i++ {
		recheck = append(recheck, storetest.BulkRaw(i*997))
	}
	var walk *store.ChangesWalk
	kinds := []struct {
		name string
		fn   func() error
	}{
		{"none", func() error { return nil }},
		{"count", func() error {
			var n int64
			return db.QueryRowContext(ctx, "SELECT seq, (SELECT count(*) FROM kv) FROM kv_meta WHERE id = 0").Scan(new(int64), &n)
		}},
		{"version", func() error { _, err := s.Version(ctx); return err }},
		{"seq", func() error { _, err := s.Seq(ctx); return err }},
		{"head", func() error { _, err := s.Changes(ctx, store.ChangesOptions{After: math.MaxInt64}); return err }},
		{"recheck16", func() error { _, err := s.GetRawMany(ctx, recheck); return err }},
		{"paced", func() error {
			p, err := s.Changes(ctx, store.ChangesOptions{After: rows, Walk: walk})
			walk = p.Walk
			return err
		}},
		{"list200", func() error {
			_, err := s.List(ctx, store.ListOptions{Prefix: codec.Key{codec.String("bulk")}, Limit: 200})
			return err
		}},
	}
	for _, k := range kinds {
		w := storetest.StartRefWriter(t, path, 25*time.Millisecond, storetest.RefMix(rows))
		var spent, longest time.Duration
		n := 0
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
			t0 := time.Now()
			if err := k.fn(); err != nil {
				t.Fatal(err)
			}
			d := time.Since(t0)
			spent, longest, n = spent+d, max(longest, d), n+1
		}
		commits, lost := w.Stop()
		if len(lost) > 0 {
			t.Log(lost[0])
		}
		t.Logf("%-10s writer %4d commits %3d lost; %d reads, mean %s, longest %s", k.name, commits, len(lost), n, (spent / time.Duration(n)).Round(time.Microsecond), longest.Round(time.Microsecond))
	}
}
