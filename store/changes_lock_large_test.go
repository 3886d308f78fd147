//go:build largedata

package store_test

import (
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestChangesBesideReferenceWriterLarge: on a rollback-journal store of
// 100k rows, a reference-shaped writer (no busy timeout) commits every
// 50 ms (rewrites of rows in place, new rows, deletions) while the change
// feed is read once a second the way a refresh reads it (the rows stamped
// since, a recheck of the rows seen last): no commit of the writer may
// fail, and the feed must hold every row stamped meanwhile once, with or
// without the index on ver. The feed reads without locks (lockfree.go).
// Before the feed was reworked it walked the table after every commit
// and counted its rows: 7 of 169 commits lost; before it read without
// locks, 0-2% (its reads held SHARED for a moment each).
func TestChangesBesideReferenceWriterLarge(t *testing.T) {
	const rows = 100_000
	storetest.EachVerIndex(t, rows, store.Options{}, func(t *testing.T, path string, s *store.Store) {
		ctx := storetest.Ctx(t)
		opts := store.ChangesOptions{After: rows, Limit: 200}
		seen := map[string]int64{}
		var order []string
		var spent, longest time.Duration
		var stmts, calls int
		next := 0 // the recheck turns over the rows seen, 16 a tick
		tick := func() {
			for range 5 {
				var recheck [][]byte
				for range min(16, len(order)) {
					next %= len(order)
					recheck = append(recheck, []byte(order[next]))
					next++
				}
				opts.Recheck = recheck
				t0 := time.Now()
				p, err := s.Changes(ctx, opts)
				d := time.Since(t0)
				spent, longest, calls = spent+d, max(longest, d), calls+1
				if err != nil {
					t.Fatal(err)
				}
				stmts += p.Statements
				for _, e := range p.Entries {
					if e.Ver <= seen[string(e.Raw)] {
						t.Fatalf("stamp %d of %x after %d", e.Ver, e.Raw, seen[string(e.Raw)])
					}
					seen[string(e.Raw)] = e.Ver
					order = append(order, string(e.Raw))
				}
				opts.Mark, opts.Walk = p.Mark, p.Walk
				if p.Walk != nil {
					return // the rest at the next tick
				}
				opts.After, opts.AfterKey = p.Next, p.NextKey
				if !p.More {
					return
				}
			}
		}
		commits, _ := storetest.BesideRefWriter(t, path, rows, "the feed", tick)
		t.Logf("feed: %d calls, %d statements, %s in Changes (longest call %s)", calls, stmts, spent.Round(time.Millisecond), longest.Round(time.Microsecond))
		final, err := s.Seq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; opts.Walk != nil || opts.After < final; i++ {
			if i > 200 {
				t.Fatalf("the feed did not reach seq %d (at %d)", final, opts.After)
			}
			tick()
		}
		// Every row stamped since the start is in the feed at its stamp.
		db := storetest.RawDB(t, path)
		rs, err := db.QueryContext(ctx, "SELECT k, ver FROM kv WHERE ver > ?", rows)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		n := 0
		for rs.Next() {
			var k []byte
			var ver int64
			if err := rs.Scan(&k, &ver); err != nil {
				t.Fatal(err)
			}
			n++
			if seen[string(k)] != ver {
				t.Errorf("row %x at %d: the feed saw %d", k, ver, seen[string(k)])
			}
		}
		if n < commits/2 {
			t.Errorf("%d rows stamped by %d commits", n, commits)
		}
	})
}
