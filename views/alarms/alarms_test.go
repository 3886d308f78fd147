package alarms

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newAlarmsHarness runs a focused Alarms view over s at w x h.
func newAlarmsHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *viewtest.Harness[Model] {
	t.Helper()
	return viewtest.Start[Model, *Model](t, s, clock, w, h, New)
}

// TestAlarmsGolden: every alarm anomaly at 120x40 on a fixed clock (the
// Cart class, its alarms with an orphan selected, the Ticker class with a
// poison alarm), and the reference store with its overdue alarm selected.
func TestAlarmsGolden(t *testing.T) {
	h := viewtest.Seeded(t, newAlarmsHarness)
	t.Run("classes", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("l", "j", "j", "j", "j")
	t.Run("entries", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	h.Keys("h", "j", "l", "j")
	t.Run("poison", func(t *testing.T) { golden.RequireEqual(t, h.M.View()) })
	viewtest.EachScreen(t, viewtest.SmallScreens(), newAlarmsHarness, h.S, h.Clock, viewtest.GoldenAfter[Model]("l"))
	t.Run("reference", func(t *testing.T) {
		viewtest.GoldenAfter[Model]("l")(viewtest.OnReference(t, newAlarmsHarness, true))
	})
}

func TestParseAlarmTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"+30s", viewtest.T + 30000}, {"-1m", viewtest.T - 60000}, {"now", viewtest.T}, {" 1767312090000 ", viewtest.T + 90000},
		{"2026-01-02T00:00:05Z", viewtest.T + 5000}, {"2026-01-02T00:00:00.25Z", viewtest.T + 250},
	} {
		if got, err := parseAlarmTime(c.in, viewtest.T); err != nil || got != c.want {
			t.Errorf("parseAlarmTime(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "+5 minutes", "2026-01-02"} {
		if _, err := parseAlarmTime(bad, viewtest.T); err == nil {
			t.Errorf("parseAlarmTime(%q) accepted", bad)
		}
	}
}
