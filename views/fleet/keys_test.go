package fleet

import (
	"testing"

	"kvdeck/views/viewtest"
)

// TestFleetKeys: the Fleet's keys are a list's, as in the store picker
// and the undo list: g and G go to the first and last row, q and esc
// close it (q quit the whole TUI), enter opens the row under the cursor,
// and a key clears what an enter said.
func TestFleetKeys(t *testing.T) {
	m := goldenFleet(t)
	press := func(k string) Action {
		t.Helper()
		var act Action
		m, _, act = m.HandleKey(viewtest.Key(k))
		return act
	}
	press("G")
	if name, _ := m.Selected(); name != "evil\x1b]52;c;aGk=\x07" {
		t.Errorf("G selects %q, want the last row", name)
	}
	press("g")
	if name, _ := m.Selected(); name != "dev" {
		t.Errorf("g selects %q, want the first row", name)
	}
	press("pgdown")
	if name, _ := m.Selected(); name != "evil\x1b]52;c;aGk=\x07" {
		t.Errorf("pgdown selects %q, want the last row (fewer than a page)", name)
	}
	for _, k := range []string{"q", "esc", "F"} {
		if act := press(k); act != CloseView {
			t.Errorf("%s: action %v, want CloseView", k, act)
		}
	}
	m = m.SetNote("cannot open")
	if act := press("enter"); act != OpenStore || m.note != "" {
		t.Errorf("enter: action %v, note %q; want OpenStore and the note cleared", act, m.note)
	}
	// While the filter is typed, q is a letter of it.
	press("/")
	if act := press("q"); act != None || m.filter.Text() != "q" {
		t.Errorf("q in the filter: action %v, filter %q", act, m.filter.Text())
	}
}
