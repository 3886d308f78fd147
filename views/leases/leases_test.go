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
	h := viewtest.Seeded(t, newLeasesHarness)
	t.Run("anomalies", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("S", "j", "j")
	t.Run("by-time-left", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	viewtest.EachScreen(t, viewtest.SmallScreens(), newLeasesHarness, h.S, h.Clock, viewtest.GoldenAfter[Model]())
	t.Run("reference", func(t *testing.T) {
		golden.RequireEqual(t, viewtest.OnReference(t, newLeasesHarness, true).M.View())
	})
}
