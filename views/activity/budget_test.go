package activity

import (
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestActivityRequestBudget: behind the latency proxy (50 ms a request)
// in front of a real sqld, opening the tab costs a request to learn where
// seq stands, one to count the rows with a malformed stamp (never in the
// feed: the note says how many) and one per page of the backlog (here one
// commit of 300
// rows: two pages of 200), and a refresh after other writers' commits 1:
// the rows stamped since, the row count and the re-read of the rows
// already seen travel in one request.
func TestActivityRequestBudget(t *testing.T) {
	r := viewtest.BehindProxy(t, 50*time.Millisecond, func(a *store.Atomic) {
		for i := range 300 {
			a.Set(viewtest.KeyOf("seed", i), []byte(`1`))
		}
	})
	w, p, ctx := r.Direct, r.Proxy, storetest.Ctx(t)
	before := p.Requests()
	h := newActivityHarness(t, r.S, r.Clock, 120, 40)
	// The root's refresh is what is counted: the recheck of the rows kept
	// beyond one batch goes on a request a second after it (a tick).
	h.Parked = func(m Model) int {
		if !m.loading && m.f.c.Due() > 0 {
			return 1
		}
		return 0
	}
	if n := p.Requests() - before; n != 4 {
		t.Errorf("opening the tab took %d requests, want 4", n)
	}
	for round := range 3 {
		for i := range 5 {
			if _, err := w.Set(ctx, viewtest.KeyOf("live", round, i), []byte(`2`), nil); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Commit(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
		before = p.Requests()
		h.Refresh()
		if n := p.Requests() - before; n != 1 {
			t.Errorf("round %d: a refresh took %d requests, want 1", round, n)
		}
	}
	if got := len(h.M.f.events); got != 300+15 { // the seed commit (backlog) and 15 sets
		t.Errorf("%d events, want 315", got)
	}
}
