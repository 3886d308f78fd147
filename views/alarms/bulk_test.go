package alarms

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"kvdeck/views/viewtest"
)

// TestAlarmsMarks: space marks alarms (a mark column, "N marked"); B
// offers delete and fire now over whole alarms (each unit checks and
// deletes the due entry and the by-id record), delete only when a stray
// row is marked.
func TestAlarmsMarks(t *testing.T) {
	s, clock, _ := viewtest.CoordAnomalies(t)
	viewtest.EachScreen(t, []viewtest.Screen{viewtest.Wide(), {W: 80, H: 24}}, newAlarmsHarness, s, clock, func(h *viewtest.Harness[Model]) {
		h.Keys("l", " ")
		h.RequireView("1 marked", "✓")
		golden.RequireEqual(h.T, h.M.View())
	})
	h := newAlarmsHarness(t, s, clock, 120, 37)
	h.Keys("l", "ctrl+a", ";")
	if len(h.Bulks) != 1 {
		t.Fatalf("B: %+v", h.Bulks)
	}
	var names []string
	whole := true
	for _, mk := range h.M.marks.List() {
		whole = whole && mk.Data.(markedAlarm).fire
	}
	for _, a := range h.Bulks[0].Actions {
		names = append(names, a.Key+" "+a.Name)
	}
	want := "d delete, y copy keys"
	if whole {
		want = "d delete, f fire now, y copy keys"
	}
	if got := strings.Join(names, ", "); got != want {
		t.Errorf("actions: %s, want %s", got, want)
	}
	for _, u := range h.Bulks[0].Actions[0].Units {
		if len(u.Checks) != len(u.Muts) || len(u.Checks) == 0 {
			t.Errorf("delete unit of %s: %d checks, %d deletes", u.Key, len(u.Checks), len(u.Muts))
		}
	}
}
