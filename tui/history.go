package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
)

// The back stack: every jump (Browse o, :goto,
// Activity enter, a lease's, alarm's or message's o, a finder result)
// pushes where the user was, tab and selected key; [ (or ctrl+o) goes
// back there, ] forward again, like a browser or vim's jump list. A new
// jump drops the forward places.
//
// The selected key of a tab is read from it (Browse's is the key its
// cursor is on, or the key it is walking to). Browse's far moves (g, G,
// ← to the parent, → into a level, a filter's jump, a search match
// shown: views/browse/places.go) push the key they left as well, so [
// returns to where the cursor was before it went places, not only before
// a jump between tabs.

// maxPlaces bounds each side of the stack.
const maxPlaces = 100

// place is where the user was: a tab and, when known, its selected key.
type place struct {
	tab tab
	key codec.Key // nil: the tab alone
}

// history is the back stack: back holds the places left by jumps (the
// latest last), fwd the ones gone back from (the latest last).
type history struct {
	back, fwd []place
}

// push records a jump from p: p goes on the back stack, forward is
// dropped. A jump from where the last one left from is kept once.
func (h *history) push(p place) {
	h.fwd = nil
	if n := len(h.back); n > 0 && h.back[n-1].equal(p) {
		return
	}
	h.back = appendBounded(h.back, p)
}

// goBack pops the place to go back to; here goes on the forward stack.
func (h *history) goBack(here place) (place, bool) {
	return step(&h.back, &h.fwd, here)
}

// goForward pops the place to go forward to; here goes on the back stack.
func (h *history) goForward(here place) (place, bool) {
	return step(&h.fwd, &h.back, here)
}

// step pops from and pushes here on to.
func step(from, to *[]place, here place) (place, bool) {
	n := len(*from)
	if n == 0 {
		return place{}, false
	}
	p := (*from)[n-1]
	*from = (*from)[:n-1]
	*to = appendBounded(*to, here)
	return p, true
}

func appendBounded(s []place, p place) []place {
	if len(s) == maxPlaces {
		s = append(s[:0:0], s[1:]...)
	}
	return append(s, p)
}

func (p place) equal(q place) bool {
	return p.tab == q.tab && (p.key == nil) == (q.key == nil) && p.key.Equal(q.key)
}

// here is where the user is now.
func (m model) here() place {
	p := place{tab: m.tab}
	switch m.tab {
	case tabBrowse:
		p.key = m.browseAt
		if k, ok := m.tabs.browse.Selected(); ok {
			p.key = k
		}
	case tabLeases:
		p.key, _ = m.tabs.leases.Selected()
	case tabAlarms:
		p.key, _ = m.tabs.alarms.Selected()
	case tabQueues:
		p.key, _ = m.tabs.queues.Selected()
	default:
		// Compose, Race, Sweep and Activity: the tab alone.
	}
	return p
}

// takeBrowsePlaces pushes the Browse keys far moves of its cursor left
// (a key's, taken right after it, before the next key can travel).
func (m model) takeBrowsePlaces() model {
	for _, k := range m.tabs.browse.TakeLeft() {
		m.hist.push(place{tab: tabBrowse, key: k})
	}
	return m
}

// gotoKey is every jump to a key in Browse (:goto, a view's GotoMsg, a
// finder result): it pushes where the user was, then shows the key.
func (m model) gotoKey(k codec.Key) (model, tea.Cmd) {
	m.hist.push(m.here())
	return m.visitBrowse(k)
}

// visitBrowse shows k in Browse, pushing nothing.
func (m model) visitBrowse(k codec.Key) (model, tea.Cmd) {
	cmd := m.switchTab(tabBrowse)
	var jump tea.Cmd
	m.browseAt = k
	m.tabs.browse, jump = m.tabs.browse.Goto(k)
	return m, tea.Batch(cmd, jump)
}

// travel goes back (or forward) one place.
func (m model) travel(back bool) (model, tea.Cmd) {
	var p place
	var ok bool
	if back {
		p, ok = m.hist.goBack(m.here())
	} else {
		p, ok = m.hist.goForward(m.here())
	}
	if !ok {
		word := "back"
		if !back {
			word = "forward"
		}
		out := m.flash.show(views.FlashMsg{Level: views.FlashInfo, Text: "nothing to go " + word + " to: jumps (o, :goto, enter in Activity, a find) and Browse's far moves (g, G, ←, →, a filter) leave places here"})
		return m, out
	}
	if p.tab == tabBrowse && p.key != nil {
		return m.visitBrowse(p.key)
	}
	cmd := m.switchTab(p.tab)
	if p.key != nil && tabTable[p.tab].selectRecord != nil {
		tabTable[p.tab].selectRecord(&m.tabs, p.key)
	}
	return m, cmd
}
