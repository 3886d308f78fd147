package tui

import (
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/fleet"
)

// The Fleet view (issue 21 point 3; views/fleet): F or :fleet shows every
// saved store's health full-screen, read again on the live refresh's
// tick; enter opens the store under the cursor in the usual tabs (the
// switcher's switchStore), F or esc closes it. In the tabs of a store
// opened from it, F comes back, and so does an esc the active tab has no
// use for (views.EscUser: no filter, peek or mark of its own to back out
// of; a prompt or a form has every key).

// fleetState is the root's part of the Fleet view: the view is kept
// while it is closed (it keeps its rows and trends); fleetShown, on the
// overlay stack, shows it.
type fleetState struct {
	view fleet.Model
	made bool // view was built
	// from names the store opened from the view: in its tabs, an esc the
	// tab does not use comes back (backToFleet).
	from string
}

// fleetShown is the Fleet view shown over the tabs, an overlay
// (overlay.go).
type fleetShown struct{ opaque }

func (fleetShown) layer() layer { return layerFleet }

func (fleetShown) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleFleet(msg))
}

func (fleetShown) draw(m model, _ string, h int) string { return m.fl.view.View(m.width, h) }

func (fleetShown) help(m model) ([]key.Binding, bool) { return m.fl.view.Help(), true }

// fleetOpen reports whether the Fleet view is shown.
func (m model) fleetOpen() bool { return m.overlays.has(layerFleet) }

// openFleet shows the Fleet view and lists the saved stores again.
func (m model) openFleet() (model, tea.Cmd) {
	if m.cfg.Stores == nil || m.cfg.OpenProbe == nil {
		return m, views.Flash(views.FlashError, "no saved stores here (kvdeck stores add NAME URL saves one)")
	}
	if !m.fl.made {
		m.fl.view = fleet.New(fleet.Deps{Stores: m.cfg.Stores, Open: m.cfg.OpenProbe, Done: m.cfg.ProbeDone, Platform: m.cfg.Platform, Now: m.cfg.Clock.Now, Wall: m.wall}, m.styles)
		m.fl.made = true
	}
	m.overlays.put(fleetShown{})
	var cmd tea.Cmd
	m.fl.view, cmd = m.fl.view.Open()
	return m, cmd
}

// handleFleet handles keys while the Fleet view is shown; q quits as
// everywhere (not while its filter is typed).
func (m model) handleFleet(msg tea.KeyMsg) (model, tea.Cmd) {
	if !m.fl.view.Capturing() && key.Matches(msg, m.keys.Quit) {
		cmd := m.quit()
		return m, cmd
	}
	var cmd tea.Cmd
	var act fleet.Action
	m.fl.view, cmd, act = m.fl.view.HandleKey(msg)
	switch act {
	case fleet.OpenStore:
		name, _ := m.fl.view.Selected()
		m.fl.from = name
		m.overlays.drop(layerFleet)
		next, open := m.switchStore(name)
		return next, tea.Batch(cmd, open)
	case fleet.CloseView:
		m.overlays.drop(layerFleet)
	case fleet.None:
	}
	return m, cmd
}

// fleetTick reads the stores again on a live tick while the view shows.
func (m model) fleetTick(msg refreshTick) tea.Cmd {
	if !m.fleetOpen() || msg.gen != m.refresh.gen || m.refresh.paused {
		return nil
	}
	return m.fl.view.Refresh()
}

// backToFleet reports whether msg is an esc that goes back to the Fleet
// view: the tabs show the store opened from it, and the active tab has
// nothing of its own to back out of.
func (m model) backToFleet(msg tea.KeyMsg) bool {
	return msg.Type == tea.KeyEsc && m.fl.from != "" && m.fl.from == m.sw.current.Name && !usesEsc(m.tabs.view(m.tab))
}

// usesEsc reports whether esc does something in the tab now: it says so
// (views.EscUser), or an enabled binding of its help is esc.
func usesEsc(v tabView) bool {
	if u, ok := v.(views.EscUser); ok {
		return u.UsesEsc()
	}
	for _, group := range v.FullHelp() {
		for _, b := range group {
			if b.Enabled() && slices.Contains(b.Keys(), "esc") {
				return true
			}
		}
	}
	return false
}
