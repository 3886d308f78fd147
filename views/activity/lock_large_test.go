//go:build largedata

package activity

import (
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestActivityBesideReferenceWriterLarge: the Activity tab open on a
// rollback-journal store of 100k rows, refreshed every second as the root
// does when the store moved, beside a reference-shaped writer (no busy
// timeout) committing every 50 ms: no commit may fail, and the feed holds
// every commit. With the index on ver a refresh is a head, one indexed
// read and a recheck of 16 rows; without it a walk of the table in
// windows. Every read goes without SQLite's locks (store/lockfree.go).
// Before: 15% lost (a walk of the table after every commit, a recheck of
// 256 rows, a row count), then 0-2% (reads held SHARED a moment each).
func TestActivityBesideReferenceWriterLarge(t *testing.T) {
	const rows = 100_000
	clock := viewtest.FixedClock()
	storetest.EachVerIndex(t, rows, store.Options{Clock: clock.Now}, func(t *testing.T, path string, s *store.Store) {
		h := newActivityHarness(t, s, clock, 120, 40, realPace)
		// A paced walk's next step, or the next batch of rechecks,
		// waits on a tick: it does not keep the harness busy.
		h.Parked = func(m Model) int {
			if !m.loading && (m.f.c.Pending()) {
				return 1
			}
			return 0
		}
		var spent time.Duration
		refresh := func() {
			t0 := time.Now()
			h.Refresh()
			spent += time.Since(t0)
			if h.M.err != nil {
				t.Fatal(h.M.err)
			}
		}
		commits, _ := storetest.BesideRefWriter(t, path, rows, "the Activity tab", refresh)
		t.Logf("activity: %d events, %s in refreshes", len(h.M.f.events), spent.Round(time.Millisecond))
		h.M.tune.walkPace = 10 * time.Millisecond // the writer is done: catch up
		final, err := s.Seq(storetest.Ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; h.M.f.c.Walk() != nil || h.M.f.c.After() < final; i++ {
			if i > 200 {
				t.Fatalf("the feed did not reach seq %d (at %d; loading %v, due %d, walk %v, err %v)", final, h.M.f.c.After(), h.M.loading, h.M.f.c.Due(), h.M.f.c.Walk() != nil, h.M.err)
			}
			refresh()
		}
		// Every commit set one row: each stamp since the backlog is
		// in the feed once (a row rewritten since shows at its last).
		stamps := map[int64]bool{}
		for _, ev := range h.M.f.events {
			if ev.kind == evSet && !ev.before {
				if stamps[ev.ver] {
					t.Fatalf("stamp %d twice", ev.ver)
				}
				stamps[ev.ver] = true
			}
		}
		if len(stamps) < commits*9/10 {
			t.Errorf("%d stamps in the feed for %d commits", len(stamps), commits)
		}
	})
}

// realPace gives the tab the pace it runs with: a read a second at most.
func realPace(tn *tuning) { tn.walkPace = defaultTuning().walkPace }
