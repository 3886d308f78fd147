package browse

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/views/viewtest"
)

// TestBrowseSaysALoadFailedUntilARefreshReadsIt: a level whose re-read
// failed shows the error inline, and Browse says so (Failed), so that the
// root re-reads it at its next tick though seq stands still. The first
// retry failing too (the store still away) used to leave the error until
// r: Refresh retried a failed level once, and nothing asked again. The store
// fails for real: its table is renamed away.
func TestBrowseSaysALoadFailedUntilARefreshReadsIt(t *testing.T) {
	s, clock, url := viewtest.Reference(t, false)
	h := startHarness(t, s, clock, 120, 40)
	goTo(h, `["accounts", "hooli"]`)
	h.RequireView(`"hooli"`)
	if h.M.Failed() {
		t.Fatal("Failed before anything failed")
	}

	storetest.Exec(t, url, "ALTER TABLE kv RENAME TO kv_away")
	h.Keys("r")
	h.RequireView("✗ ")
	if !h.M.Failed() {
		t.Fatal("the rows show an error, but Failed says no")
	}
	h.Refresh() // the root's first retry: the store is still away
	if !h.M.Failed() {
		t.Fatal("a retry that failed again: Failed says no, so nothing would ask again")
	}

	storetest.Exec(t, url, "ALTER TABLE kv_away RENAME TO kv")
	h.Refresh() // the next tick, because Failed said yes
	if h.M.Failed() || strings.Contains(h.M.View(), "✗ ") {
		t.Fatalf("the error stayed after a refresh that reads:\n%s", h.M.View())
	}
	h.RequireView(`"hooli"`, `"acme"`)
}

// failer is the root's question to a tab (tui/refresh.go).
var _ interface{ Failed() bool } = Model{}
