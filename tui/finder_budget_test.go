package tui

import (
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestFinderBudget: over HTTP behind the latency proxy, a find over 3000
// keys from the finder is one request (one page sized in bytes).
func TestFinderBudget(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	p := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, p.URL, clock, false)
	a := s.Atomic()
	for i := 0; i < 3000; i++ {
		a.Set(codec.Key{codec.String("accounts"), codec.String("bench"), codec.Number(float64(i))}, []byte(`1`))
	}
	if _, err := a.Commit(storetest.Ctx(t)); err != nil {
		t.Fatal(err)
	}
	app := start(t, s, clock, 120, 40, time.Hour)
	quiet(p)
	before := p.Requests()
	app.command("find billing")
	app.waitFor("1 found in 3060 key(s)")
	n := quiet(p) - before
	t.Logf("find over 3060 keys: %d request(s)", n)
	if n > 1 {
		t.Errorf("the find took %d requests, want 1", n)
	}
	app.final()
}
