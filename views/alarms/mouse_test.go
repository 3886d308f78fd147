package alarms

import "testing"

// TestAlarmsClickSelectsRows: a click on a class selects it, a click on an
// alarm's row selects that alarm and gives the alarm list the keys (click
// rows on every tab).
func TestAlarmsClickSelectsRows(t *testing.T) {
	h := seededAlarms(t)
	h.ClickOn("Ticker", 0)
	if c, _ := h.M.class(); c.Class != "Ticker" || h.M.lists.OnItems {
		t.Fatalf("a click on Ticker selects %q (on the alarms: %v)", c.Class, h.M.lists.OnItems)
	}
	items := h.M.items()
	if len(items) < 2 {
		t.Fatalf("Ticker has %d alarms", len(items))
	}
	want := items[len(items)-1]
	h.ClickOn(want.ID[:12], h.M.leftWidth())
	if it, ok := h.M.item(); !ok || it.Key.String() != want.Key.String() || !h.M.lists.OnItems {
		t.Fatalf("a click on %s selects %v (on the alarms: %v)", want.ID, it.Key, h.M.lists.OnItems)
	}
}
