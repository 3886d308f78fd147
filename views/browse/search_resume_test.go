package browse

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// TestSearchResumesAfterAnError: Over a slow link the
// value search timed out mid-way (one deadline over a whole call of up to
// 20000 rows, 40 page requests) and n could not resume it. Behind the
// latency proxy in front of a real sqld, each call is one streamed
// request under its own deadline; the link turns slow
// at the search's second call, which fails; the matches of the first
// call stay, n resumes from the row it stopped at, and the search ends
// with every match once, in order, each row examined once.
func TestSearchResumesAfterAnError(t *testing.T) {
	const rows = 2000
	var want []string
	r := viewtest.BehindProxy(t, 10*time.Millisecond, func(a *store.Atomic) {
		for i := range rows {
			k := codec.Key{codec.String("users"), codec.Number(float64(i))}
			a.Set(k, []byte(fmt.Sprintf(`{"n":%d}`, i)))
			if i%7 == 0 {
				want = append(want, codec.Format(k))
			}
		}
	})
	h, p := viewtest.Start[Model, *Model](t, r.S, r.Clock, 120, 30, New), r.Proxy
	h.M.search.Wait = 3 * time.Second // each call's deadline: far above a call's time on a busy machine
	h.M.search.Scan = 400             // calls of 400 rows: 5 for the search
	h.RequireView(`"users"`)
	h.Keys("s")
	h.TypeText(`.n % 7 == 0`)
	n := p.Count(func() { h.Keys("enter") })
	sr := &h.M.search
	if sr.Err() != nil || sr.Scanned() != 400 || !sr.More() || n != 1 {
		t.Fatalf("the first call: %d rows in %d requests, %v; want 400 in 1, a cursor", sr.Scanned(), n, sr.Err())
	}
	p.SlowFrom(1, time.Minute) // the second call outlives its deadline
	began := time.Now()
	h.Keys("n")
	t.Logf("n: %v", time.Since(began))
	p.SlowFrom(0, 0)
	if sr.Err() == nil {
		t.Fatalf("the slow call did not fail the search (%d matches, %d rows)", len(sr.Results()), sr.Scanned())
	}
	if len(sr.Results()) == 0 || sr.Scanned() != 400 {
		t.Fatalf("the error came at %d rows (%d matches): want after the first call's 400", sr.Scanned(), len(sr.Results()))
	}
	h.RequireView("n resumes after ✗")
	t.Logf("stopped at row %d by %v", sr.Scanned(), sr.Err())
	stopped := sr.Scanned()
	for range 10 {
		if !h.M.search.More() && h.M.search.Err() == nil {
			break
		}
		began := time.Now()
		h.Keys("n")
		t.Logf("n: %v, %d rows", time.Since(began), h.M.search.Scanned())
	}
	h.RequireView("done")
	var got []string
	for _, e := range h.M.search.Results() {
		got = append(got, codec.Format(e.Key))
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("after resuming at row %d: %d matches, want %d (none skipped or repeated)\n got %v", stopped, len(got), len(want), got)
	}
	if h.M.search.Scanned() != rows {
		t.Errorf("%d rows examined in all, want %d: each once", h.M.search.Scanned(), rows)
	}
}
