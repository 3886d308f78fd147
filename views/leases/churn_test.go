package leases

import (
	"strings"
	"testing"

	"kvdeck/internal/storetest"
	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// TestLeaseChurn: another writer acquires, releases and re-acquires
// leases between loads; each load charts what is new (a new key or a new
// stamp) and what ended, on the fixed clock.
func TestLeaseChurn(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	ctx := storetest.Ctx(t)
	acquire := func(id string) coord.Lease {
		t.Helper()
		l, err := coord.Acquire(ctx, s, "Cart", id, coord.LeaseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	a := acquire("0a")
	h := newLeasesHarness(t, s, clock, 120, 37)
	if f := h.ViewLine("churn"); !strings.Contains(f, "from the next load on") {
		t.Errorf("the first load is a baseline: %q", f)
	}
	b := acquire("0b")
	acquire("0c")
	h.Refresh()
	if f := h.ViewLine("churn"); !strings.Contains(f, "2 new · 0 ended at the last load · 2 this session") {
		t.Errorf("two acquired: %q", f)
	}
	// a released; b released and re-acquired (a new stamp): 2 ended, 1 new
	for _, l := range []coord.Lease{a, b} {
		if _, err := coord.Release(ctx, s, l); err != nil {
			t.Fatal(err)
		}
	}
	acquire("0b")
	h.Refresh()
	f := h.ViewLine("churn")
	if !strings.Contains(f, "1 new · 2 ended at the last load · 5 this session") {
		t.Errorf("released and re-acquired: %q", f)
	}
	if !strings.Contains(f, "churn ") || !strings.Contains(f, "▅█") {
		t.Errorf("the chart: %q", f)
	}
}
