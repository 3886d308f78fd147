package alarms

import (
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/views/coordkit"
)

// The `/` filter: a class shows when its name matches or one of its
// alarms does; the alarms of a class whose name matches all show, else
// only those that match (id or key).

// shownClasses are the classes the filter lets through.
func (m Model) shownClasses() []coord.AlarmClass {
	return coordkit.Shown(m.filter, m.classes, func(c coord.AlarmClass) int { return len(m.shownItems(c)) })
}

// shownItems are the alarms of c the filter lets through.
func (m Model) shownItems(c coord.AlarmClass) []alarmItem {
	items := classItems(c)
	if m.filter.Text() == "" || m.filter.Match(c.Class) {
		return items
	}
	out := items[:0:0]
	for _, it := range items {
		if m.filter.Match(it.ID + " " + codec.Format(it.Key)) {
			out = append(out, it)
		}
	}
	return out
}

// handleFilter hands msg to the filter.
func (m Model) handleFilter(msg tea.KeyMsg) (Model, tea.Cmd) {
	_, cmd := m.lists.Filter(&m.filter, &m.keys.FilterKeys, msg, m.sides())
	return m, cmd
}
