// Package alarms is the Alarms tab: per class, the due index on a time line
// with now marked, the alarms, and set, reschedule, delete and fire.
package alarms

import (
	"cmp"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/coordkit"
	"kvdeck/views/widgets"
)

// Keys are the Alarms view's key bindings.
type Keys struct {
	coordkit.Keys // o: the alarm's raw key in Browse
	widgets.MarkKeys
	Classes, Entries              key.Binding // which list has the keys
	Set, Reschedule, Delete, Fire key.Binding
}

// DefaultKeys returns the Alarms view's default key bindings.
func DefaultKeys() Keys {
	return Keys{
		Keys:       coordkit.DefaultKeys(),
		MarkKeys:   widgets.DefaultMarkKeys(),
		Classes:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "classes")),
		Entries:    key.NewBinding(key.WithKeys("right", "l", "enter"), key.WithHelp("→/l", "the class's alarms")),
		Set:        key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new alarm: set one")),
		Reschedule: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "reschedule / re-post")),
		Delete:     key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete (confirm)")),
		Fire:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fire due now (confirm)")),
	}
}

// actions is the Alarms tab's table of keys: n and e open the alarm
// form, d and f ask.
func (k *Keys) actions() views.Actions[Model] {
	as := coordkit.ListActions(&k.Keys, &k.Classes, &k.Entries, 5, (*Model).twoLists)
	as = append(as, coordkit.ReadActions[Model](&k.Keys, views.Step(Model.handleFilter), (*Model).showInBrowse, 6)...)
	as = append(as, views.Actions[Model]{
		{Binding: &k.Set, What: "set an alarm", Asks: views.AskForm, Do: views.Run((*Model).startSet), Col: 2, Short: 1},
		{Binding: &k.Reschedule, What: "reschedule an alarm", Asks: views.AskForm, Do: views.Run((*Model).startReschedule), Off: Model.rescheduleOff, Col: 2, Short: 2},
		{Binding: &k.Delete, What: "delete an alarm", Asks: views.AskDialog, Do: views.Run((*Model).askDelete), Off: Model.deleteOff, Col: 2, Short: 3},
		{Binding: &k.Fire, What: "fire due alarms", Asks: views.AskDialog, Do: views.Run((*Model).askFire), Off: Model.fireOff, Col: 2, Short: 4},
	}...)
	as = append(as, views.Together(3, views.Step(Model.handleMark), k.MarkKeys.All()...)...)
	return coordkit.FleetOff(as, Model.InFleet, &k.Fleet)
}

// Model shows, per class, the due index on a time line with now marked,
// each alarm's lateness, retries and consistency findings; it sets,
// reschedules, deletes and fires alarms.
type Model struct {
	coordkit.Base
	keys Keys

	classes []coord.AlarmClass
	finds   coordkit.Findings

	// lists: the classes (id: the class name) and the selected class's
	// alarms (id: the row's key text).
	lists  coordkit.Lists
	filter widgets.Filter
	want   codec.Key // the row Select asked for before the alarms came

	fired *alarmFireReport // the last fire, shown until the cursor moves
	marks widgets.Marks    // the alarms marked for a bulk action (bulk.go)
}

// alarmItem is one line of a class's alarm list: a due entry, or a by-id
// record that no due entry matches (it never fires) or that is malformed.
type alarmItem struct {
	coord.AlarmEntry
	byID  bool
	dupes int // due entries of this id in the class
}

// New returns the Alarms view over deps.Store.
func New(deps views.Deps, styles themes.Styles) Model {
	m := Model{Base: coordkit.NewBase(deps, styles, coordkit.Load(inspectAlarms), fleetDef(styles)), keys: DefaultKeys(),
		filter: widgets.NewFilter("filter: class, alarm id or key", styles)}
	return m
}

// Init loads the alarms.
func (m Model) Init() tea.Cmd { return m.InitCmd() }

