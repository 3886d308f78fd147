package views

import (
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/store"
	"kvdeck/views/viewtest"
)

// newAlarmsHarness runs a focused Alarms view over s at w x h.
func newAlarmsHarness(t *testing.T, s *store.Store, clock *store.VirtualClock, w, h int) *coordHarness[Alarms] {
	t.Helper()
	return startCoord[Alarms, *Alarms](t, s, clock, w, h, NewAlarms)
}

// TestAlarmsGolden: every alarm anomaly at 120x40 on a fixed clock (the
// Cart class, its alarms with an orphan selected, the Ticker class with a
// poison alarm), and the reference store with its overdue alarm selected.
func TestAlarmsGolden(t *testing.T) {
	s, clock, _ := coordStoreAt(t)
	seedCoordAnomalies(t, s, clock)
	h := newAlarmsHarness(t, s, clock, 120, 37)
	t.Run("classes", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("l", "j", "j", "j", "j")
	t.Run("entries", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	h.keys("h", "j", "l", "j")
	t.Run("poison", func(t *testing.T) { golden.RequireEqual(t, h.m.View()) })
	t.Run("80x24", func(t *testing.T) {
		h := newAlarmsHarness(t, s, clock, 80, 21)
		h.keys("l")
		golden.RequireEqual(t, h.m.View())
	})
	t.Run("reference", func(t *testing.T) {
		s, clock, _ := viewtest.Reference(t, true)
		h := newAlarmsHarness(t, s, clock, 120, 37)
		h.keys("l")
		golden.RequireEqual(t, h.m.View())
	})
}

func TestParseAlarmTime(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"+30s", T + 30000}, {"-1m", T - 60000}, {"now", T}, {" 1767312090000 ", T + 90000},
		{"2026-01-02T00:00:05Z", T + 5000}, {"2026-01-02T00:00:00.25Z", T + 250},
	} {
		if got, err := parseAlarmTime(c.in, T); err != nil || got != c.want {
			t.Errorf("parseAlarmTime(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "tomorrow", "+5 minutes", "2026-01-02"} {
		if _, err := parseAlarmTime(bad, T); err == nil {
			t.Errorf("parseAlarmTime(%q) accepted", bad)
		}
	}
}
