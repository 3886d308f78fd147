package activity

import (
	"fmt"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/changefeed"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestDeletionsOfEveryRowKept: rows the tab read long ago (600 in one
// commit, far outside the newest 256) are rechecked in turn, 16 a read on a
// file (256 over a server):
// every deletion among them shows, on a file and on sqld, without a
// commit after the deletions to prompt it. Failed before: only the newest
// 256 rows were rechecked, 10 of the 20 deletions
// were never shown.
func TestDeletionsOfEveryRowKept(t *testing.T) { deletionsOfEveryRow(t, 600) }

// TestDeletionsOfEveryRowShown: past 1,024 rows too (1,500 in one commit,
// all in the list of events), every row the list shows is rechecked and
// each of 20 deletions spread over them shows, the oldest included.
// Failed before: only the newest 1,024 rows were
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
		viewtest.Commit(t, w, func(a *store.Atomic) {
			for i := range rows {
				a.Set(viewtest.KeyOf("row", i), []byte(`1`))
			}
		})
		h.Refresh() // reads the commit: every row kept
		if got := h.M.f.c.Rows().Len(); got != rows {
			t.Errorf("%d rows kept, want %d", got, rows)
		}
		for i := 0; i < rows; i += rows / 20 { // 20 deletions, the oldest rows first
			if err := w.Delete(ctx, viewtest.KeyOf("row", i)); err != nil {
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

// TestExpiryBetweenClockReadings: a row kept that expires between the
// tab's clock reading and the store's (the recheck runs after it) shows
// as expired, not deleted, on a file and on sqld. The watch command saw
// "delete" once on a loaded machine, 4 ms before the expiry; the tab
// judged the same way.
func TestExpiryBetweenClockReadings(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		c := storetest.NewClock(storetest.T0)
		ttl := time.Second
		s, f := oneRowFeed(t, b.URL(t), c, &ttl)
		before := c.Now() + ttl.Milliseconds() - 4 // the tab's reading
		c.Add(ttl)                                 // the store's, at the recheck
		recheckRead(t, s, f, before)
		last := f.events[len(f.events)-1]
		if last.kind != evExpired || last.seenAt != c.Now() {
			t.Errorf("last event %v at %d, want expired at %d", last.kind, last.seenAt, c.Now())
		}
	})
}

// TestSetWithNoStampIsShown: another program rewrites a row the tab
// keeps with a ver that is no whole number (TEXT): no page of the feed
// carries it, the recheck finds it changed and the tab shows a set (the
// new value, the old one beside it, what its ver holds), once, on a file
// and on sqld. Before, nothing showed: the row was still there.
func TestSetWithNoStampIsShown(t *testing.T) {
	storetest.Each(t, storetest.FileAndSQLD(), func(t *testing.T, b storetest.Backend) {
		url := b.URL(t)
		c := storetest.NewClock(storetest.T0)
		s, f := oneRowFeed(t, url, c, nil)
		raw, err := codec.Encode(viewtest.KeyOf("row", 1))
		if err != nil {
			t.Fatal(err)
		}
		storetest.Exec(t, url, fmt.Sprintf(`UPDATE kv SET v = '2', ver = 'x' WHERE k = x'%x'`, raw))
		for round := range 2 {
			recheckRead(t, s, f, c.Now())
			if len(f.events) != 2 {
				t.Fatalf("round %d: %d events, want the first set and the set with no stamp", round, len(f.events))
			}
		}
		last := f.events[len(f.events)-1]
		if last.kind != evSet || string(last.value) != "2" || string(last.old) != "1" || last.odd != `ver is TEXT "x"` {
			t.Errorf("last event %v %s (was %s, odd %q), want a set to 2 (was 1) whose ver is TEXT", last.kind, last.value, last.old, last.odd)
		}
	})
}

// oneRowFeed writes ["row", 1] = 1 (expiring after ttl when not nil) in
// a store at url on clock c, and returns the store and a feed that read
// it.
func oneRowFeed(t *testing.T, url string, c *storetest.Clock, ttl *time.Duration) (*store.Store, *feed) {
	t.Helper()
	s := storetest.Open(t, url, store.Options{Clock: c.Now})
	if _, err := s.Set(storetest.Ctx(t), viewtest.KeyOf("row", 1), []byte(`1`), ttl); err != nil {
		t.Fatal(err)
	}
	f := newFeed()
	p, err := s.Changes(storetest.Ctx(t), store.ChangesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f.apply(p, changefeed.Request{}, c.Now())
	if f.c.Rows().Len() != 1 {
		t.Fatalf("%d rows kept, want 1", f.c.Rows().Len())
	}
	return s, &f
}

// recheckRead reads the feed after f's position, rechecking its rows, and
// applies the page at now.
func recheckRead(t *testing.T, s *store.Store, f *feed, now int64) {
	t.Helper()
	req := f.c.Next(16)
	p, err := s.Changes(storetest.Ctx(t), store.ChangesOptions{After: f.c.After(), Recheck: req.Recheck})
	if err != nil {
		t.Fatal(err)
	}
	f.apply(p, req, now)
}