// SetSize sets the view's rectangle.
func (m *Model) SetSize(w, h int) {
	m.Resize(w, h)
	m.filter.SetLineWidth(m.leftWidth() - m.Styles.Pane.GetHorizontalFrameSize())
	if m.Form != nil {
		m.Form.SetWidth(m.rightInner())
	}
}

// Capturing reports whether the form or the filter has the keys.
func (m Model) Capturing() bool { return m.Form != nil || m.filter.Typing() }

// Update handles a message.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if cmd, ok := coordkit.Route(&m, msg, Model.Update, Model.onClick, m.keys.actions); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case alarmsLoaded:
		return m.onLoaded(msg)
	case alarmActed:
		return m.onActed(msg)
	case views.BulkDoneMsg:
		if m.Focused {
			m.marks.Clear()
		}
	case tea.KeyMsg:
		switch {
		case m.Form != nil:
			return m.handleForm(msg)
		case m.filter.Typing():
			return m.handleFilter(msg)
		}
		return m.keys.actions().Handle(m, msg, m.ReadOnly) // the lists
	}
	return m, nil
}

// Refresh re-reads the alarms: the store changed (coordkit's RefreshCmd).
func (m Model) Refresh() (Model, tea.Cmd) {
	cmd := m.RefreshCmd()
	return m, cmd
}

// ShortHelp returns the bindings for the one-line help.
func (m Model) ShortHelp() []key.Binding {
	return coordkit.ShortHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// FullHelp returns every live binding, in columns.
func (m Model) FullHelp() [][]key.Binding {
	return coordkit.FullHelp(m.Base, m.filter, m.keys.Fleet, m.keys.actions())
}

// sides are the class list and the selected class's alarms, read from m
// as it is when coordkit.Lists calls them; a move drops the last fire's
// report.
func (m *Model) sides() coordkit.Sides {
	return coordkit.Sides{
		Groups: func() ([]string, int) { return m.classNames(), m.classRows() },
		Items:  func() ([]string, int) { return m.itemIDs(), m.entryRows() },
		Leave:  func() { m.fired = nil },
	}
}

// twoLists are the lists and their sides, for coordkit.ListActions.
func (m *Model) twoLists() (*coordkit.Lists, coordkit.Sides) { return &m.lists, m.sides() }

// classNames lists the classes, the ids of the class list.
func (m Model) classNames() []string {
	return widgets.IDs(m.shownClasses(), func(c coord.AlarmClass) string { return c.Class })
}

// class returns the selected class.
func (m Model) class() (coord.AlarmClass, bool) {
	return widgets.Selected(m.lists.Groups, m.shownClasses())
}

// classItems lists a class's due entries and its by-id records that no due
// entry matches, in time order.
func classItems(c coord.AlarmClass) []alarmItem {
	per := map[string]int{}
	for _, d := range c.Due {
		if d.Problem == "" {
			per[d.ID]++
		}
	}
	out := make([]alarmItem, 0, len(c.Due))
	for _, d := range c.Due {
		out = append(out, alarmItem{AlarmEntry: d, dupes: per[d.ID]})
	}
	for _, b := range c.ByID {
		if !b.Matched {
			out = append(out, alarmItem{AlarmEntry: b, byID: true})
		}
	}
	// Time order; rows whose time cannot be read go last.
	slices.SortStableFunc(out, func(a, b alarmItem) int {
		return cmp.Or(cmp.Compare(boolInt(a.Problem != ""), boolInt(b.Problem != "")), cmp.Compare(a.EpochMs, b.EpochMs))
	})
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// items lists the selected class's alarms.
func (m Model) items() []alarmItem {
	c, ok := m.class()
	if !ok {
		return nil
	}
	return m.shownItems(c)
}

// itemIDs are the key texts of the selected class's alarms.
func (m Model) itemIDs() []string {
	return widgets.IDs(m.items(), func(it alarmItem) string { return codec.Format(it.Key) })
}

// item returns the selected alarm.
func (m Model) item() (alarmItem, bool) {
	return widgets.Selected(m.lists.Items, m.items())
}
