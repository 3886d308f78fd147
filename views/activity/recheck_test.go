package activity

import (
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestDeletionsOfEveryRowKept: rows the tab read long ago (600 in one
// commit, far outside the newest 256) are rechecked in turn, 16 a read on a file (256 over a server):
// every deletion among them shows, on a file and on sqld, without a
// commit after the deletions to prompt it. Failed before (issue 25 point
// 12): only the newest 256 rows were rechecked, 10 of the 20 deletions
// were never shown.
func TestDeletionsOfEveryRowKept(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := viewtest.FixedClock()
		s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
		w := storetest.Open(t, url, store.Options{Clock: clock.Now})
		ctx := storetest.Ctx(t)
		h := newActivityHarness(t, s, clock, 120, 40)
		a := w.Atomic()
		for i := range 600 {
			a.Set(mkKey("row", i), []byte(`1`))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		h.Refresh() // reads the commit: 600 rows kept
		if got := len(h.M.f.seen); got != 600 {
			t.Fatalf("%d rows kept, want 600", got)
		}
		for i := 0; i < 600; i += 30 { // 20 deletions, the oldest rows first
			if err := w.Delete(ctx, mkKey("row", i)); err != nil {
				t.Fatal(err)
			}
		}
		h.Refresh() // the root's refresh after the deletions; the rest follows at a pace
		deleted := 0
		for _, ev := range h.M.f.events {
			if ev.kind == evDeleted {
				deleted++
			}
		}
		if deleted != 20 {
			t.Errorf("%d deletions shown of 20", deleted)
		}
	})
}
