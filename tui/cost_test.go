package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestStatusBarCostMatchesProxy: over a real sqld behind the latency
// proxy, the status bar's cost segment shows the session's requests and,
// for a tab switch, "last N req" where N is what the proxy counted for it
// (issue 20 point 5). 160 columns: the fixed clock takes the room the
// segment has at 120.
func TestStatusBarCostMatchesProxy(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	p := sqldtest.StartProxy(t, srv.URL, 2*time.Millisecond)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, p.URL, clock, false)
	app := start(t, s, clock, 160, 40, time.Hour, "⇅ ")
	quiet(p)

	before := p.Requests()
	app.keys("2")
	app.waitFor("LEASES", "0e580e53fa97954", "· last ")
	n := quiet(p) - before
	m := app.final()
	if got := m.cost.to.Requests - m.cost.from.Requests; got != n || n == 0 {
		t.Errorf("the tab switch's last action counts %d requests, the proxy %d", got, n)
	}
	bar := m.statusBar()
	if want := fmt.Sprintf("· last %d req", n); !strings.Contains(bar, want) {
		t.Errorf("status bar %q lacks %q", bar, want)
	}
	if want := fmt.Sprintf("⇅ %d req · ", s.Cost().Requests); !strings.Contains(bar, want) {
		t.Errorf("status bar %q lacks the session's %q", bar, want)
	}
	t.Logf("status bar: %s", bar)
}
