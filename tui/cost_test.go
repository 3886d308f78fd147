package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestStatusBarCostMatchesProxy: over a real sqld behind the latency
// proxy, the status bar's cost segment shows the session's requests and,
// for a tab switch, "last N req" where N is what the proxy counted for it,
// with the time the action took. 180 columns: the
// long form shows only while the database URL shows whole, and the fixed
// clock takes room; at 160 it shows without the time, at 120 and 100 the
// short form shows instead of none.
func TestStatusBarCostMatchesProxy(t *testing.T) {
	s, p, clock := remoteReference(t, 2*time.Millisecond)
	app := start(t, s, clock, 180, 40, time.Hour, "⇅ ")
	n := requestsFor(p, func() { app.keys("2"); app.waitFor("LEASES", "0e580e53fa97954", "· last ") })
	m := app.final()
	if got := m.cost.to.Requests - m.cost.from.Requests; got != n || n == 0 {
		t.Errorf("the tab switch's last action counts %d requests, the proxy %d", got, n)
	}
	bar := m.statusBar()
	if want := regexp.MustCompile(fmt.Sprintf(`· last %d req · \d+(ms|s) │`, n)); !want.MatchString(bar) {
		t.Errorf("status bar %q lacks %q", bar, want)
	}
	if want := fmt.Sprintf("⇅ %d req · ", s.Cost().Requests); !strings.Contains(bar, want) {
		t.Errorf("status bar %q lacks the session's %q", bar, want)
	}
	if !strings.Contains(bar, " "+p.URL+" │") {
		t.Errorf("status bar %q cuts the database URL %s", bar, p.URL)
	}
	t.Logf("status bar: %s", bar)
	m.width = 160 // the long form needs 162 to 165 here, without the time 157
	if bar, want := m.statusBar(), fmt.Sprintf("· last %d req │", n); !strings.Contains(bar, want) {
		t.Errorf("status bar at 160 columns %q lacks %q", bar, want)
	}
	for _, w := range []int{120, 100} {
		m.width = w
		bar := m.statusBar()
		if want := fmt.Sprintf("⇅ %d req (last %d) │", s.Cost().Requests, n); !strings.Contains(bar, want) {
			t.Errorf("status bar at %d columns %q lacks %q", w, bar, want)
		}
	}
}

// TestStatusBarCostNoneOnFile: a file store costs no requests, so the
// status bar has no cost segment at any width and the meter follows no
// key (no Cost read and no wrapped command per key press).
func TestStatusBarCostNoneOnFile(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	app := start(t, s, clock, 180, 40, time.Hour)
	app.keys("2")
	app.waitFor("LEASES", "0e580e53fa97954")
	m := app.final()
	if m.cost.gen != 0 {
		t.Errorf("the meter followed %d keys on a file store", m.cost.gen)
	}
	for _, w := range []int{180, 120, 80} {
		m.width = w
		if bar := m.statusBar(); strings.Contains(bar, "⇅") || strings.Contains(bar, "req") {
			t.Errorf("status bar at %d columns %q shows a cost", w, bar)
		}
	}
}
