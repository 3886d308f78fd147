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
func TestDeletionsOfEveryRowKept(t *testing.T) { deletionsOfEveryRow(t, 600) }

// TestDeletionsOfEveryRowShown: past 1,024 rows too (1,500 in one commit,
// all in the list of events), every row the list shows is rechecked and
// each of 20 deletions spread over them shows, the oldest included.
// Failed before (issue 25 point 12): only the newest 1,024 rows were
// kept, the deletions of older ones were never shown and nothing said so.
func TestDeletionsOfEveryRowShown(t *testing.T) { deletionsOfEveryRow(t, 1500) }

func deletionsOfEveryRow(t *testing.T, rows int) {
	t.Helper()
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		clock := viewtest.FixedClock()
		s := storetest.Open(t, url, store.Options{Clock: clock.Now, Create: true})
		w := storetest.Open(t, url, store.Options{Clock: clock.Now})
		ctx := storetest.Ctx(t)
		h := newActivityHarness(t, s, clock, 120, 40)
		a := w.Atomic()
		for i := range rows {
			a.Set(mkKey("row", i), []byte(`1`))
		}
		if _, err := a.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		h.Refresh() // reads the commit: every row kept
		if got := len(h.M.f.seen); got != rows {
			t.Errorf("%d rows kept, want %d", got, rows)
		}
		for i := 0; i < rows; i += rows / 20 { // 20 deletions, the oldest rows first
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
