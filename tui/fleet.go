package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/views"
	"kvdeck/views/fleet"
	"kvdeck/views/widgets"
)

// The Fleet view (views/fleet): F or :fleet shows every
// saved store's health full-screen, read again on the live refresh's
// tick; its keys are a list's (q and esc close it, g and G, ? its help).
// enter opens the store under the cursor in the usual tabs (the
// switcher's switchStore): the view stays until the store is open, and
// says there why when it cannot be opened. In the tabs of a store opened
// from it, F comes back, and so does an esc the active tab has no use
// for (views.EscUser: no filter, peek or mark of its own to back out of;
// a prompt or a form has every key).

// fleetState is the root's part of the Fleet view: the view is kept
// while it is closed (it keeps its rows and trends); fleetShown, on the
// overlay stack, shows it.
type fleetState struct {
	view fleet.Model
	made bool // view was built
	// from names the store opened from the view: in its tabs, an esc the
	// tab does not use comes back (backToFleet).
	from string
	// opening names the store enter asked for, until it is open or
	// failed.
	opening string
	// pick is the row a fleet-mode tab's enter selects once its store is
	// open (fleettabs.go).
	pick pendingSelect
}

// fleetShown is the Fleet view shown over the tabs, an overlay
// (overlay.go).
type fleetShown struct{ opaque }

func (fleetShown) layer() layer { return layerFleet }

func (fleetShown) key(m model, msg tea.KeyMsg) (model, tea.Cmd, bool) {
	return taken(m.handleFleet(msg))
}

func (fleetShown) draw(m model, _ string, h int) string {
	return m.fl.view.SetCurrent(m.sw.current.Name).View(m.width, h)
}

func (fleetShown) help(m model) ([]key.Binding, bool) {
	return append(m.fl.view.Help(), m.keys.Help), true
}

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
	m.fl.view = m.fl.view.SetNote("")
	var cmd tea.Cmd
	m.fl.view, cmd = m.fl.view.Open()
	return m, cmd
}

// handleFleet handles keys while the Fleet view is shown: ? shows its
// help (not while its filter is typed), the rest are the view's.
func (m model) handleFleet(msg tea.KeyMsg) (model, tea.Cmd) {
	if !m.fl.view.Capturing() && key.Matches(msg, m.keys.Help) {
		m.overlays.put(&textScreen{fleet: true})
		return m, nil
	}
	var cmd tea.Cmd
	var act fleet.Action
	m.fl.view, cmd, act = m.fl.view.HandleKey(msg)
	switch act {
	case fleet.OpenStore:
		name, _ := m.fl.view.Selected()
		m.fl.opening = name
		next, open := m.switchStore(name)
		return next, tea.Batch(cmd, open)
	case fleet.CloseView:
		m.overlays.drop(layerFleet)
	case fleet.None:
	}
	return m, cmd
}

// fleetSwitched ends an open asked for from the view (onSwitched, for
// the switch shown): the view closes over the store's tabs, or stays and
// says why the store could not be opened.
func (m model) fleetSwitched(msg storeSwitched) model {
	if m.fl.opening != msg.name {
		return m
	}
	m.fl.opening = ""
	if msg.err != nil {
		m.fl.view = m.fl.view.SetNote(fmt.Sprintf("cannot open %s (still on %s): %v", msg.name, m.storeLabel(), msg.err))
		return m
	}
	m.fl.from = msg.name
	m.overlays.drop(layerFleet)
	return m
}

// fleetHelpLines are the help over the Fleet view: its keys (the tabs'
// keys wait for it to close), and what it reads.
func (m model) fleetHelpLines() []string {
	groups := append(m.fl.view.FullHelp(), []key.Binding{m.keys.Help, m.keys.ForceQuit})
	text := []string{"", m.helpGrid(groups, m.width-4), ""}
	for _, n := range []string{
		"The Fleet reads every saved store once a refresh (one request each, read-only, under a bound), each on its own: a store that is down or slow is a row that says so.",
		views.Hint("%s opens the store under the cursor in the tabs (● marks the one they show); the view stays, and says why, when it cannot be opened. In those tabs %s, or an esc the tab has no use for, comes back.",
			m.fl.view.Keys().Open, m.keys.Fleet),
		views.Hint("%s or esc closes this help.", m.keys.Help),
	} {
		text = append(text, widgets.ProseLines(n, m.styles.Muted, m.width-6)...)
	}
	return strings.Split(strings.Join(text, "\n"), "\n")
}

// fleetUpdate hands the Fleet view, once made, a message the root does
// not take itself (its reads' answers).
func (m *model) fleetUpdate(msg tea.Msg) tea.Cmd {
	if !m.fl.made {
		return nil
	}
	var cmd tea.Cmd
	m.fl.view, cmd = m.fl.view.Update(msg)
	return cmd
}

// fleetTick reads the stores again on a live tick while the view shows.
func (m model) fleetTick(msg refreshTick) tea.Cmd {
	if !m.fleetOpen() || msg.gen != m.refresh.gen || m.refresh.paused {
		return m.fleetTabTick(msg)
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
