package tui

import (
	"bytes"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestKeyDuringJumpToBrowseActsOnTarget: o on a lease shows Browse at
// once, but Browse's cursor reaches the lease only when the levels on the
// way have loaded; over a slow link that takes a while. o pressed as soon
// as Browse shows must act on the lease (back to Leases with it
// selected), not on the row the cursor had before (the first prefix:
// "o opens the tab of a coordination row").
func TestKeyDuringJumpToBrowseActsOnTarget(t *testing.T) {
	srv := sqldtest.Start(t)
	storetest.CopyReferenceRows(t, srv.URL)
	p := sqldtest.StartProxy(t, srv.URL, 0)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, p.URL, clock, false)
	a := start(t, s, clock, 120, 40, time.Hour)
	a.keys("2")
	a.waitFor("LEASES", "Ticker")
	a.keys("j") // the Ticker lease

	// Each level on the way (dwk_lease, then Ticker) now takes 400 ms.
	p.SetDelay(400 * time.Millisecond)
	a.keys("o")
	a.waitFor("[1 Browse]")
	a.keys("o")
	teatest.WaitFor(t, a.tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("[2 Leases]")) || bytes.Contains(b, []byte("o opens the tab"))
	}, teatest.WithDuration(30*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	p.SetDelay(0)
	m := a.final()
	if m.tab != tabLeases {
		t.Fatalf("o pressed during the jump left the TUI on %v (flash %q)", m.tab, m.flash.msg.Text)
	}
	const lease = `["dwk_lease", "Ticker", "234f594be1ed8ecc8c4d393b295c02f3"]`
	if r, ok := m.tabs.leases.Selected(); !ok || codec.Format(r) != lease {
		t.Errorf("Leases selects %v, want the lease the jump went to", r)
	}
}
