package leases

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newLeasesHarness runs a focused Leases view over s at w x h.
func newLeasesHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Start[Model, *Model](t, s, clock, w, h, New)
}

// TestLeasesGolden: every lease and cron anomaly at 120x40 (the view gets
// the body: 37 lines) on a fixed clock, then sorted by time left, and the
// reference store, read-only.
func TestLeasesGolden(t *testing.T) {
	s, clock, _ := viewtest.CoordStoreAt(t)
	viewtest.SeedCoordAnomalies(t, s, clock)
	h := newLeasesHarness(t, s, clock, 120, 37)
	t.Run("anomalies", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("S", "j", "j")
	t.Run("by-time-left", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	t.Run("80x24", func(t *testing.T) {
		golden.RequireEqual(t, newLeasesHarness(t, s, clock, 80, 21).M.View())
	})
	t.Run("60x18", func(t *testing.T) {
		golden.RequireEqual(t, newLeasesHarness(t, s, clock, 60, 15).M.View())
	})
	t.Run("reference", func(t *testing.T) {
		s, clock, _ := viewtest.Reference(t, true)
		golden.RequireEqual(t, newLeasesHarness(t, s, clock, 120, 37).M.View())
	})
}
