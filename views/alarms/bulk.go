package alarms

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"kvdeck/codec"
	"kvdeck/store"
	"kvdeck/store/coord"
	"kvdeck/views"
	"kvdeck/views/widgets"
)

// Marking alarms for a bulk action: space marks the
// selected alarm and moves down, ctrl+a marks every alarm shown (again:
// clears), ; offers delete, fire now and copy keys over the marked ones
// (the root asks and runs them, tui/bulk.go).

// markedAlarm is what a mark keeps of an alarm as it was seen: its class,
// id, retry count, and every row of it (the row marked first) with its
// stamp; fire is false for a stray row (a due entry no by-id record
// matches, a by-id record without a due entry, a malformed row), which
// can only be deleted.
type markedAlarm struct {
	class, id string
	retry     int
	rows      coord.AlarmRows
	fire      bool
}

// alarmMark is the mark of it, an alarm of class c.
func alarmMark(c coord.AlarmClass, it alarmItem) widgets.Mark {
	a := markedAlarm{class: c.Class, id: it.ID, retry: it.RetryCount, rows: coord.AlarmRows{{Key: it.Key, Versionstamp: it.Versionstamp}}}
	if !it.byID && it.Matched && it.Problem == "" {
		for _, b := range c.ByID {
			if b.ID == it.ID && b.Matched {
				a.rows = append(a.rows, store.Check{Key: b.Key, Versionstamp: b.Versionstamp})
				a.fire = true
			}
		}
	}
	return widgets.Mark{ID: codec.Format(it.Key), Key: it.Key, Stamp: it.Versionstamp, Data: a}
}

// handleMark handles space, ctrl+a and ; on the lists.
func (m Model) handleMark(msg tea.KeyMsg) (Model, tea.Cmd) {
	c, _ := m.class()
	switch {
	case key.Matches(msg, m.keys.Bulk):
		return m, m.bulk()
	case !m.lists.OnItems:
		return m, views.Flash(views.FlashInfo, "%s", views.Hint("select a class's alarms (%s) to mark them", m.keys.Entries))
	case key.Matches(msg, m.keys.MarkAll):
		var all []widgets.Mark
		for _, it := range m.shownItems(c) {
			all = append(all, alarmMark(c, it))
		}
		m.marks.All(all)
	default:
		if it, ok := m.item(); ok {
			m.marks.Toggle(alarmMark(c, it))
			m.lists.Nav(tea.KeyMsg{Type: tea.KeyDown}, m.keys.NavKeys, m.sides())
		}
	}
	return m, nil
}

// bulk offers the bulk actions over the marked alarms; fire now only
// when every one is a whole alarm.
func (m Model) bulk() tea.Cmd {
	if m.marks.Len() == 0 {
		return views.Flash(views.FlashInfo, "%s", m.keys.MarkKeys.NoneMarked("alarm"))
	}
	now := m.Deps.Now()
	var del, fire []store.BulkUnit
	whole := true
	for _, mk := range m.marks.List() {
		a := mk.Data.(markedAlarm)
		del = append(del, coord.AlarmDeleteUnit(mk.Key, a.rows))
		fire = append(fire, coord.AlarmFireNowUnit(mk.Key, a.class, a.id, a.retry, a.rows, now))
		whole = whole && a.fire
	}
	actions := []views.BulkAction{{Key: "d", Name: "delete", Units: del, Says: "Each alarm is deleted: its due entry and its by-id record. It will not fire."}}
	if whole {
		actions = append(actions, views.BulkAction{Key: "f", Name: "fire now", Units: fire, Says: "Each alarm is rescheduled to now (its retry count kept): a poller fires it at its next tick."})
	}
	actions = append(actions, views.BulkAction{Key: "y", Name: "copy keys", Copy: true})
	return views.Bulk(m.marks.Count("alarm"), m.marks.Keys(), actions...)
}
