//go:build largedata

package cli

import (
	"context"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/storetest"
	"kvdeck/store"
)

// TestWatchBesideReferenceWriterLarge: a watch of a prefix of 100k rows
// on a rollback-journal file, polling every second (the default), beside
// a reference-shaped writer (no busy timeout) that commits every 50 ms:
// no commit may fail, and the watch reports every set under the prefix.
// With the index on ver a poll is a head, one indexed read and a bounded
// recheck; without it a walk of the table in windows. Every read goes
// without SQLite's locks (store/lockfree.go). Before: 13-82% lost (a walk
// of the table and a re-read of every row seen after each commit), then
// 0-2% (reads held SHARED for a moment each).
func TestWatchBesideReferenceWriterLarge(t *testing.T) {
	const rows = 100_000
	storetest.EachVerIndex(t, rows, store.Options{}, func(t *testing.T, path string, s *store.Store) {
		ctx := context.Background()
		w := startTestWatcher(ctx, t, s, []codec.Key{{codec.String("bulk")}})
		sets, deletes := 0, 0
		var spent time.Duration
		poll := func() {
			t0 := time.Now()
			events, err := w.poll(ctx, time.Now().UnixMilli())
			spent += time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range events {
				switch ev.Change {
				case "set":
					sets++
				case "delete":
					deletes++
				}
			}
		}
		commits, lost := storetest.BesideRefWriter(t, path, rows, "the watch", poll)
		t.Logf("watch: %d sets, %d deletes, %s in polls", sets, deletes, spent.Round(time.Millisecond))
		// The rewrites under ["bulk"] (a third of the commits) all
		// reach the watch once the walk is through.
		final, err := s.Seq(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; w.feed.Walk() != nil || w.feed.After() < final; i++ {
			if i > 200 {
				t.Fatalf("the watch did not reach seq %d (at %d)", final, w.feed.After())
			}
			poll()
		}
		// A lost commit may have been one of them (a run lost 2 of
		// 142 and saw 46 of 48).
		if want := (commits + 2) / 3; sets < want-1-lost {
			t.Errorf("%d sets under the prefix, want about %d (%d commits lost)", sets, want, lost)
		}
	})
}
