package views

import (
	"cmp"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
)

// AlarmsKeys are the Alarms view's key bindings.
type AlarmsKeys struct {
	NavKeys
	Classes, Entries              key.Binding // which list has the keys
	Reload                        key.Binding
	Set, Reschedule, Delete, Fire key.Binding
}

// DefaultAlarmsKeys returns the Alarms view's default key bindings.
func DefaultAlarmsKeys() AlarmsKeys {
	return AlarmsKeys{
		NavKeys:    DefaultNavKeys(),
		Classes:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "classes")),
		Entries:    key.NewBinding(key.WithKeys("right", "l", "enter"), key.WithHelp("→/l", "the class's alarms")),
		Reload:     key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "reload")),
		Set:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "set an alarm")),
		Reschedule: key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "reschedule / re-post")),
		Delete:     key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "delete (confirm)")),
		Fire:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "fire due now (confirm)")),
	}
}

// Alarms shows, per class, the due index on a time line with now marked,
// each alarm's lateness, retries and consistency findings; it sets,
// reschedules, deletes and fires alarms.
type Alarms struct {
	coordBase
	keys AlarmsKeys

	classes []coord.AlarmClass
	finds   map[string][]coord.Finding // by key text

	classList listCursor // id: the class name
	entryList listCursor // id: the row's key text
	onEntries bool       // the alarm list has the keys (else the classes)

	fired *alarmFireReport // the last fire, shown until the cursor moves
}

// alarmItem is one line of a class's alarm list: a due entry, or a by-id
// record that no due entry matches (it never fires) or that is malformed.
type alarmItem struct {
	coord.AlarmEntry
	byID  bool
	dupes int // due entries of this id in the class
}

// NewAlarms returns the Alarms view over deps.Store.
func NewAlarms(deps Deps, styles themes.Styles) Alarms {
	m := Alarms{coordBase: newCoordBase(deps, styles), keys: DefaultAlarmsKeys()}
	if m.readOnly {
		disableBindings(&m.keys.Set, &m.keys.Reschedule, &m.keys.Delete, &m.keys.Fire)
	}
	return m
}

// Init loads the alarms.
func (m Alarms) Init() tea.Cmd {
	if m.store == nil {
		return nil
	}
	return loadAlarms(m.store, m.deps.Session, m.gen, m.deps.Now())
}

// SetSize sets the view's rectangle.
func (m *Alarms) SetSize(w, h int) {
	m.width, m.height = w, h
	if m.form != nil {
		m.form.setWidth(m.rightInner())
	}
}

// Busy reports whether a load or an action is in flight.
func (m Alarms) Busy() bool { return m.loading || m.acting }

// Capturing reports whether the form has the keys.
func (m Alarms) Capturing() bool { return m.form != nil }

// Update handles a message.
func (m Alarms) Update(msg tea.Msg) (Alarms, tea.Cmd) {
	switch msg := msg.(type) {
	case alarmsLoaded:
		return m.onLoaded(msg), nil
	case alarmActed:
		return m.onActed(msg)
	case tea.MouseMsg:
		if k, ok := wheelKey(msg); ok {
			return m.Update(k)
		}
	case tea.KeyMsg:
		if !m.focused {
			return m, nil
		}
		if m.form != nil {
			return m.handleForm(msg)
		}
		return m.handleLists(msg)
	}
	return m, nil
}

// Refresh re-reads the alarms: the store changed.
func (m Alarms) Refresh() (Alarms, tea.Cmd) {
	if !m.startLoad() {
		return m, nil
	}
	return m, loadAlarms(m.store, m.deps.Session, m.gen, m.deps.Now())
}

// ShortHelp returns the bindings for the one-line help.
func (m Alarms) ShortHelp() []key.Binding {
	if m.form != nil {
		return m.form.help()
	}
	k := m.keys
	return []key.Binding{k.Set, k.Reschedule, k.Delete, k.Fire, k.Entries}
}

// FullHelp returns every live binding, in columns.
func (m Alarms) FullHelp() [][]key.Binding {
	if m.form != nil {
		return [][]key.Binding{m.form.help()}
	}
	k := m.keys
	return [][]key.Binding{k.bindings(), {k.Classes, k.Entries, k.Reload}, {k.Set, k.Reschedule, k.Delete, k.Fire}}
}

// classNames lists the classes, the ids of the class list.
func (m Alarms) classNames() []string {
	out := make([]string, len(m.classes))
	for i, c := range m.classes {
		out[i] = c.Class
	}
	return out
}

// class returns the selected class.
func (m Alarms) class() (coord.AlarmClass, bool) {
	if m.classList.cur < 0 || m.classList.cur >= len(m.classes) {
		return coord.AlarmClass{}, false
	}
	return m.classes[m.classList.cur], true
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
func (m Alarms) items() []alarmItem {
	c, ok := m.class()
	if !ok {
		return nil
	}
	return classItems(c)
}

// itemIDs are the key texts of the selected class's alarms.
func (m Alarms) itemIDs() []string {
	items := m.items()
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = codec.Format(it.Key)
	}
	return out
}

// item returns the selected alarm.
func (m Alarms) item() (alarmItem, bool) {
	items := m.items()
	if m.entryList.cur < 0 || m.entryList.cur >= len(items) {
		return alarmItem{}, false
	}
	return items[m.entryList.cur], true
}
