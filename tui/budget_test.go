package tui

import (
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/latency"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// quiet waits until the proxy has seen no request for a while (the
// answers of what the program asked have all arrived) and returns the
// count. It only waits: a slow machine makes it wait longer, never count
// less.
func quiet(p *latency.Proxy) int64 {
	n := p.Requests()
	for still := 0; still < 5; {
		time.Sleep(100 * time.Millisecond)
		if m := p.Requests(); m != n {
			n, still = m, 0
			continue
		}
		still++
	}
	return n
}

// requestsFor waits until the proxy is quiet, runs act (a key press and
// the wait for its answer) and returns how many requests the proxy
// counted from then until it is quiet again: unlike latency's Count, it
// also counts what the TUI's commands send after act returns.
func requestsFor(p *latency.Proxy, act func()) int64 {
	before := quiet(p)
	act()
	return quiet(p) - before
}

// remoteReference opens the reference rows in a fresh sqld reached
// through the latency proxy (each request waits delay), on a fixed clock.
func remoteReference(t *testing.T, delay time.Duration) (*store.Store, *latency.Proxy, *store.VirtualClock) {
	t.Helper()
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	p := sqldtest.StartProxy(t, srv.URL, delay)
	clock := viewtest.FixedClock()
	return viewtest.Open(t, p.URL, clock, false), p, clock
}

// seedBench writes ["accounts", "bench", 0..2999], in six commits of
// 500: one of 3000 outlived the 20 s request timeout once on a CI
// machine under load.
func seedBench(t *testing.T, s *store.Store) {
	t.Helper()
	for c := 0; c < 6; c++ {
		viewtest.Commit(t, s, func(a *store.Atomic) {
			for i := c * 500; i < (c+1)*500; i++ {
				a.Set(codec.Key{codec.String("accounts"), codec.String("bench"), codec.Number(float64(i))}, []byte(`1`))
			}
		})
	}
}

// TestRemoteScreenBudgets: over HTTP behind the latency proxy, the first
// frame costs at most 3 requests after open (the visible tab only: the
// other tabs load when first shown), expanding a prefix of thousands of
// children 1, a tab switch at most 3, and an idle refresh tick 1.
func TestRemoteScreenBudgets(t *testing.T) {
	s, p, clock := remoteReference(t, 2*time.Millisecond)
	seedBench(t, s)
	opened := quiet(p)

	app := start(t, s, clock, 120, 40, time.Hour)
	first := quiet(p) - opened
	t.Logf("first frame: %d requests", first)
	if first > 3 {
		t.Errorf("the first frame took %d requests after open, want at most 3 (tabs not shown must not load)", first)
	}

	if n := requestsFor(p, func() { app.keys("2"); app.waitFor("LEASES", "0e580e53fa97954") }); n > 3 {
		t.Errorf("switching to Leases took %d requests, want at most 3", n)
	} else {
		t.Logf("tab switch to Leases: %d requests", n)
	}
	if n := requestsFor(p, func() { app.keys("1"); app.waitFor(`"accounts"`) }); n > 3 {
		t.Errorf("switching back to Browse took %d requests, want at most 3", n)
	}
	app.final()

	// The idle tick: every interval one request (a version read; nothing
	// changed, so no view reloads), so a window of w holds at most
	// w/interval of them, plus one in flight at each end.
	const interval = 150 * time.Millisecond
	app = start(t, s, clock, 120, 40, interval)
	c0, t0 := p.Requests(), time.Now()
	time.Sleep(10 * interval)
	idle, window := p.Requests()-c0, time.Since(t0)
	t.Logf("idle: %d requests in %v (refresh every %v)", idle, window.Round(time.Millisecond), interval)
	if max := int64(window/interval) + 2; idle > max {
		t.Errorf("idle for %v with a %v refresh: %d requests, want at most %d (one a tick)", window, interval, idle, max)
	}
	app.final()
}
