package tui

import (
	"context"
	"testing"
	"time"

	"kvdeck/codec"
	"kvdeck/internal/sqldtest"
	"kvdeck/views/viewtest"
)

// startRestartableAccounts runs the TUI at 120x40, refreshing every
// 300 ms, on a sqld that the test stops and starts again, holding three
// accounts.
func startRestartableAccounts(t *testing.T) (*sqldtest.Restartable, *app) {
	t.Helper()
	srv := sqldtest.StartRestartable(t)
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, srv.URL(), clock, false)
	for _, k := range []string{"acme", "globex", "hooli"} {
		if _, err := s.Set(context.Background(), codec.Key{codec.String("accounts"), codec.String(k)}, []byte(`true`), nil); err != nil {
			t.Fatal(err)
		}
	}
	return srv, start(t, s, clock, 120, 40, 300*time.Millisecond, "remote http")
}

// TestErrorsClearWhenTheServerComesBack: the server stops, a reload shows
// "database unreachable" in the rows and in the status bar; the server
// comes back with nothing written (seq stands still), and the next tick
// re-reads the tab: the rows come back without r.
func TestErrorsClearWhenTheServerComesBack(t *testing.T) {
	srv, a := startRestartableAccounts(t)
	a.keys("2") // Leases: its rows are one load, so an error replaces them
	a.waitFor("LEASES", "No leases")
	srv.Stop()
	a.keys("r")
	a.waitFor("│ ✗ database unreachable")
	srv.Start()
	a.waitFor("No leases") // before the fix: "✗ database unreachable" until r

	m := a.final()
	if m.lastErr != "" {
		t.Errorf("the status bar still says %q", m.lastErr)
	}
}

// TestBrowseErrorsClearWhenTheServerComesBack: the same on Browse, which
// cannot say that its last load failed: the failed version reads while
// the server was away make the root call Browse's Refresh at the first
// read that succeeds. It does (the shell's part), but Browse's Refresh
// re-reads only the stale pages on screen, not a level whose load failed,
// so the row keeps its error: Browse's part .
func TestBrowseErrorsClearWhenTheServerComesBack(t *testing.T) {
	srv, a := startRestartableAccounts(t)
	a.keys("enter")
	a.waitFor(`"hooli"`)
	srv.Stop()
	a.waitFor("│ ✗ database unreachable") // the status bar: the version reads fail
	a.keys("r")
	a.waitFor("│   ✗ database unreachable: cannot reach")
	srv.Start()
	// The rows' lines are not drawn again when they come back (the
	// renderer writes changed lines only): the title's row count tells,
	// 1/6 with the two error rows, 1/4 without.
	a.waitFor("KEYS", "1/4")
	m := a.final()
	if m.tabs.browse.Failed() {
		t.Error("Browse still says a load failed")
	}
}
