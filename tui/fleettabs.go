package tui

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/views"
)

// The fleet mode of Leases, Alarms and Queues (views/coordkit's Fleet):
// W in those tabs shows every saved store of a group at once, read on
// the live refresh's tick (one read per store and tick, the Fleet view's
// opener: read-only, each store kept open between reads). The group is
// --fleet's, else the saved store's the tabs show, else every saved
// store. enter on a row opens its store in the same tab with the row
// selected (as :store NAME), or, on a row of the store shown, leaves the
// fleet mode with the row selected.

// fleetTab is a tab with a fleet mode (the coordination tabs, through
// coordkit.Base).
type fleetTab interface {
	InFleet() bool
	FleetTick() tea.Cmd
	LeaveFleet() tea.Cmd
	SetFleetGroup(group string)
}

// fleetTabs are the tabs with a fleet mode.
func (ts *tabs) fleetTabs() []fleetTab { return []fleetTab{&ts.leases, &ts.alarms, &ts.queues} }

// members are the saved stores as the fleet mode lists them, and its
// opener: the Fleet view's.
func (m model) members() views.Members {
	if m.cfg.Stores == nil || m.cfg.OpenProbe == nil {
		return views.Members{}
	}
	list := m.cfg.Stores
	return views.Members{
		List: func() ([]views.Member, error) {
			saved, err := list()
			out := make([]views.Member, len(saved))
			for i, s := range saved {
				out[i] = views.Member{Name: s.Name, Group: s.Group}
			}
			return out, err
		},
		Open: m.cfg.OpenProbe, Done: m.cfg.ProbeDone, Group: m.fleetGroup(),
		Start: m.cfg.FleetGroup != "" && m.session == 1,
	}
}

// fleetGroup is the group the fleet mode shows: --fleet's, else the
// saved store's shown ("" every saved store).
func (m model) fleetGroup() string {
	if m.cfg.FleetGroup != "" {
		return m.cfg.FleetGroup
	}
	return m.sw.current.Group
}

// setFleetGroup gives the tabs the group of the saved store now shown.
func (m *model) setFleetGroup() {
	for _, t := range m.tabs.fleetTabs() {
		t.SetFleetGroup(m.fleetGroup())
	}
}

// fleetTabTick reads the fleet again on a live tick while the tab shown
// is in its fleet mode: the fleet changes without the store shown
// changing.
func (m model) fleetTabTick(msg refreshTick) tea.Cmd {
	if msg.gen != m.refresh.gen || m.refresh.paused {
		return nil
	}
	if t, ok := m.tabs.view(m.tab).(fleetTab); ok && t.InFleet() {
		return t.FleetTick()
	}
	return nil
}

// openInStore is enter on a fleet row: the row's store in the same tab
// with the row selected; the store shown is not opened again.
func (m model) openInStore(msg views.OpenInStoreMsg) (model, tea.Cmd) {
	if msg.Store == m.sw.current.Name {
		t, _ := m.tabs.view(m.tab).(fleetTab)
		var cmd tea.Cmd
		if t != nil {
			cmd = t.LeaveFleet()
		}
		m.selectIn(m.tab, msg.Key)
		return m, cmd
	}
	m.fl.pick = pendingSelect{store: msg.Store, tab: m.tab, key: msg.Key}
	return m.switchStore(msg.Store)
}

// pendingSelect is the row a fleet row's enter selects once its store
// is open.
type pendingSelect struct {
	store string
	tab   tab
	key   codec.Key
}

// selectIn selects the row of k in tab t (nil k: none).
func (m *model) selectIn(t tab, k codec.Key) {
	if k != nil && tabTable[t].selectRecord != nil {
		tabTable[t].selectRecord(&m.tabs, k)
	}
}

// afterSwitch is the end of a switch to the saved store name, once its
// tabs are built: the fleet mode's group follows the store shown, and
// the row a fleet row's enter asked for is selected.
func (m model) afterSwitch(name string) model {
	m.setFleetGroup()
	if p := m.fl.pick; p.store == name {
		m.selectIn(p.tab, p.key)
	}
	m.fl.pick = pendingSelect{}
	return m
}
