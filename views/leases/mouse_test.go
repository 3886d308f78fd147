package leases

import (
	"strings"
	"testing"

	"kvdeck/codec"
	"kvdeck/views/viewtest"
)

// TestLeasesClickSelectsARow: a click on a lease's row selects it (issue
// 13: click rows on every tab; only Browse took row clicks).
func TestLeasesClickSelectsARow(t *testing.T) {
	h := seededLeases(t)
	click, ok := viewtest.ClickOn(h.M.View(), "Ticker", 0)
	if !ok {
		t.Fatalf("no Ticker row:\n%s", h.M.View())
	}
	h.Send(click)
	if k, ok := h.M.Selected(); !ok || !strings.Contains(codec.Format(k), "Ticker") {
		t.Fatalf("a click on Ticker selects %v", k)
	}
}
