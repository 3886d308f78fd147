package fleet

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"

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

// TestFleetKeysAreItsTable: the Fleet's keys are one table of actions
// (as every tab's): it writes nothing, so read-only has nothing to
// refuse; the one-line help and the help screen list its keys in their
// places; and a key rebound in the key map is the one that acts and that
// help names, the old one doing nothing.
func TestFleetKeysAreItsTable(t *testing.T) {
	m := goldenFleet(t)
	if w := m.keys.actions().Writes(); len(w) != 0 {
		t.Errorf("the Fleet's table declares writes: %+v", w)
	}
	helpKeys := func(bs []key.Binding) string {
		var out []string
		for _, b := range bs {
			if b.Enabled() {
				out = append(out, b.Help().Key)
			}
		}
		return strings.Join(out, " ")
	}
	if got, want := helpKeys(m.Help()), "↑/k ↓/j enter S / esc/q"; got != want {
		t.Errorf("one-line help %q, want %q", got, want)
	}
	if full := m.FullHelp(); len(full) != 2 || helpKeys(full[0]) != "↑/k ↓/j pgup pgdn g/home G/end" || helpKeys(full[1]) != "enter S / esc/q" {
		t.Errorf("full help %v", full)
	}
	m, _, _ = m.HandleKey(viewtest.Key("/"))
	m, _, _ = m.HandleKey(viewtest.Key("d"))
	m, _, _ = m.HandleKey(viewtest.Key("enter"))
	if got := helpKeys(m.Help()); got != "↑/k ↓/j enter S / esc esc/q" {
		t.Errorf("one-line help with a filter in force %q: esc clears it", got)
	}
	m, _, act := m.HandleKey(viewtest.Key("esc"))
	if act != None || m.filter.Text() != "" {
		t.Fatalf("esc with a filter in force: action %v, filter %q; want it cleared, the view kept", act, m.filter.Text())
	}

	m.keys.Sort = key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "sort"))
	m.keys.Open = key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "open"))
	sortBy := m.sortBy
	for _, k := range []string{"S", "enter"} {
		if m, _, act = m.HandleKey(viewtest.Key(k)); act != None || m.sortBy != sortBy {
			t.Errorf("%s, rebound away: action %v, sort %v -> %v", k, act, sortBy, m.sortBy)
		}
	}
	if m, _, _ = m.HandleKey(viewtest.Key("o")); m.sortBy == sortBy {
		t.Error("o, rebound to sort, did not sort")
	}
	if _, _, act = m.HandleKey(viewtest.Key("ctrl+o")); act != OpenStore {
		t.Errorf("ctrl+o, rebound to open: action %v", act)
	}
	if got := helpKeys(m.Help()); got != "↑/k ↓/j ctrl+o o / esc/q" {
		t.Errorf("rebound: one-line help %q", got)
	}
}
