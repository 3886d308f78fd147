package leases

import (
	"strings"
	"testing"

	"kvdeck/codec"
)

// TestLeasesClickSelectsARow: a click on a lease's row selects it (click
// rows on every tab; only Browse took row clicks).
func TestLeasesClickSelectsARow(t *testing.T) {
	h := seededLeases(t)
	h.ClickOn("Ticker", 0)
	if k, ok := h.M.Selected(); !ok || !strings.Contains(codec.Format(k), "Ticker") {
		t.Fatalf("a click on Ticker selects %v", k)
	}
}
