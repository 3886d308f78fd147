package leases

import (
	"testing"

	"kvdeck/store/coord"
	"kvdeck/views/viewtest"
)

// TestLeasesWriteKeys walks the Leases tab's write-key table: read-only,
// a, d and b are refused with their reason and write nothing; writable, a
// opens the acquire form and d (on a lease kvdeck acquired) and b ask
// before anything is written.
func TestLeasesWriteKeys(t *testing.T) {
	keys := DefaultKeys()
	viewtest.WalkWriteKeys(t, viewtest.WriteWalk[Model]{
		Writes: keys.actions().Writes(),
		Start: func(t *testing.T, readOnly bool) *viewtest.Harness[Model] {
			t.Helper()
			_, clock, url := viewtest.CoordAnomalies(t)
			return newLeasesHarness(t, viewtest.Open(t, url, clock, readOnly), clock, 120, 37)
		},
		Prepare: func(h *viewtest.Harness[Model], key string) {
			selectLease(h.T, h, coord.LeaseKey("Cart", viewtest.IDCart1))
			if key == "d" && !h.M.ReadOnly {
				// d releases only what kvdeck acquired: acquire one first.
				h.Keys("n")
				h.ClearInput()
				h.TypeText(`["dwk_lease", "Cart", "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0"]`)
				h.Keys("enter")
				h.RequireFlash("acquired")
			}
		},
		Capturing: Model.Capturing,
	})
}
