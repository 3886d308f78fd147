package views

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views/viewtest"
)

// newLeasesHarness runs a focused Leases view over s at w x h.
func newLeasesHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *coordHarness[Leases] {
	t.Helper()
	return newCoordHarness(t, s, clock, func(d Deps, st themes.Styles) Leases {
		m := NewLeases(d, st)
		m.SetSize(w, h)
		m.Focus()
		return m
	}, func(m Leases) tea.Cmd { return m.Init() })
}

// TestLeasesGolden: every lease and cron anomaly at 120x40 on a fixed
// clock, then sorted by time left, and the reference store.
func TestLeasesGolden(t *testing.T) {
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	h := newLeasesHarness(t, s, clock, 120, 37)
	t.Run("anomalies", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("s", "j", "j")
	t.Run("by-time-left", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	t.Run("reference", func(t *testing.T) {
		s, clock, _ := viewtest.Reference(t, true)
		h := newLeasesHarness(t, s, clock, 120, 37)
		golden.RequireEqual(t, h.m.View())
	})
}
