package leases

import (
	"strings"

	"testing"

	"github.com/charmbracelet/x/ansi"

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

// TestLeasesSmallScreensKeepHolder: at 80x24 and 60x18 the table keeps
// its HOLDER and KIND columns (the bar, the state and the stamp give way
// instead), and the selected row's box shows the holder, the stamp and
// the whole expiry line, its countdown included, not cut after it.
func TestLeasesSmallScreensKeepHolder(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	viewtest.EachScreen(t, viewtest.SmallScreens(), newLeasesHarness, s, clock, func(h *viewtest.Harness[Model]) {
		view := ansi.Strip(h.M.View())
		lines := strings.Split(view, "\n")
		if header := lines[2]; !strings.Contains(header, "HOLDER") || !strings.Contains(header, "KIND") {
			t.Errorf("the header lost HOLDER or KIND:\n%s", view)
		}
		if !strings.Contains(lines[3], "lease") || !strings.Contains(view, "a1b2…4a5b") {
			t.Errorf("a row shows no kind or no holder:\n%s", view)
		}
		for _, want := range []string{"holder  none readable", "stamp   00000000000000000007", "· in 29s"} {
			if !strings.Contains(view, want) {
				t.Errorf("the selected box lacks %q:\n%s", want, view)
			}
		}
	})
}
